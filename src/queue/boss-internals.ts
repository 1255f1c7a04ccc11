import type { QueueConnection } from "./queue-connection.js";

// Two things pg-boss 10 has no call for, done with one UPDATE each on its job table
// (`<schema>.job`, columns of pg-boss 10.4: id, name, state, started_on, expire_in). Its
// supervisor fails a job once `started_on + expire_in < now()` (plans.js failJobsByTimeout);
// a heartbeat keeps pushing that instant ahead while the worker lives. A pg-boss upgrade that
// renames these columns must be caught by the queue tests.

/** Moves the expiry of active jobs to `seconds` from now. */
export async function extendExpiry(connection: QueueConnection, jobs: ReadonlyArray<{ id: string; expire: number }>): Promise<void> {
  if (jobs.length === 0) return;
  await connection.query(
    `UPDATE ${connection.bossSchema}.job AS j
     SET expire_in = (now() - j.started_on) + make_interval(secs => x.expire)
     FROM jsonb_to_recordset($2::jsonb) AS x (id uuid, expire int)
     WHERE j.name = $1 AND j.id = x.id AND j.state = 'active'`,
    [connection.queueName, JSON.stringify(jobs)],
  );
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
