// The queue tests' lifecycle: each test opens a queue in schemas of its own (ours and pg-boss's),
// which are closed and dropped after it, whatever it left there.
import pg from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type ConnectionOptions, QueueConnection } from "../../src/queue/index.js";
import { PG_CONNECTION, uniqueName } from "../database/servers.js";

const URL_BASE = `postgres://${PG_CONNECTION.user}@${PG_CONNECTION.host}:${PG_CONNECTION.port}/${PG_CONNECTION.database}`;

export interface QueuePerTest {
  /** A plain client, for reading the schemas the way an operator would. */
  readonly admin: pg.Client;
  /** The schema of the queue this test opened (pg-boss's is it with `_boss`). */
  readonly schema: string;
  /** Opens this test's queue in a new schema named from `prefix`. */
  open(options?: ConnectionOptions): Promise<QueueConnection>;
}

/** Call inside a `describe`: after each test its queue is closed and dropped, then `reset` clears the file's own state. */
export function queuePerTest(prefix: string, reset: () => void): QueuePerTest {
  const admin = new pg.Client(PG_CONNECTION);
  let opened: { schema: string; connection: QueueConnection } | null = null;
  beforeAll(() => admin.connect());
  afterAll(() => admin.end());
  afterEach(async () => {
    if (opened) {
      const { schema, connection } = opened;
      opened = null;
      await connection.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP SCHEMA IF EXISTS ${schema}_boss CASCADE`);
    }
    reset();
  });
  return {
    admin,
    get schema(): string {
      if (!opened) throw new Error("no queue is open in this test");
      return opened.schema;
    },
    async open(options?: ConnectionOptions): Promise<QueueConnection> {
      const schema = uniqueName(prefix);
      const connection = await QueueConnection.open({ url: `${URL_BASE}?schema=${schema}` }, options);
      opened = { schema, connection };
      return connection;
    },
  };
}
