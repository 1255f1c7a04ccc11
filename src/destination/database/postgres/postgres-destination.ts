import type { PartitionFilter } from "../../../partitioning/index.js";
import { AsyncLocalStorage } from "node:async_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type * as Pg from "pg";
import type * as PgCopyStreams from "pg-copy-streams";
import type { Row, TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import { type ConnectionOptions, resolveConnection } from "../connection.js";
import { LazyConnection } from "../lazy-connection.js";
import { loadDriver } from "../optional-driver.js";
import { urlPassword, wrapDriverError } from "../secrets.js";
import { ServerSqlDestination } from "../server-destination.js";
import { createPool } from "./postgres-pool.js";
import { copyChunks } from "./copy-text.js";
import { postgresDialect, postgresWriteLock } from "./postgres-dialect.js";
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

  override async loadDrivers(): Promise<void> {
    // pg-copy-streams is only loaded by the first write: without it, check would pass and materialize fail.
    await loadDriver("pg", "PostgresDestination", INSTALL);
    await loadDriver("pg-copy-streams", "PostgresDestination", INSTALL);
  }

  private pool(): Promise<Pg.Pool> {
    return this.#pool.get();
  }

  /** A client of the pool for one unit of work (a transaction, a snapshot, a COPY outside them); its user releases it. */
  private async checkout(): Promise<Pg.PoolClient> {
    return (await this.pool()).connect().catch((error: unknown) => Promise.reject(this.fail(error, "connect failed")));
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
    const { sql, params } = this.dialect.columnsQuery(table, dataset);
    const rows = await this.run(sql, params);
    return rows.length === 0 ? null : new Map(rows.map((row) => [String(row["column_name"]), String(row["data_type"])]));
  }

  protected async load(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void> {
    const copy = await loadDriver<typeof PgCopyStreams>("pg-copy-streams", "PostgresDestination", INSTALL);
    const names = fields.map((field) => this.dialect.quote(field.name)).join(", ");
    const sql = `COPY ${this.dialect.table(table, dataset)} (${names}) FROM STDIN`;
    const own = this.#client.getStore() ? null : await this.checkout();
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
    if (this.#client.getStore()) await this.run(postgresWriteLock(this.dialect.table(table, dataset)));
    return super.delete(table, dataset, where);
  }

  /** BEGIN ... COMMIT on one pooled client, which every hook inside `fn` uses. */
  override async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#client.getStore()) return fn();
    const client = await this.checkout();
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
    const client = await this.checkout();
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
