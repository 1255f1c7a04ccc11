import type { PartitionFilter } from "../../../partitioning/index.js";
import { AsyncLocalStorage } from "node:async_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type * as Pg from "pg";
import type * as PgCopyStreams from "pg-copy-streams";
import { type Row, RowsTable, type TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import { type ConnectionOptions, resolveConnection } from "../connection.js";
import { LazyConnection } from "../lazy-connection.js";
import { loadDriver } from "../optional-driver.js";
import { urlPassword, wrapDriverError } from "../secrets.js";
import { ServerSqlDestination } from "../server-destination.js";
import { storageKind } from "../sql-dialect.js";
import { ByteChunks } from "../../byte-chunks.js";
import { createPool } from "./postgres-pool.js";
import { copyFieldWriter, postgresDialect, postgresLiteral } from "./postgres-dialect.js";
import { declareOptions } from "../../options.js";

/** Options of PostgresDestination. */
export interface PostgresDestinationOptions {
  /** A URL or fields; omitted: DATABASE_URL, else the PG* variables as pg reads them. */
  readonly connection?: ConnectionOptions;
}

const INSTALL = "npm install pg pg-copy-streams";

/**
 * Tables in PostgreSQL through pg (an optional peer dependency), bulk loaded with COPY FROM
 * STDIN (pg-copy-streams). The dataset is the schema, created when absent.
 */
export class PostgresDestination extends ServerSqlDestination {
  static override destinationName = "PostgreSQL";
  protected readonly dialect = postgresDialect;
  protected override readonly deferIndexes = true;
  readonly #pool = new LazyConnection<Pg.Pool>(
    async () => createPool(await loadDriver<typeof Pg>("pg", "PostgresDestination", INSTALL), this.settings),
    (pool) => pool.end(),
  );
  readonly #client = new AsyncLocalStorage<Pg.PoolClient>();

  static override readonly options = declareOptions<PostgresDestinationOptions>({ connection: "private" });

  constructor(options: PostgresDestinationOptions = {}) {
    const env = process.env;
    super(options, (connection) =>
      resolveConnection(
        "PostgresDestination",
        connection,
        () => (env["DATABASE_URL"] ? { url: env["DATABASE_URL"] } : {}),
        [env["PGPASSWORD"], urlPassword(env["DATABASE_URL"])],
        { schemes: ["postgres:", "postgresql:", "socket:"], example: "postgres://user:password@host:5432/database", socketPath: true },
      ),
    );
  }

  private pool(): Promise<Pg.Pool> {
    return this.#pool.get();
  }

  private fail(error: unknown, doing: string): Error {
    return wrapDriverError(error, this.settings.redact, `PostgreSQL ${doing}`);
  }

  protected async run(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const target = this.#client.getStore() ?? (await this.pool());
    try {
      return (await target.query(sql, params as unknown[])).rows as Row[];
    } catch (error) {
      throw this.fail(error, "query failed");
    }
  }

  protected async readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null> {
    const rows = await this.run(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
      [dataset ?? "public", table],
    );
    return rows.length === 0 ? null : new Map(rows.map((row) => [String(row["column_name"]), String(row["data_type"])]));
  }

  protected async createDataset(dataset: string | null): Promise<void> {
    if (dataset !== null)
      await this.run(`CREATE SCHEMA IF NOT EXISTS ${this.dialect.quote(dataset)}`).catch((error: unknown) => {
        if (!this.isAlreadyDone(error)) throw error;
      });
  }

  protected isAlreadyDone(error: unknown): boolean {
    // Duplicate table, schema, column, or a catalog row another session inserted first.
    return ["42P07", "42P06", "42701", "23505"].includes((error as { driverCode?: string }).driverCode ?? "");
  }

  protected createIndex(qualified: string, name: string, expression: string): string {
    return `CREATE INDEX IF NOT EXISTS ${this.dialect.quote(name)} ON ${qualified} (${expression})`;
  }

  protected override describeTable(qualified: string, description: string): string[] {
    return [`COMMENT ON TABLE ${qualified} IS ${postgresLiteral(description)}`];
  }

  protected async load(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void> {
    const copy = await loadDriver<typeof PgCopyStreams>("pg-copy-streams", "PostgresDestination", INSTALL);
    const names = fields.map((field) => this.dialect.quote(field.name)).join(", ");
    const sql = `COPY ${this.dialect.table(table, dataset)} (${names}) FROM STDIN`;
    const own = this.#client.getStore()
      ? null
      : await (await this.pool()).connect().catch((error: unknown) => Promise.reject(this.fail(error, "connect failed")));
    const client = this.#client.getStore() ?? own!;
    let failed = false;
    try {
      await pipeline(Readable.from(copyChunks(fields, data)), client.query(copy.from(sql)));
    } catch (error) {
      failed = true;
      throw this.fail(error, `COPY into ${table} failed`);
    } finally {
      // A client whose COPY failed may have lost its connection: the pool makes a new one.
      own?.release(failed);
    }
  }

  /**
   * Inside a write's transaction, first locks the table against other writers (readers still
   * read): two concurrent delete-then-insert of one partition would otherwise both commit, and
   * the partition would hold both writers' rows.
   */
  override async delete(table: string, dataset: string | null, where: PartitionFilter | null): Promise<void> {
    if (this.#client.getStore()) await this.run(`LOCK TABLE ${this.dialect.table(table, dataset)} IN SHARE ROW EXCLUSIVE MODE`);
    return super.delete(table, dataset, where);
  }

  /** BEGIN ... COMMIT on one pooled client, which every hook inside `fn` uses. */
  override async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#client.getStore()) return fn();
    const client = await (await this.pool()).connect().catch((error: unknown) => Promise.reject(this.fail(error, "connect failed")));
    let broken = false;
    try {
      await client.query("BEGIN");
      const result = await this.#client.run(client, fn);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => (broken = true));
      // DDL is transactional here: a rolled-back CREATE must not stay in the cache.
      this.forgetCatalog();
      throw this.fail(error, "transaction failed");
    } finally {
      client.release(broken);
    }
  }

  /**
   * A read-only REPEATABLE READ transaction on one pooled client, which every hook inside `fn`
   * uses: its first statement takes the snapshot every later one reads. It takes no lock a
   * writer waits for, and a read-only transaction never fails to serialize.
   */
  override async snapshot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#client.getStore()) return fn();
    const client = await (await this.pool()).connect().catch((error: unknown) => Promise.reject(this.fail(error, "connect failed")));
    let broken = false;
    try {
      await client
        .query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        .catch((error: unknown) => Promise.reject(this.fail(error, "starting a read failed")));
      const result = await this.#client.run(client, fn);
      await client.query("COMMIT").catch((error: unknown) => Promise.reject(this.fail(error, "ending a read failed")));
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => (broken = true));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  override close(): Promise<void> {
    return this.#pool.close();
  }
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const NULL_FIELD = "\\N";
// A column's distinct date and instant strings keep their checked text up to this many; past
// it, new values are checked each time (a column of unique instants gains nothing from a memo).
const MEMO_LIMIT = 4096;

/** COPY text bytes, with the common string field (ASCII) escaped as it is copied. */
class CopyBytes extends ByteChunks {
  /**
   * Appends ASCII text as a COPY field, its backslashes, tabs and line breaks escaped; false,
   * having appended nothing, for text with any other character (the caller writes it through
   * its column's writer, which checks it is well-formed and lets Buffer encode it). One pass
   * over the characters instead of a regular expression's test and then the copy.
   */
  appendAscii(text: string): boolean {
    const length = text.length;
    // At most 2 bytes per character (an escape).
    this.reserve(length * 2);
    const buffer = this.buffer;
    let at = this.at;
    for (let k = 0; k < length; k++) {
      const code = text.charCodeAt(k);
      if (code >= 0x80) return false;
      if (code === BACKSLASH || code === LF || code === CR || code === TAB) {
        buffer[at++] = BACKSLASH;
        buffer[at++] = code === BACKSLASH ? BACKSLASH : code === LF ? 0x6e : code === CR ? 0x72 : 0x74;
      } else buffer[at++] = code;
    }
    this.at = at;
    return true;
  }
}

/** A row's own value of a column, null when absent (as RowsTable.values reads it). */
function ownValue(row: Row, name: string, inherited: boolean): unknown {
  return inherited && !Object.hasOwn(row, name) ? null : row[name];
}

/**
 * The rows as COPY text, encoded straight into chunks of bytes (see ByteChunks): numbers by
 * their digits, ASCII strings escaped as they are copied, every other value by its column's
 * writer, null as \N. An array of rows is read row by row: a column array per field (four
 * arrays of a million values for a million rows) cost more than the encoding of the numbers.
 */
export function* copyChunks(fields: readonly FieldSpec[], data: TableData): Generator<Uint8Array> {
  const kinds = fields.map((field) => storageKind(field));
  const writers = fields.map((field, j) => copyFieldWriter(kinds[j]!, field.name));
  const numeric = kinds.map((kind) => kind === "integer" || kind === "number");
  const strings = kinds.map((kind) => kind === "string");
  // Date and instant strings repeat (a partition column holds a few), and their check parses
  // the year: each distinct one is checked once.
  const memos = kinds.map((kind) => (kind === "date" || kind === "instant" ? new Map<string, string>() : null));
  const names = fields.map((field) => field.name);
  const inherited = names.map((name) => name in Object.prototype);
  const rows = data instanceof RowsTable ? data.rows : null;
  const columns = rows ? [] : names.map((name) => data.values(name));
  const width = fields.length;
  const out = new CopyBytes();
  for (let i = 0; i < data.length; i++) {
    const row = rows?.[i];
    for (let j = 0; j < width; j++) {
      if (j > 0) out.appendByte(TAB);
      const value = row ? ownValue(row, names[j]!, inherited[j]!) : columns[j]![i];
      if (value === null || value === undefined) out.appendText(NULL_FIELD);
      else if (numeric[j] && typeof value === "number") out.appendNumber(value);
      else if (strings[j] && typeof value === "string" && out.appendAscii(value)) continue;
      else if (memos[j] && typeof value === "string") {
        const memo = memos[j]!;
        let text = memo.get(value);
        if (text === undefined) {
          text = writers[j]!(value, i);
          if (memo.size < MEMO_LIMIT) memo.set(value, text);
        }
        out.appendText(text);
      } else out.appendText(writers[j]!(value, i));
    }
    out.appendByte(LF);
    if (out.hasFullChunks) yield* out.takeFullChunks();
  }
  yield* out.finish();
}
