import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { Project } from "../api/project.js";
import type { Plan } from "../runner/plan.js";
import { ConfigError } from "../errors.js";
import { jobGraph } from "./job-graph.js";
import type { QueueConnection } from "./queue-connection.js";
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
  /** False when the same backfill was enqueued before: nothing was added. */
  readonly created: boolean;
  readonly jobs: number;
  /** Jobs available at once (the rest wait for the jobs they depend on). */
  readonly ready: number;
}

/**
 * The identity of a project as workers check it: the config file's name and a hash of its
 * asset keys, so that a worker started on another project refuses the job rather than
 * writing the wrong thing.
 */
export function projectIdentity(project: Project): string {
  const keys = project.dag.assets.map((a) => a.qualifiedKey).sort();
  const hash = createHash("sha256").update(keys.join("\n")).digest("hex").slice(0, 12);
  return `${project.filepath ? basename(project.filepath) : "(in code)"}#${hash}`;
}

/**
 * Enqueues a backfill plan: one job per slot of its schedule (see job-graph.ts), in one
 * transaction; the jobs nothing waits on are sent now, the others by the worker that completes
 * their last parent. The backfill's id derives from the project and the plan's runs, so the
 * same backfill enqueued twice adds nothing and returns the same id.
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
  const slots = graph.slots.map((slot) => ({
    slot_id: slot.id,
    stage: slot.stage,
    partition: slot.partition,
    assets: slot.assets,
    waiting_on: waitingOn.get(slot.id) ?? 0,
    job_id: uuidV5(`${backfillId}/${slot.id}`),
  }));
  const ready = slots.filter((s) => s.waiting_on === 0);
  await ensureTables(connection);
  const s = connection.schema;
  const created = await connection.transaction(async (sql) => {
    const inserted = await sql.executeSql(
      `INSERT INTO ${s}.backfill (id, project, "window", total, job_options) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [backfillId, identity, plan.window ? String(plan.window) : null, slots.length, JSON.stringify(jobOptions)],
    );
    if (inserted.rows.length === 0) return false;
    await sql.executeSql(
      `INSERT INTO ${s}.slot (backfill_id, slot_id, stage, partition, assets, waiting_on, job_id)
       SELECT $1, slot_id, stage, partition, assets, waiting_on, job_id
       FROM jsonb_to_recordset($2::jsonb) AS x (slot_id int, stage int, partition text, assets jsonb, waiting_on int, job_id uuid)`,
      [backfillId, JSON.stringify(slots)],
    );
    await sql.executeSql(
      `INSERT INTO ${s}.edge (backfill_id, parent, child)
       SELECT $1, parent, child FROM jsonb_to_recordset($2::jsonb) AS x (parent int, child int)`,
      [backfillId, JSON.stringify(graph.edges)],
    );
    await sendSlots(connection, sql, { id: backfillId, project: identity, total: slots.length, options: jobOptions }, ready);
    return true;
  });
  return { backfillId, created, jobs: slots.length, ready: ready.length };
}

function checkCount(what: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${what} must be an integer of at least ${min}, got ${String(value)}`);
  return value;
}
