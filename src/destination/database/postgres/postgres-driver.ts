import { AsyncLocalStorage } from "node:async_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type * as Pg from "pg";
import type * as PgCopyStreams from "pg-copy-streams";
import type { Row, TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import type { ResolvedConnection } from "../connection.js";
import { LazyConnection } from "../lazy-connection.js";
import { loadDriver } from "../optional-driver.js";
import { ServerConnection } from "../server-connection.js";
import type { ForgetCatalog, SqlDriver } from "../sql-driver.js";
import { copyChunks } from "./copy-text.js";
import { copyFromStdin, POSTGRES_UNITS, postgresDialect } from "./postgres-dialect.js";
import { createPool } from "./postgres-pool.js";

const INSTALL = "npm install pg pg-copy-streams";
const dialect = postgresDialect;

/**
 * PostgreSQL through pg (an optional peer dependency): a pool, opened on first use; rows
 * loaded with COPY FROM STDIN (pg-copy-streams); a transaction or snapshot on one pooled
 * client, which every statement inside it uses.
 */
export class PostgresDriver implements SqlDriver {
  /** The server, as messages and output show it (without its password), and how its errors are worded. */
  readonly place: ServerConnection;
  readonly #pool: LazyConnection<Pg.Pool>;
  readonly #client = new AsyncLocalStorage<Pg.PoolClient>();

  constructor(settings: ResolvedConnection) {
    this.place = new ServerConnection("PostgreSQL", settings);
    this.#pool = new LazyConnection<Pg.Pool>(
      async () => createPool(await loadDriver<typeof Pg>("pg", "PostgresDestination", INSTALL), settings),
      (pool) => pool.end(),
    );
  }

  async loadDrivers(): Promise<void> {
    // pg-copy-streams is only loaded by the first write: without it, check would pass and materialize fail.
    await loadDriver("pg", "PostgresDestination", INSTALL);
    await loadDriver("pg-copy-streams", "PostgresDestination", INSTALL);
  }

  /** A client of the pool for one unit of work (a transaction, a snapshot, a COPY outside them); its user releases it. */
  async #checkout(): Promise<Pg.PoolClient> {
    return (await this.#pool.get()).connect().catch((error: unknown) => Promise.reject(this.place.fail(error, "connect failed")));
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    const target = this.#client.getStore() ?? (await this.#pool.get());
    try {
      return (await target.query(sql, params as unknown[])).rows as Row[];
    } catch (error) {
      throw this.place.fail(error, "query failed");
    }
  }

  async readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null> {
    const { sql, params } = dialect.columnsQuery(table, dataset);
    const rows = await this.run(sql, params);
    return rows.length === 0 ? null : new Map(rows.map((row) => [String(row["column_name"]), String(row["data_type"])]));
  }

  async load(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void> {
    const copy = await loadDriver<typeof PgCopyStreams>("pg-copy-streams", "PostgresDestination", INSTALL);
    const sql = copyFromStdin(
      dialect.table(table, dataset),
      fields.map((field) => dialect.quote(field.name)),
    );
    const own = this.#client.getStore() ? null : await this.#checkout();
    const client = this.#client.getStore() ?? own!;
    let failed = false;
    try {
      await pipeline(Readable.from(copyChunks(fields, data)), client.query(copy.from(sql)));
    } catch (error) {
      failed = true;
      throw this.place.fail(error, `COPY into ${table} failed`);
    } finally {
      // A client whose COPY failed may have lost its connection: the pool makes a new one.
      own?.release(failed);
    }
  }

  inUnit(): boolean {
    return this.#client.getStore() !== undefined;
  }

  /** BEGIN ... COMMIT on one pooled client, which every statement inside `fn` uses. */
  async transaction<T>(fn: () => Promise<T>, _scope: unknown, forgetCatalog: ForgetCatalog): Promise<T> {
    if (this.#client.getStore()) return fn();
    const client = await this.#checkout();
    let broken = false;
    try {
      await client.query(POSTGRES_UNITS.begin);
      const result = await this.#client.run(client, fn);
      await client.query(POSTGRES_UNITS.commit);
      return result;
    } catch (error) {
      await client.query(POSTGRES_UNITS.rollback).catch(() => (broken = true));
      // DDL is transactional here: a rolled-back CREATE must not stay in the cache.
      forgetCatalog();
      throw this.place.fail(error, "transaction failed");
    } finally {
      client.release(broken);
    }
  }

  /** A read-only REPEATABLE READ transaction on one pooled client (see POSTGRES_UNITS). */
  async snapshot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#client.getStore()) return fn();
    const client = await this.#checkout();
    const own = (doing: string) => (error: unknown) => Promise.reject(this.place.fail(error, doing));
    let broken = false;
    try {
      await client.query(POSTGRES_UNITS.beginRead).catch(own("starting a read failed"));
      const result = await this.#client.run(client, fn);
      await client.query(POSTGRES_UNITS.commit).catch(own("ending a read failed"));
      return result;
    } catch (error) {
      await client.query(POSTGRES_UNITS.rollback).catch(() => (broken = true));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
