import type { QueueConnection } from "./queue-connection.js";
import { backfillProgress } from "./progress.js";

/**
 * Cancels a backfill: marks it canceled (so a job completing now releases nothing) and cancels
 * every job not yet completed; running partitions finish, their completion is ignored. Returns
 * how many jobs will not run (those waiting on others included).
 */
export async function cancelBackfill(connection: QueueConnection, id: string): Promise<number> {
  await backfillProgress(connection, id);
  const s = connection.schema;
  return connection.transaction(async (sql) => {
    await sql.executeSql(`UPDATE ${s}.backfill SET state = 'canceled' WHERE id = $1`, [id]);
    const jobs = await sql.executeSql(`SELECT job_id, waiting_on FROM ${s}.slot WHERE backfill_id = $1`, [id]);
    const ids = jobs.rows.map((r) => r["job_id"] as string);
    // Jobs still waiting on others were never sent: they will not run either.
    const unsent = jobs.rows.filter((r) => (r["waiting_on"] as number) > 0).length;
    if (ids.length === 0) return 0;
    const result = (await connection.boss.cancel(connection.queueName, ids, { db: sql })) as unknown as { affected: number };
    return result.affected + unsent;
  });
}

/** Sends a backfill's failed jobs back to the queue (one more attempt each); returns how many. */
export async function retryFailed(connection: QueueConnection, id: string): Promise<number> {
  const progress = await backfillProgress(connection, id);
  const failed = progress.slots.filter((s) => s.state === "failed").map((s) => s.slot);
  if (failed.length === 0) return 0;
  const rows = await connection.query<{ job_id: string }>(
    `SELECT job_id FROM ${connection.schema}.slot WHERE backfill_id = $1 AND slot_id = ANY($2::int[])`,
    [id, failed],
  );
  // pg-boss 10's retry() resolves to { affected } although its types say void.
  const result = (await connection.boss.retry(
    connection.queueName,
    rows.map((r) => r.job_id),
  )) as unknown as { affected: number };
  return result.affected;
}
