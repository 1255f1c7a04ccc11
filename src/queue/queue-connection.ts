import type * as Pg from "pg";
import type PgBoss from "pg-boss";
import { loadDriver } from "../destination/database/optional-driver.js";
import { ConfigError } from "../errors.js";
import { noQueueError, queueServerError } from "./queue-errors.js";

export { QueueServerError, queueServerError } from "./queue-errors.js";

// The queue lives in PostgreSQL: pg-boss's tables (its own schema) hold the jobs, ours (another
// schema) hold each backfill's slots and the edges between them. One pool serves both, so that
// a job's completion and the release of the jobs waiting on it commit in one transaction.

/** Where the queue is. */
export interface QueueSettings {
  /** postgres://user:password@host:5432/database */
  readonly url: string;
  /** The schema of our tables (default "interloper_queue"); pg-boss's is this name plus "_boss". */
  readonly schema?: string;
}

/** How a connection runs pg-boss. */
export interface ConnectionOptions {
  /** Whether this process expires and archives jobs (a worker does; enqueuing does not). */
  readonly supervise?: boolean;
  /** How often supervision runs, in seconds (pg-boss's default is 120). */
  readonly maintenanceIntervalSeconds?: number;
  /**
   * Only a queue that exists (a command that reads or acts on backfills): when the schema holds
   * none, ConfigError, and nothing is created.
   */
  readonly existing?: boolean;
}

/** The one queue name every backfill's jobs use. */
export const QUEUE_NAME = "interloper";
const DEFAULT_SCHEMA = "interloper_queue";
const INSTALL = "npm install pg pg-boss@10";

/** A function that runs SQL: pg-boss's `db` option, and ours. */
export interface Sql {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** An open queue: pg-boss started on our pool, and the names of both schemas. */
export class QueueConnection {
  /** The last error a statement met, kept because pg-boss's fetch swallows them. */
  lastError: Error | null = null;
  readonly queueName: string = QUEUE_NAME;

  private constructor(
    readonly boss: PgBoss,
    private readonly pool: Pg.Pool,
    readonly schema: string,
    readonly bossSchema: string,
    /** host:port of the server, for messages. */
    readonly server: string,
  ) {}

  /** Connects, installs pg-boss's schema if needed and creates the queue. */
  static async open(settings: QueueSettings, options: ConnectionOptions = {}): Promise<QueueConnection> {
    const { url, schema } = parseQueueUrl(settings.url, settings.schema);
    const pg = await loadDriver<typeof Pg>("pg", "a work queue (--queue)", INSTALL);
    const PgBossClass = await loadDriver<typeof PgBoss>("pg-boss", "a work queue (--queue)", INSTALL);
    const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000, keepAlive: true });
    const parsed = new URL(url);
    const server = `${parsed.hostname}:${parsed.port || "5432"}`;
    const box: { connection?: QueueConnection } = {};
    // An idle client's error (the server went away) must not crash the process: the next
    // statement meets it and the worker decides.
    pool.on("error", (error) => {
      if (box.connection) box.connection.lastError = error;
    });
    const db: Sql = {
      executeSql: async (text, values) => {
        try {
          return await pool.query(text, values);
        } catch (error) {
          if (box.connection) box.connection.lastError = error as Error;
          throw error;
        }
      },
    };
    const boss = new PgBossClass({
      db,
      schema: `${schema}_boss`,
      schedule: false,
      supervise: options.supervise ?? false,
      migrate: true,
      ...(options.maintenanceIntervalSeconds ? { maintenanceIntervalSeconds: options.maintenanceIntervalSeconds } : {}),
    });
    const connection = new QueueConnection(boss, pool, schema, `${schema}_boss`, server);
    box.connection = connection;
    boss.on("error", (error) => (connection.lastError = error));
    try {
      if (options.existing && !(await queueExists(pool, schema))) throw noQueueError(server, schema);
      await boss.start();
      if (!(await boss.getQueue(QUEUE_NAME)))
        await boss.createQueue(QUEUE_NAME).catch(async (error: unknown) => {
          // Two processes creating it at once: the other one won.
          if (!(await boss.getQueue(QUEUE_NAME))) throw error;
        });
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw queueServerError(server, error);
    }
    return connection;
  }

  /** Runs SQL on the pool. */
  async query<T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(text, values)).rows as T[];
  }

  /** Runs `work` in one transaction; `sql` runs statements (ours and pg-boss's, as `{ db: sql }`) inside it. */
  async transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    // A connection lost between two statements is reported as an 'error' event of the checked-out
    // client, which nothing else listens to (the pool only watches idle clients): unheard, it
    // would end the process. The next statement fails, and the caller decides.
    const onLost = (error: Error) => {
      broken = true;
      this.lastError = error;
    };
    client.on("error", onLost);
    try {
      await client.query("BEGIN");
      const result = await work({ executeSql: (text, values) => client.query(text, values) });
      await client.query("COMMIT");
      return result;
    } catch (error) {
      broken = await client.query("ROLLBACK").then(
        () => false,
        () => true,
      );
      throw error;
    } finally {
      client.off("error", onLost);
      client.release(broken);
    }
  }

  /** Stops pg-boss (no job is failed: this process fetches its own) and closes the pool. */
  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, close: false, wait: true }).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}

/** The URL without our `schema` parameter, and the schema it names (else the given one, else the default). */
export function parseQueueUrl(url: string, schema?: string): { url: string; schema: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`the queue URL ${JSON.stringify(url)} is not a URL: expected postgres://user:password@host:5432/database`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:")
    throw new ConfigError(`the queue URL must start with postgres://, got ${parsed.protocol}//…`);
  const named = parsed.searchParams.get("schema");
  parsed.searchParams.delete("schema");
  const chosen = named ?? schema ?? DEFAULT_SCHEMA;
  if (!/^[a-z_][a-z0-9_]{0,50}$/.test(chosen))
    throw new ConfigError(`the queue schema must be a lower-case SQL name (letters, digits, _), got ${JSON.stringify(chosen)}`);
  return { url: parsed.toString(), schema: chosen };
}

/** Whether the schema holds a queue: our backfill table and pg-boss's version table. */
async function queueExists(pool: Pg.Pool, schema: string): Promise<boolean> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM information_schema.tables
     WHERE (table_schema, table_name) IN (($1, 'backfill'), ($2, 'version'))`,
    [schema, `${schema}_boss`],
  );
  return rows[0]?.n === 2;
}
