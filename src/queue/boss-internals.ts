import type { QueueConnection, Sql } from "./queue-connection.js";

// What pg-boss 10 has no call for, done with one statement each on its job table
// (`<schema>.job`, columns of pg-boss 10.4: id, name, state, started_on, expire_in,
// retry_count). Its supervisor fails a job once `started_on + expire_in < now()` (plans.js
// failJobsByTimeout); a heartbeat keeps pushing that instant ahead while the worker lives.
// An attempt is told by `retry_count`, which each fetch of a job started before raises
// (plans.js fetchNextJob): a worker whose job expired and was fetched again elsewhere must
// neither extend, complete nor fail the new attempt (pg-boss's complete and fail look only at
// the state). A pg-boss upgrade that renames these columns must be caught by the queue tests.

/** Whether this attempt of a job is still the active one; locks the job's row until the transaction ends. */
export async function holdsAttempt(connection: QueueConnection, sql: Sql, jobId: string, attempt: number): Promise<boolean> {
  const { rows } = await sql.executeSql(
    `SELECT 1 FROM ${connection.bossSchema}.job WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3 FOR UPDATE`,
    [connection.queueName, jobId, attempt],
  );
  return rows.length === 1;
}

/** Moves the expiry of these attempts of active jobs to `expire` seconds from now. */
export async function extendExpiry(
  connection: QueueConnection,
  jobs: ReadonlyArray<{ id: string; attempt: number; expire: number }>,
): Promise<void> {
  if (jobs.length === 0) return;
  await connection.query(
    `UPDATE ${connection.bossSchema}.job AS j
     SET expire_in = (now() - j.started_on) + make_interval(secs => x.expire)
     FROM jsonb_to_recordset($2::jsonb) AS x (id uuid, attempt int, expire int)
     WHERE j.name = $1 AND j.id = x.id AND j.state = 'active' AND j.retry_count = x.attempt`,
    [connection.queueName, JSON.stringify(jobs)],
  );
}

/**
 * Checks that this attempt still holds its job and renews its lease for `expire` seconds, in one
 * statement: a worker about to write a partition learns whether the job went back to the queue
 * while it was stopped, and if not, no supervisor may take the job for `expire` seconds.
 */
export async function renewAttempt(connection: QueueConnection, jobId: string, attempt: number, expire: number): Promise<boolean> {
  const rows = await connection.query(
    `UPDATE ${connection.bossSchema}.job SET expire_in = (now() - started_on) + make_interval(secs => $4)
     WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3 RETURNING 1`,
    [connection.queueName, jobId, attempt, expire],
  );
  return rows.length === 1;
}

/** What a job whose worker went silent records (pg-boss's own words, "failed by timeout in active state", say too little). */
export const EXPIRED_MESSAGE = "its worker went silent (killed, stopped, or cut off from the queue) for longer than the job expiry";

/**
 * Sends the jobs whose worker went silent past their expiry back to the queue at once (no
 * backoff: the partition did not fail, its worker did), or fails those with no retry left;
 * returns how many. pg-boss's supervisor does this too, but only once per maintenance interval
 * across all processes and with the retry backoff of a failure.
 */
export async function reclaimExpired(connection: QueueConnection): Promise<number> {
  const b = connection.bossSchema;
  const rows = await connection.query(
    `UPDATE ${b}.job SET
       state = (CASE WHEN retry_count < retry_limit THEN 'retry' ELSE 'failed' END)::${b}.job_state,
       start_after = CASE WHEN retry_count < retry_limit THEN now() ELSE start_after END,
       completed_on = CASE WHEN retry_count < retry_limit THEN NULL ELSE now() END,
       output = jsonb_build_object('message', $2::text || CASE WHEN retry_count < retry_limit THEN '; it runs again' ELSE '; no retry was left' END)
     WHERE name = $1 AND state = 'active' AND started_on + expire_in < now()
     RETURNING 1`,
    [connection.queueName, EXPIRED_MESSAGE],
  );
  return rows.length;
}

/** Puts fetched jobs this worker will not run back in the queue, as if never fetched (no attempt spent). */
export async function returnJobs(connection: QueueConnection, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await connection.query(
    `UPDATE ${connection.bossSchema}.job SET state = 'created', started_on = NULL
     WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`,
    [connection.queueName, ids],
  );
}
