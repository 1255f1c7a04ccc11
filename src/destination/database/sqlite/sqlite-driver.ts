import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { ConfigError, SchemaError } from "../../../errors.js";
import type { Row, TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import { LazyConnection } from "../lazy-connection.js";
import { loadDriver } from "../optional-driver.js";
import { PARTITION_TABLE } from "../partition-table.js";
import { HISTORY_TABLE } from "../provenance-statements.js";
import { wrapDriverError } from "../secrets.js";
import type { DatabasePlace, ForgetCatalog, SqlDriver } from "../sql-driver.js";
import { multiRowInsert } from "../sql-statements.js";
import { isReadStatement, SQLITE_STATEMENTS, sqliteDialect, sqliteTableName } from "./sqlite-dialect.js";
import { insertRows } from "./sqlite-load.js";
import { afterOtherWrites } from "./write-turns.js";

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;
type DatabaseConstructor = new (path: string) => Database;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const noRedaction = (text: string) => text;
/** Prepared statements kept per connection: more than one backfill's tables send. */
const PREPARED_LIMIT = 256;
const dialect = sqliteDialect;

/**
 * An embedded SQLite database through better-sqlite3 (an optional peer dependency): one
 * connection, opened on first use, which one transaction, snapshot or statement uses at a time;
 * rows loaded with multi-row INSERTs of prepared statements.
 */
export class SqliteDriver implements SqlDriver {
  readonly #db = new LazyConnection<Database>(
    () => this.#open(),
    (db) => void db.close(),
  );
  /** Statements prepared on the connection, by their text: a backfill sends the same few for every partition. */
  readonly #prepared = new Map<string, Statement>();
  #queue: Promise<unknown> = Promise.resolve();
  /** The catalog's rows per table name, with the schema cookie they were read at (see catalogRows). */
  readonly #catalogRead = new Map<string, { version: unknown; rows: Row[] }>();
  /** Set inside `exclusive`: this async context owns the connection (a transaction, a snapshot, a statement). */
  readonly #inTransaction = new AsyncLocalStorage<boolean>();

  /** The file (where `file()` says, resolved when asked), shown by its path as given. */
  readonly place: DatabasePlace;

  /** `path` is the option as given (for messages); `file()` the file it opens (see SQLiteDestination.file). */
  constructor(
    private readonly path: string,
    private readonly file: () => string,
  ) {
    this.place = {
      get location() {
        return file();
      },
      shown: () => ({ path }),
      inspect: () => `{ path: ${JSON.stringify(path)} }`,
    };
  }

  async loadDrivers(): Promise<void> {
    await loadDriver("better-sqlite3", "SQLiteDestination");
  }

  /**
   * The connection, opened in WAL mode (kept in the file): a reader's snapshot then never blocks
   * a writer's commit nor waits for it. In the default rollback journal, a read transaction held
   * across awaits would leave a writer on another connection of this process spinning in its
   * busy handler, the event loop blocked, until "database is locked".
   */
  async #open(): Promise<Database> {
    const Driver = await loadDriver<DatabaseConstructor>("better-sqlite3", "SQLiteDestination");
    const file = this.file();
    // better-sqlite3's own refusal names neither the path nor the folder.
    if (file !== ":memory:" && file !== "" && !existsSync(dirname(file)))
      throw new ConfigError(`cannot open the SQLite database ${JSON.stringify(this.path)}: its folder ${dirname(file)} does not exist`);
    const db = new Driver(file);
    try {
      // A private database (":memory:", "") stays in its "memory" or "delete" mode.
      db.pragma(SQLITE_STATEMENTS.walMode);
    } catch (error) {
      db.close();
      throw wrapDriverError(error, noRedaction, `SQLite ${this.path}: setting WAL mode`);
    }
    return db;
  }

  /**
   * Runs `fn` with the single connection to itself. One transaction or snapshot at a time, and a
   * statement outside any waits for the open one to end rather than land inside it; calls from
   * within `fn` run at once.
   */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#inTransaction.getStore()) return fn();
    const body = () => this.#inTransaction.run(true, fn);
    const next = this.#queue.then(body, body);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Runs `fn`, a write, once the writes other destinations of this process queued on the file
   * before it are done. Inside this driver's own transaction it runs at once (it holds the turn).
   */
  #writeTurn<T>(fn: () => Promise<T>): Promise<T> {
    // A private database (":memory:") is this connection's alone.
    if (this.#inTransaction.getStore() || this.path === ":memory:") return fn();
    return afterOtherWrites(resolve(this.path), fn);
  }

  run(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const statement = () => this.#exclusive(() => this.#statement(sql, params));
    return isReadStatement(sql) ? statement() : this.#writeTurn(statement);
  }

  async #statement(sql: string, params: readonly unknown[]): Promise<Row[]> {
    const db = await this.#db.get();
    try {
      const statement = this.#prepare(db, sql);
      if (!statement.reader) {
        statement.run(...params);
        return [];
      }
      // Integers past 2^53 must come back whole; safe ones as plain numbers.
      const rows = statement.safeIntegers(true).all(...params) as Row[];
      for (const row of rows) {
        for (const key in row) {
          const value = row[key];
          if (typeof value === "bigint" && value <= MAX_SAFE && value >= -MAX_SAFE) row[key] = Number(value);
        }
      }
      return rows;
    } catch (error) {
      throw wrapDriverError(error, noRedaction, `SQLite ${this.path}`);
    }
  }

  /**
   * The columns of the table stored under this name. SQLite finds a table by its name in any
   * case (ASCII), so the name it stores is compared exactly: a table of another asset whose name
   * differs only in case is refused, never written, read or counted as this one. Datasets that
   * differ only in case share their partition table and history (entries name their table, and
   * those cannot clash).
   */
  async readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null> {
    const name = sqliteTableName(table, dataset);
    const rows = await this.#exclusive(() => this.#catalogRows(name, dialect.columnsQuery(table, dataset)));
    if (rows.length === 0) return null;
    const stored = String(rows[0]!["stored"]);
    const sharedPartitionTable = (table === PARTITION_TABLE || table === HISTORY_TABLE) && stored.endsWith(`.${table}`);
    if (stored !== name && !sharedPartitionTable) {
      throw new SchemaError(
        `SQLite ${this.path}: table "${name}" would be the existing table "${stored}": SQLite table names ignore case, so the two cannot be told apart; give one of the assets a distinct table (set \`table\`) or dataset`,
      );
    }
    return new Map(rows.map((row) => [String(row["name"]), String(row["type"])]));
  }

  /**
   * The catalog's rows for a table name: asked again only when the schema changed since they
   * were read. A write asks for its table's columns and the partition table's several times (about 0.1 ms
   * each, the catalog query); the schema cookie costs one read of the file's header. SQLite
   * changes the cookie with every change to the schema, by any connection, so an unchanged
   * cookie means unchanged columns. The cookie is read first: a change landing between the two
   * reads leaves rows newer than their cookie, read again next time, never older.
   */
  async #catalogRows(name: string, query: { sql: string; params: readonly unknown[] }): Promise<Row[]> {
    const db = await this.#db.get();
    let version: unknown;
    try {
      version = this.#prepare(db, SQLITE_STATEMENTS.schemaVersion).pluck().get();
    } catch (error) {
      throw wrapDriverError(error, noRedaction, `SQLite ${this.path}`);
    }
    const known = this.#catalogRead.get(name);
    if (known && known.version === version) return known.rows;
    const rows = await this.#statement(query.sql, query.params);
    this.#catalogRead.set(name, { version, rows });
    return rows;
  }

  load(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void> {
    return this.#writeTurn(() => this.#exclusive(() => this.#insertRows(table, dataset, fields, data)));
  }

  async #insertRows(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void> {
    const db = await this.#db.get();
    const insertOf = multiRowInsert(dialect, table, dataset, fields);
    try {
      // Outside a transaction, one is still wanted: SQLite commits each statement otherwise.
      const insertAll = () => insertRows((sql) => this.#prepare(db, sql), insertOf, fields, data);
      if (db.inTransaction) insertAll();
      else db.transaction(insertAll)();
    } catch (error) {
      throw wrapDriverError(error, noRedaction, `SQLite ${this.path}: inserting into ${table}`);
    }
  }

  inUnit(): boolean {
    return this.#inTransaction.getStore() === true;
  }

  /**
   * One delete-then-insert at a time on the single connection, rolled back on failure. The
   * rolled-back DDL's schema cookie is free again, and another connection's next change could
   * bring the schema back to it: what the catalog said is forgotten.
   */
  transaction<T>(fn: () => Promise<T>, _scope: unknown, forgetCatalog: ForgetCatalog): Promise<T> {
    return this.#writeTurn(() =>
      this.#within(SQLITE_STATEMENTS.beginWrite, fn, () => {
        this.#catalogRead.clear();
        forgetCatalog();
      }),
    );
  }

  /**
   * A read transaction: its first statement fixes what every later one sees. In WAL mode it
   * neither waits for a writer on another connection nor holds one up.
   */
  snapshot<T>(fn: () => Promise<T>): Promise<T> {
    return this.#within(SQLITE_STATEMENTS.beginRead, fn);
  }

  /** Runs `fn` between `begin` and COMMIT on the connection to itself; ROLLBACK (then `rolledBack`) if it fails. */
  async #within<T>(begin: string, fn: () => Promise<T>, rolledBack?: () => void): Promise<T> {
    if (this.#inTransaction.getStore()) return fn();
    const db = await this.#db.get();
    return this.#exclusive(async () => {
      db.exec(begin);
      try {
        const result = await fn();
        db.exec(SQLITE_STATEMENTS.commit);
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec(SQLITE_STATEMENTS.rollback);
        rolledBack?.();
        throw error;
      }
    });
  }

  /** The statement of this text, prepared once per connection (the oldest forgotten past PREPARED_LIMIT). */
  #prepare(db: Database, sql: string): Statement {
    let statement = this.#prepared.get(sql);
    if (statement) return statement;
    statement = db.prepare(sql);
    if (this.#prepared.size >= PREPARED_LIMIT) this.#prepared.delete(this.#prepared.keys().next().value!);
    this.#prepared.set(sql, statement);
    return statement;
  }

  async close(): Promise<void> {
    this.#prepared.clear();
    this.#catalogRead.clear();
    await this.#db.close();
  }
}
