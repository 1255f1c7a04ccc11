import type { Project } from "../api/project.js";
import type { Plan } from "../runner/plan.js";
import { ConfigError } from "../errors.js";
import { projectIdentity } from "./identity.js";
import { jobGraph } from "./job-graph.js";
import { randomUUID } from "node:crypto";
import type { QueueConnection, Sql } from "./queue-connection.js";
import { ensureTables, sendSlots, type JobOptions } from "./queue-tables.js";
import { uuidV5 } from "./uuid.js";

/** How the jobs of a backfill retry and expire. */
export interface EnqueueOptions {
  /** Attempts after the first before a job stays failed (default 2). */
  readonly retries?: number;
  /** Seconds before the first retry; later ones back off exponentially (default 10). */
  readonly retryDelaySeconds?: number;
  /**
   * Seconds a job may stay active without its worker's heartbeat before it goes back to the
   * queue (default 300; a live worker keeps extending it, so a long partition is not cut).
   */
  readonly expireSeconds?: number;
}

/** What enqueuing did. */
export interface EnqueueResult {
  readonly backfillId: string;
  /** False when the same backfill is on the queue and not settled: nothing was added. */
  readonly created: boolean;
  /**
   * Set when the same backfill had been enqueued before and was settled (canceled, or every job
   * completed): it was replaced by this one, which runs every job again.
   */
  readonly replaced?: "canceled" | "completed";
  readonly jobs: number;
  /** Jobs available at once (the rest wait for the jobs they depend on). */
  readonly ready: number;
}

/**
 * Enqueues a backfill plan: one job per slot of its schedule (see job-graph.ts), in one
 * transaction; the jobs nothing waits on are sent now, the others by the worker that completes
 * their last parent. The backfill's id derives from the project and the plan's runs, so the
 * same backfill enqueued twice while it runs adds nothing and returns the same id; once it is
 * settled (canceled, or completed) it is enqueued anew under that id.
 */
export async function enqueuePlan(
  connection: QueueConnection,
  project: Project,
  plan: Plan,
  options: EnqueueOptions = {},
): Promise<EnqueueResult> {
  if (plan.mode !== "backfill" || plan.schedule.length === 0)
    throw new ConfigError("--queue needs a backfill (a window of several partitions): this plan is one run; run it without --queue");
  const jobOptions: JobOptions = {
    retryLimit: checkCount("retries", options.retries ?? 2, 0),
    retryDelay: checkCount("retry delay", options.retryDelaySeconds ?? 10, 0),
    retryBackoff: true,
    expireInSeconds: checkCount("expiry", options.expireSeconds ?? 300, 1),
  };
  const identity = projectIdentity(project);
  const graph = jobGraph(project.dag, plan.schedule);
  const backfillId = uuidV5(`${identity}\n${JSON.stringify(graph.slots.map((s) => [s.partition, s.assets]))}`);
  const waitingOn = new Map<number, number>();
  for (const edge of graph.edges) waitingOn.set(edge.child, (waitingOn.get(edge.child) ?? 0) + 1);
  const slots = (jobIds: (slot: number) => string) =>
    graph.slots.map((slot) => ({
      slot_id: slot.id,
      stage: slot.stage,
      partition: slot.partition,
      assets: slot.assets,
      waiting_on: waitingOn.get(slot.id) ?? 0,
      job_id: jobIds(slot.id),
    }));
  await ensureTables(connection);
  const backfill = { id: backfillId, project: identity, total: graph.slots.length, options: jobOptions };
  const outcome = await connection.transaction(async (sql) => {
    const replaced = await replaceSettled(connection, sql, backfillId);
    if (replaced === "unsettled") return { created: false, ready: 0 };
    // A backfill enqueued anew gets new job ids: a worker still running a job of the old one
    // must find its attempt gone, not mistake a new attempt for its own.
    const rows = slots(replaced ? () => randomUUID() : (slot) => uuidV5(`${backfillId}/${slot}`));
    const window = plan.window ? String(plan.window) : null;
    if (!(await insertBackfill(connection, sql, backfill, window, rows, graph.edges))) return { created: false, ready: 0 };
    const ready = rows.filter((r) => r.waiting_on === 0);
    await sendSlots(connection, sql, backfill, ready);
    return { created: true, ready: ready.length, ...(replaced ? { replaced } : {}) };
  });
  const ready = outcome.created ? outcome.ready : graph.slots.filter((slot) => !waitingOn.has(slot.id)).length;
  return { backfillId, jobs: graph.slots.length, ...outcome, ready };
}

/** Inserts a backfill, its slots and its edges; false when another enqueuer inserted it first. */
async function insertBackfill(
  connection: QueueConnection,
  sql: Sql,
  backfill: { id: string; project: string; total: number; options: JobOptions },
  window: string | null,
  rows: ReadonlyArray<{ slot_id: number; waiting_on: number; job_id: string }>,
  edges: ReadonlyArray<{ parent: number; child: number }>,
): Promise<boolean> {
  const s = connection.schema;
  const inserted = await sql.executeSql(
    `INSERT INTO ${s}.backfill (id, project, "window", total, job_options) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [backfill.id, backfill.project, window, backfill.total, JSON.stringify(backfill.options)],
  );
  if (inserted.rows.length === 0) return false;
  await sql.executeSql(
    `INSERT INTO ${s}.slot (backfill_id, slot_id, stage, partition, assets, waiting_on, job_id)
     SELECT $1, slot_id, stage, partition, assets, waiting_on, job_id
     FROM jsonb_to_recordset($2::jsonb) AS x (slot_id int, stage int, partition text, assets jsonb, waiting_on int, job_id uuid)`,
    [backfill.id, JSON.stringify(rows)],
  );
  await sql.executeSql(
    `INSERT INTO ${s}.edge (backfill_id, parent, child)
     SELECT $1, parent, child FROM jsonb_to_recordset($2::jsonb) AS x (parent int, child int)`,
    [backfill.id, JSON.stringify(edges)],
  );
  return true;
}

/**
 * Removes the backfill `id` when it is settled (canceled, or every job completed), with the
 * jobs pg-boss still holds of it, and says which it was; "unsettled" when it has work left
 * (running, queued, or stopped by a failure), null when there is none. Locks its row, so two
 * enqueuers take turns.
 */
async function replaceSettled(connection: QueueConnection, sql: Sql, id: string): Promise<"canceled" | "completed" | "unsettled" | null> {
  const s = connection.schema;
  const { rows } = await sql.executeSql(
    `SELECT state, (SELECT count(*)::int FROM ${s}.slot WHERE backfill_id = $1 AND completed_at IS NULL) AS open
     FROM ${s}.backfill WHERE id = $1 FOR UPDATE`,
    [id],
  );
  const row = rows[0];
  if (!row) return null;
  const settled = row["state"] === "canceled" ? "canceled" : row["open"] === 0 ? "completed" : null;
  if (!settled) return "unsettled";
  await sql.executeSql(
    `DELETE FROM ${connection.bossSchema}.job WHERE name = $1 AND id IN (SELECT job_id FROM ${s}.slot WHERE backfill_id = $2)`,
    [connection.queueName, id],
  );
  await sql.executeSql(`DELETE FROM ${s}.backfill WHERE id = $1`, [id]);
  return settled;
}

function checkCount(what: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${what} must be an integer of at least ${min}, got ${String(value)}`);
  return value;
}

export { projectIdentity } from "./identity.js";
