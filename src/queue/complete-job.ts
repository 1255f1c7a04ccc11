import { setTimeout as sleep } from "node:timers/promises";
import { holdsAttempt } from "./boss-internals.js";
import { queueServerError, type QueueConnection } from "./queue-connection.js";
import { sendSlots, type JobData, type JobOptions } from "./queue-tables.js";

/**
 * Completes a job and releases the jobs that waited only on it, in one transaction: a crash
 * between the two can neither lose a child nor release it twice. A job that is no longer active
 * in this attempt (it expired and went back to the queue) is left to the run that now holds it; a canceled
 * backfill releases nothing. Returns how many jobs were released, or null when this attempt
 * held the job no longer.
 */
export async function completeJob(connection: QueueConnection, jobId: string, attempt: number, data: JobData): Promise<number | null> {
  const s = connection.schema;
  return connection.transaction(async (sql) => {
    if (!(await holdsAttempt(connection, sql, jobId, attempt))) return null;
    // pg-boss 10's complete() resolves to { affected } although its types say void.
    const done = (await connection.boss.complete(connection.queueName, jobId, {}, { db: sql })) as unknown as { affected: number };
    if (done.affected === 0) return null;
    await sql.executeSql(`UPDATE ${s}.slot SET completed_at = now(), last_error = NULL WHERE backfill_id = $1 AND slot_id = $2`, [
      data.backfill,
      data.slot,
    ]);
    const backfill = await sql.executeSql(`SELECT state, project, total, job_options FROM ${s}.backfill WHERE id = $1 FOR SHARE`, [
      data.backfill,
    ]);
    const children = await sql.executeSql(
      `UPDATE ${s}.slot AS c SET waiting_on = c.waiting_on - 1
       FROM ${s}.edge AS e
       WHERE e.backfill_id = $1 AND e.parent = $2 AND c.backfill_id = $1 AND c.slot_id = e.child
       RETURNING c.slot_id, c.partition, c.assets, c.job_id, c.waiting_on`,
      [data.backfill, data.slot],
    );
    const row = backfill.rows[0];
    if (!row || row["state"] !== "active") return 0;
    const ready = children.rows
      .filter((c) => c["waiting_on"] === 0)
      .map((c) => ({
        slot_id: c["slot_id"] as number,
        partition: c["partition"] as string | null,
        assets: c["assets"] as string[],
        job_id: c["job_id"] as string,
      }));
    const backfillRow = {
      id: data.backfill,
      project: row["project"] as string,
      total: row["total"] as number,
      options: row["job_options"] as JobOptions,
    };
    await sendSlots(connection, sql, backfillRow, ready);
    return ready.length;
  });
}

/** How a worker rides out a lost server. */
export interface ReconnectOptions {
  readonly reconnectMs: number;
  readonly server: string;
  readonly onWarning?: (message: string) => void;
}

/**
 * Runs a step against the queue server, retrying (1 s, 2 s, … at most 5 s apart) while the
 * server is away, up to `reconnectMs`; then throws a one-line QueueServerError. Only errors of
 * the connection are retried: a statement the server rejects fails at once.
 */
export async function withReconnect<T>(options: ReconnectOptions, what: string, step: () => Promise<T>): Promise<T> {
  const firstFailure = Date.now();
  let delay = 1000;
  let warned = false;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      if (Date.now() - firstFailure >= options.reconnectMs)
        throw queueServerError(options.server, error, `${Math.round(options.reconnectMs / 1000)} s`);
      if (!warned)
        options.onWarning?.(`the queue server ${options.server} is away (${String((error as Error).message)}): retrying to ${what}`);
      warned = true;
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
    }
  }
}

/** Whether an error is the connection's (refused, reset, timed out, terminated), not the statement's. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|57P0[1-3]|08\w{3})$/.test(code))
    return true;
  const message = error instanceof Error ? error.message : String(error);
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|ECONNRESET|ECONNREFUSED/i.test(
    message,
  );
}

/**
 * Fails this attempt of a job with its error, so that pg-boss retries it (with backoff) or
 * keeps it failed; an attempt that is no longer the active one is left alone.
 */
export async function failJob(
  connection: QueueConnection,
  jobId: string,
  attempt: number,
  data: JobData,
  failure: object,
): Promise<boolean> {
  return connection.transaction(async (sql) => {
    if (!(await holdsAttempt(connection, sql, jobId, attempt))) return false;
    await connection.boss.fail(connection.queueName, jobId, failure, { db: sql });
    await sql.executeSql(`UPDATE ${connection.schema}.slot SET last_error = $3 WHERE backfill_id = $1 AND slot_id = $2`, [
      data.backfill,
      data.slot,
      JSON.stringify(failure),
    ]);
    return true;
  });
}
