import { AsyncLocalStorage } from "node:async_hooks";
import type * as MySQL from "mysql2/promise";
import type { Row, TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import type { ResolvedConnection } from "../connection.js";
import type { WriteScope } from "../database-destination.js";
import { LazyConnection } from "../lazy-connection.js";
import { loadDriver } from "../optional-driver.js";
import { ServerConnection } from "../server-connection.js";
import type { SqlDialect } from "../sql-dialect.js";
import type { ForgetCatalog, SqlDriver } from "../sql-driver.js";
import { multiRowInsert } from "../sql-statements.js";
import { alignCollation, type CatalogColumn } from "./exact-text.js";
import { isStaleDefinition, mysqlDialect, SESSION_SETUP } from "./mysql-dialect.js";
import { createPool } from "./mysql-pool.js";
import { type ServerFacts, serverFacts } from "./mysql-server.js";
import { isolationStatement, SERVER_QUERY, START_READ } from "./mysql-statements.js";
import { insertBatches } from "./mysql-load.js";
import { holdingLocks, partitionLocks, retryOnLockConflict } from "./write-locks.js";

const PACKAGE = "mysql2/promise";
const INSTALL = "npm install mysql2";
/** Fresh snapshots a read takes at most while tables it reads are being created or altered. */
const SNAPSHOT_ATTEMPTS = 5;

/**
 * MySQL or MariaDB through mysql2 (an optional peer dependency): a pool, opened on first use,
 * whose every connection talks utf8mb4 and runs in strict mode (`SESSION_SETUP`), whatever the
 * server's defaults, so a value a column cannot hold is an error, never truncated or mangled.
 * Rows are loaded with multi-row INSERTs of bound values; writes hold their partitions' locks
 * and run again after a deadlock (write-locks.ts); reads start over on a stale definition.
 */
export class MySqlDriver implements SqlDriver {
  /** The server, as messages and output show it (without its password), and how its errors are worded. */
  readonly place: ServerConnection;
  readonly #pool: LazyConnection<MySQL.Pool>;
  #facts: Promise<ServerFacts> | undefined;
  /** The dialect of the server last asked (its exact collation); until then, one that has none. */
  #dialect: SqlDialect = mysqlDialect(null);
  /** What the catalog last said of each table's columns, beyond their type ([dataset, table] as JSON). */
  readonly #catalogColumns = new Map<string, Map<string, CatalogColumn>>();
  readonly #conn = new AsyncLocalStorage<MySQL.PoolConnection>();
  /** The pool's connections whose session is set up (the driver's own connection objects). */
  readonly #ready = new WeakSet<object>();

  constructor(settings: ResolvedConnection) {
    this.place = new ServerConnection("MySQL", settings);
    this.#pool = new LazyConnection<MySQL.Pool>(
      async () => createPool(await loadDriver<typeof MySQL>(PACKAGE, "MySQLDestination", INSTALL), settings),
      (pool) => pool.end(),
    );
  }

  /** The SQL of the server this driver reaches: set from its facts, the first time a table is ensured. */
  get dialect(): SqlDialect {
    return this.#dialect;
  }

  async loadDrivers(): Promise<void> {
    await loadDriver(PACKAGE, "MySQLDestination", INSTALL);
  }

  /**
   * A pooled connection, its session set up the first time the pool hands it out: utf8mb4 and
   * a strict sql_mode (`SESSION_SETUP`). One that cannot be set up is discarded.
   */
  async #connection(): Promise<MySQL.PoolConnection> {
    const pool = await this.#pool.get();
    const connection = await pool.getConnection().catch((error: unknown) => Promise.reject(this.place.fail(error, "connect failed")));
    if (this.#ready.has(connection.connection)) return connection;
    try {
      await connection.query(SESSION_SETUP);
    } catch (error) {
      connection.destroy();
      throw this.place.fail(error, "setting up the session (sql_mode, utf8mb4) failed");
    }
    this.#ready.add(connection.connection);
    return connection;
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const current = this.#conn.getStore();
    const target = current ?? (await this.#connection());
    try {
      // Statements with values are prepared server-side; DDL (no values) goes as plain text.
      const [rows] = params.length > 0 ? await target.execute(sql, params as unknown as string[]) : await target.query(sql);
      return Array.isArray(rows) ? (rows as Row[]) : [];
    } catch (error) {
      throw this.place.fail(error, "query failed");
    } finally {
      if (!current) target.release();
    }
  }

  /** What the server is, asked once per pool; the dialect follows it. */
  #learnServer(): Promise<ServerFacts> {
    this.#facts ??= this.run(SERVER_QUERY).then(
      (rows) => {
        const facts = serverFacts(rows[0] ?? {});
        this.#dialect = mysqlDialect(facts.exactCollation, facts.version);
        return facts;
      },
      (error: unknown) => {
        this.#facts = undefined;
        throw error;
      },
    );
    return this.#facts;
  }

  /** Learns the server first: the types a table is created with depend on it. */
  async prepareSchema(): Promise<void> {
    await this.#learnServer();
  }

  async readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null> {
    const { sql, params } = this.#dialect.columnsQuery(table, dataset);
    const rows = await this.run(sql, params);
    const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
    const catalog = (row: Row): CatalogColumn => ({
      type: String(row["type"]),
      charset: text(row["charset"]),
      collation: text(row["collation"]),
      nullable: row["nullable"] !== "NO",
    });
    this.#catalogColumns.set(JSON.stringify([dataset, table]), new Map(rows.map((row) => [String(row["name"]), catalog(row)])));
    return rows.length === 0 ? null : new Map(rows.map((row) => [String(row["name"]), String(row["type"])]));
  }

  /** Converts exact text an older version created with another collation (see exact-text.ts). */
  alignColumn(dialect: SqlDialect, table: string, dataset: string | null, field: FieldSpec, definition: string): Promise<boolean> {
    const access = {
      run: (sql: string, params?: readonly unknown[]) => this.run(sql, params),
      readColumns: (t: string, d: string | null) => this.readColumns(t, d),
      catalogColumn: (t: string, d: string | null, column: string) => this.#catalogColumns.get(JSON.stringify([d, t]))?.get(column),
    };
    return alignCollation(access, dialect, [table, dataset], field.name, definition);
  }

  load(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void> {
    return insertBatches((sql, params) => this.run(sql, params), multiRowInsert(this.#dialect, table, dataset, fields), fields, data);
  }

  inUnit(): boolean {
    return this.#conn.getStore() !== undefined;
  }

  /**
   * BEGIN ... COMMIT on one pooled connection, which every statement inside `fn` uses, holding
   * the locks of the partitions `scope` replaces (see write-locks.ts). Writes run at READ
   * COMMITTED (ServerFacts.writeIsolation): a delete then takes no gap lock, so writers of
   * neighbouring partitions do not wait on each other, nor deadlock. A transaction the server
   * still rolls back as a deadlock's victim, or after a lock wait timeout, runs again whole
   * (delete, insert, partition table) after a short random pause: nothing of it remains to be undone.
   */
  async transaction<T>(fn: () => Promise<T>, scope: WriteScope | undefined): Promise<T> {
    if (this.#conn.getStore()) return fn();
    const { writeIsolation, database } = await this.#learnServer();
    const connection = await this.#connection();
    const locks = scope ? partitionLocks(scope.dataset ?? database ?? "", scope.table, scope.partitions) : [];
    let reusable = true;
    try {
      return await holdingLocks(
        connection,
        locks,
        scope?.table ?? "",
        () => retryOnLockConflict(() => this.#writeOnce(connection, fn, writeIsolation)),
        () => (reusable = false),
      );
    } catch (error) {
      throw this.place.fail(error, "transaction failed");
    } finally {
      if (reusable) connection.release();
      else connection.destroy();
    }
  }

  /** One attempt of `transaction`: its errors pass through, the transaction rolled back. */
  async #writeOnce<T>(connection: MySQL.PoolConnection, fn: () => Promise<T>, isolation: ServerFacts["writeIsolation"]): Promise<T> {
    try {
      // For this transaction only, whatever the server's default isolation level.
      await connection.query(isolationStatement(isolation));
      await connection.beginTransaction();
      const result = await this.#conn.run(connection, fn);
      await connection.commit();
      return result;
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A read-only REPEATABLE READ transaction on one pooled connection, which every statement
   * inside `fn` uses: its first read of a table takes the snapshot every later read sees. A
   * table created or altered after that snapshot cannot be read in it (ER_TABLE_DEF_CHANGED, as
   * the catalog is not versioned): the read starts over, on a fresh snapshot and catalog.
   */
  async snapshot<T>(fn: () => Promise<T>, forgetCatalog: ForgetCatalog): Promise<T> {
    if (this.#conn.getStore()) return fn();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#readOnce(fn);
      } catch (error) {
        if (attempt >= SNAPSHOT_ATTEMPTS || !isStaleDefinition(error)) throw error;
        forgetCatalog();
      }
    }
  }

  /** One attempt of `snapshot`; `fn`'s errors pass through unchanged. */
  async #readOnce<T>(fn: () => Promise<T>): Promise<T> {
    const connection = await this.#connection();
    const own = (doing: string) => (error: unknown) => Promise.reject(this.place.fail(error, doing));
    try {
      // For this transaction only, whatever the server's default isolation level.
      await connection.query(isolationStatement("REPEATABLE READ")).catch(own("starting a read failed"));
      await connection.query(START_READ).catch(own("starting a read failed"));
      const result = await this.#conn.run(connection, fn);
      await connection.commit().catch(own("ending a read failed"));
      return result;
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw error;
    } finally {
      connection.release();
    }
  }

  /** Ends the pool; the server is asked again on the next use, which may reach another one. */
  close(): Promise<void> {
    this.#facts = undefined;
    return this.#pool.close();
  }
}
