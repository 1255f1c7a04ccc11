import { AsyncLocalStorage } from "node:async_hooks";
import type * as MySQL from "mysql2/promise";
import type { Row, TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import type { IOContext } from "../../io-context.js";
import { type ConnectionOptions, resolveConnection } from "../connection.js";
import type { WriteScope } from "../database-destination.js";
import { LazyConnection } from "../lazy-connection.js";
import { loadDriver } from "../optional-driver.js";
import { LEDGER_ENTRY, LEDGER_TABLE } from "../partition-table.js";
import { urlPassword, wrapDriverError } from "../secrets.js";
import { ServerSqlDestination } from "../server-destination.js";
import { type SqlDialect, storageKind } from "../sql-dialect.js";
import { type CatalogColumn, collisionError, collisionGroups, collisionQuery, convertStatement, wantedCollation } from "./exact-text.js";
import { isStaleDefinition, mysqlDialect, SESSION_SETUP } from "./mysql-dialect.js";
import { mysqlValue } from "./mysql-values.js";
import { createPool } from "./mysql-pool.js";
import { SERVER_QUERY, type ServerFacts, serverFacts } from "./mysql-server.js";
import { holdingLocks, partitionLocks, retryOnLockConflict } from "./write-locks.js";
import { declareOptions } from "../../options.js";

/** Options of MySQLDestination. */
export interface MySQLDestinationOptions {
  /** A URL or fields; omitted: a mysql:// DATABASE_URL, else MYSQL_HOST/PORT/USER/PASSWORD/DATABASE. */
  readonly connection?: ConnectionOptions;
}

/** Rows per INSERT at most; fewer for wide tables, so a statement stays far below 65,535 placeholders. */
const MAX_BATCH_ROWS = 1000;
const MAX_PLACEHOLDERS = 60_000;
/** Fresh snapshots a read takes at most while tables it reads are being created or altered. */
const SNAPSHOT_ATTEMPTS = 5;
/**
 * Tables in MySQL or MariaDB through mysql2 (an optional peer dependency), loaded with batched
 * multi-row INSERTs of bound values. The dataset is the database, created when absent. Every
 * connection it uses talks utf8mb4 and runs in strict mode (`SESSION_SETUP`), whatever the
 * server's defaults, so a value a column cannot hold is an error, never truncated or mangled.
 */
export class MySQLDestination extends ServerSqlDestination {
  static override destinationName = "MySQL";
  /** Set from the server's facts, the first time a table is ensured. */
  protected dialect: SqlDialect = mysqlDialect(null);
  readonly #pool = new LazyConnection<MySQL.Pool>(
    async () => createPool(await loadDriver<typeof MySQL>("mysql2/promise", "MySQLDestination", "npm install mysql2"), this.settings),
    (pool) => pool.end(),
  );
  #server: Promise<ServerFacts> | undefined;
  /** What the catalog last said of each table's columns, beyond their type ([dataset, table] as JSON). */
  readonly #catalogColumns = new Map<string, Map<string, CatalogColumn>>();
  readonly #conn = new AsyncLocalStorage<MySQL.PoolConnection>();
  /** The pool's connections whose session is set up (the driver's own connection objects). */
  readonly #ready = new WeakSet<object>();

  static override readonly options = declareOptions<MySQLDestinationOptions>({ connection: "private" });

  constructor(options: MySQLDestinationOptions = {}) {
    const env = process.env;
    const envUrl = env["DATABASE_URL"]?.startsWith("mysql") ? env["DATABASE_URL"] : undefined;
    super(options, (connection) =>
      resolveConnection(
        "MySQLDestination",
        connection,
        () =>
          envUrl
            ? { url: envUrl }
            : {
                host: env["MYSQL_HOST"] ?? "localhost",
                port: env["MYSQL_PORT"] ? Number(env["MYSQL_PORT"]) : 3306,
                user: env["MYSQL_USER"] ?? "root",
                password: env["MYSQL_PASSWORD"],
                database: env["MYSQL_DATABASE"],
              },
        [env["MYSQL_PASSWORD"], urlPassword(envUrl)],
        { schemes: ["mysql:", "mariadb:"], example: "mysql://user:password@host:3306/database", decodesUserinfo: true },
      ),
    );
  }

  override async loadDrivers(): Promise<void> {
    await loadDriver("mysql2/promise", "MySQLDestination", "npm install mysql2");
  }

  /**
   * A pooled connection, its session set up the first time the pool hands it out: utf8mb4 and
   * a strict sql_mode (`SESSION_SETUP`). One that cannot be set up is discarded.
   */
  private async connection(): Promise<MySQL.PoolConnection> {
    const connection = await (
      await this.#pool.get()
    )
      .getConnection()
      .catch((error: unknown) => Promise.reject(this.fail(error, "connect failed")));
    if (this.#ready.has(connection.connection)) return connection;
    try {
      await connection.query(SESSION_SETUP);
    } catch (error) {
      connection.destroy();
      throw this.fail(error, "setting up the session (sql_mode, utf8mb4) failed");
    }
    this.#ready.add(connection.connection);
    return connection;
  }

  private fail(error: unknown, doing: string): Error {
    return wrapDriverError(error, this.settings.redact, `MySQL ${doing}`);
  }

  protected async run(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const current = this.#conn.getStore();
    const target = current ?? (await this.connection());
    try {
      // Statements with values are prepared server-side; DDL (no values) goes as plain text.
      const [rows] = params.length > 0 ? await target.execute(sql, params as unknown as string[]) : await target.query(sql);
      return Array.isArray(rows) ? (rows as Row[]) : [];
    } catch (error) {
      throw this.fail(error, "query failed");
    } finally {
      if (!current) target.release();
    }
  }

  /** What the server is, asked once per pool; the dialect follows it. */
  private server(): Promise<ServerFacts> {
    this.#server ??= this.run(SERVER_QUERY).then(
      (rows) => {
        const facts = serverFacts(rows[0] ?? {});
        this.dialect = mysqlDialect(facts.exactCollation, facts.version);
        return facts;
      },
      (error: unknown) => {
        this.#server = undefined;
        throw error;
      },
    );
    return this.#server;
  }

  protected async readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null> {
    const { sql, params } = this.dialect.columnsQuery(table, dataset);
    const rows = await this.run(sql, params);
    const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
    this.#catalogColumns.set(
      JSON.stringify([dataset, table]),
      new Map(
        rows.map((row) => [
          String(row["name"]),
          {
            type: String(row["type"]),
            charset: text(row["charset"]),
            collation: text(row["collation"]),
            nullable: row["nullable"] !== "NO",
          },
        ]),
      ),
    );
    return rows.length === 0 ? null : new Map(rows.map((row) => [String(row["name"]), String(row["type"])]));
  }

  /** Learns the server first: the types a table is created with depend on it. */
  protected override async ensureTable(table: string, dataset: string | null, context: IOContext): Promise<void> {
    await this.server();
    await super.ensureTable(table, dataset, context);
  }

  /**
   * Converts exact text that an older version created with another collation, after checking
   * that nothing stored depends on the old one (see exact-text.ts for why this is safe, and
   * when the write refuses instead).
   */
  protected override async alignColumn(table: string, dataset: string | null, field: FieldSpec, definition: string): Promise<boolean> {
    const collation = wantedCollation(definition);
    const catalog = this.#catalogColumns.get(JSON.stringify([dataset, table]))?.get(field.name);
    if (collation === null || !catalog || catalog.collation === null || catalog.collation === collation) return false;
    const qualified = this.dialect.table(table, dataset);
    const column = this.dialect.quote(field.name);
    const convert = convertStatement(qualified, column, catalog, collation);
    if (table !== LEDGER_TABLE) {
      const ledger = (await this.readColumns(LEDGER_TABLE, dataset))?.has(LEDGER_ENTRY)
        ? { qualified: this.dialect.table(LEDGER_TABLE, dataset), entry: this.dialect.quote(LEDGER_ENTRY) }
        : null;
      const groups = collisionGroups(await this.run(collisionQuery(qualified, column, catalog, ledger), ledger ? [table] : []));
      if (groups.length > 0) throw collisionError(dataset === null ? table : `${dataset}.${table}`, field.name, catalog, groups, convert);
    }
    await this.run(convert);
    return true;
  }

  protected async load(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void> {
    const kinds = fields.map(storageKind);
    const columns = fields.map((field) => data.values(field.name));
    const names = fields.map((field) => this.dialect.quote(field.name)).join(", ");
    const tuple = `(${fields.map(() => "?").join(", ")})`;
    const batch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(MAX_PLACEHOLDERS / fields.length)));
    const head = `INSERT INTO ${this.dialect.table(table, dataset)} (${names}) VALUES `;
    for (let start = 0; start < data.length; start += batch) {
      const end = Math.min(data.length, start + batch);
      const values: unknown[] = [];
      for (let i = start; i < end; i++)
        for (let j = 0; j < fields.length; j++) values.push(mysqlValue(kinds[j]!, columns[j]![i], fields[j]!.name, i));
      await this.run(head + new Array(end - start).fill(tuple).join(", "), values);
    }
  }

  /**
   * BEGIN ... COMMIT on one pooled connection, which every hook inside `fn` uses, holding the
   * locks of the partitions `scope` replaces (see write-locks.ts). Writes run at READ
   * COMMITTED (ServerFacts.writeIsolation): a delete then takes no gap lock, so writers of
   * neighbouring partitions do not wait on each other, nor deadlock. A transaction the server
   * still rolls back as a deadlock's victim, or after a lock wait timeout, runs again whole
   * (delete, insert, ledger) after a short random pause: nothing of it remains to be undone.
   */
  override async transaction<T>(fn: () => Promise<T>, scope?: WriteScope): Promise<T> {
    if (this.#conn.getStore()) return fn();
    const { writeIsolation, database } = await this.server();
    const connection = await this.connection();
    const locks = scope ? partitionLocks(scope.dataset ?? database ?? "", scope.table, scope.partitions) : [];
    let reusable = true;
    try {
      return await holdingLocks(
        connection,
        locks,
        scope?.table ?? "",
        () => retryOnLockConflict(() => this.writeOnce(connection, fn, writeIsolation)),
        () => (reusable = false),
      );
    } catch (error) {
      throw this.fail(error, "transaction failed");
    } finally {
      if (reusable) connection.release();
      else connection.destroy();
    }
  }

  /** One attempt of `transaction`: its errors pass through, the transaction rolled back. */
  private async writeOnce<T>(connection: MySQL.PoolConnection, fn: () => Promise<T>, isolation: ServerFacts["writeIsolation"]): Promise<T> {
    try {
      // For this transaction only, whatever the server's default isolation level.
      await connection.query(`SET TRANSACTION ISOLATION LEVEL ${isolation}`);
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
   * A read-only REPEATABLE READ transaction on one pooled connection, which every hook inside
   * `fn` uses: its first read of a table takes the snapshot every later read sees. A table
   * created or altered after that snapshot cannot be read in it (ER_TABLE_DEF_CHANGED, as the
   * catalog is not versioned): the read starts over, on a fresh snapshot and catalog.
   */
  override async snapshot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#conn.getStore()) return fn();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.readOnce(fn);
      } catch (error) {
        if (attempt >= SNAPSHOT_ATTEMPTS || !isStaleDefinition(error)) throw error;
        this.forgetCatalog();
      }
    }
  }

  /** One attempt of `snapshot`; `fn`'s errors pass through unchanged. */
  private async readOnce<T>(fn: () => Promise<T>): Promise<T> {
    const connection = await this.connection();
    const own = (doing: string) => (error: unknown) => Promise.reject(this.fail(error, doing));
    try {
      // For this transaction only, whatever the server's default isolation level.
      await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ").catch(own("starting a read failed"));
      await connection.query("START TRANSACTION READ ONLY").catch(own("starting a read failed"));
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
  override close(): Promise<void> {
    this.#server = undefined;
    return this.#pool.close();
  }
}
