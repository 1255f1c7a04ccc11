import { AsyncLocalStorage } from "node:async_hooks";
import type * as MySQL from "mysql2/promise";
import type { Row, TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import { type ConnectionOptions, resolveConnection } from "../connection.js";
import { loadDriver } from "../optional-driver.js";
import { urlPassword, wrapDriverError } from "../secrets.js";
import { ServerSqlDestination } from "../server-destination.js";
import { storageKind } from "../sql-dialect.js";
import { mysqlDialect, mysqlLiteral, mysqlValue, SESSION_SETUP } from "./mysql-dialect.js";

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
  protected readonly dialect = mysqlDialect;
  #pool: Promise<MySQL.Pool> | undefined;
  readonly #conn = new AsyncLocalStorage<MySQL.PoolConnection>();
  /** The pool's connections whose session is set up (the driver's own connection objects). */
  readonly #ready = new WeakSet<object>();

  constructor(options: MySQLDestinationOptions = {}) {
    const env = process.env;
    const envUrl = env["DATABASE_URL"]?.startsWith("mysql") ? env["DATABASE_URL"] : undefined;
    super(
      resolveConnection(
        "MySQLDestination",
        options.connection,
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

  private pool(): Promise<MySQL.Pool> {
    this.#pool ??= loadDriver<typeof MySQL>("mysql2/promise", "MySQLDestination", "npm install mysql2").then((mysql) => {
      const { url, host, port, user, password, database } = this.settings;
      const pool = mysql.createPool({
        ...(url ? { uri: url } : { host, port, user, password, database }),
        connectionLimit: 4,
        // A server that does not answer fails the connect after 10 s rather than never; mysql2
        // keeps TCP keepalive on, so one that vanishes while a statement runs is found too. A
        // server that hangs mid-statement is left to --timeout: a statement may rightly run long.
        connectTimeout: 10_000,
        // utf8mb4 from the handshake on (SESSION_SETUP says it again, as a server may ignore it).
        charset: "UTF8MB4_UNICODE_CI",
        // UTC on the wire both ways, DATE as its text: nothing depends on the process's zone.
        timezone: "Z",
        dateStrings: ["DATE"],
        supportBigNumbers: true,
        bigNumberStrings: true,
        // MariaDB's JSON (LONGTEXT) would otherwise come back parsed, and be parsed again.
        jsonStrings: true,
        // JSON as its text: reconcile parses it, and a JSON string "123" stays a string.
        // DATETIME as its text, read as UTC here: mysql2's own parse builds years 0-99 as 1900-1999.
        typeCast: (field, next) => (field.type === "JSON" ? field.string("utf8") : field.type === "DATETIME" ? utcDateTime(field.string("utf8")) : next()),
      });
      // A connection losing its server emits 'error' (after failing the statement in flight,
      // which reports it), and an 'error' event nobody listens to ends the process. mysql2's
      // pool listens once per connection to drop it; this listener stays for any error after.
      pool.on("connection", (connection) => connection.on("error", () => undefined));
      return pool;
    });
    return this.#pool;
  }

  /**
   * A pooled connection, its session set up the first time the pool hands it out: utf8mb4 and
   * a strict sql_mode (`SESSION_SETUP`). One that cannot be set up is discarded.
   */
  private async connection(): Promise<MySQL.PoolConnection> {
    const connection = await (await this.pool()).getConnection().catch((error: unknown) => Promise.reject(this.fail(error, "connect failed")));
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

  protected async readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null> {
    const rows = await this.run(
      "SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
      [dataset, table],
    );
    return rows.length === 0 ? null : new Map(rows.map((row) => [String(row["name"]), String(row["type"])]));
  }

  protected async createDataset(dataset: string | null): Promise<void> {
    if (dataset !== null) await this.run(`CREATE DATABASE IF NOT EXISTS ${this.dialect.quote(dataset)} CHARACTER SET utf8mb4`);
  }

  protected isAlreadyDone(error: unknown): boolean {
    // Duplicate column, duplicate index name, table exists.
    return ["1060", "1061", "1050", "ER_DUP_FIELDNAME", "ER_DUP_KEYNAME", "ER_TABLE_EXISTS_ERROR"].includes(
      (error as { driverCode?: string }).driverCode ?? "",
    );
  }

  protected createIndex(qualified: string, name: string, column: string): string {
    return `CREATE INDEX ${this.dialect.quote(name)} ON ${qualified} (${this.dialect.quote(column)})`;
  }

  protected override describeTable(qualified: string, description: string): string[] {
    return [`ALTER TABLE ${qualified} COMMENT = ${mysqlLiteral(description)}`];
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
      for (let i = start; i < end; i++) for (let j = 0; j < fields.length; j++) values.push(mysqlValue(kinds[j]!, columns[j]![i], fields[j]!.name, i));
      await this.run(head + new Array(end - start).fill(tuple).join(", "), values);
    }
  }

  /** BEGIN ... COMMIT on one pooled connection, which every hook inside `fn` uses. */
  override async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#conn.getStore()) return fn();
    const connection = await this.connection();
    try {
      await connection.beginTransaction();
      const result = await this.#conn.run(connection, fn);
      await connection.commit();
      return result;
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw this.fail(error, "transaction failed");
    } finally {
      connection.release();
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
        const code = (error as { driverCode?: string }).driverCode;
        if (attempt >= SNAPSHOT_ATTEMPTS || (code !== "ER_TABLE_DEF_CHANGED" && code !== "1412")) throw error;
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

  override async close(): Promise<void> {
    const pending = this.#pool;
    this.#pool = undefined;
    if (pending) await (await pending).end();
  }

}

/** A DATETIME's text ("0001-01-01 00:00:00.000", UTC on the wire) as a Date; null stays null. */
function utcDateTime(text: string | null): Date | null {
  return text === null ? null : new Date(`${text.replace(" ", "T")}Z`);
}
