import { ConfigError } from "../errors.js";
import type { QueueConnection } from "./queue-connection.js";
import { EXPIRED_MESSAGE } from "./boss-internals.js";
import { ensureTables } from "./queue-tables.js";

// A backfill's progress, from our slots joined with pg-boss's jobs (live, or archived once
// completed for a while).

/** Where one job of a backfill stands. */
export type SlotState = "queued" | "running" | "completed" | "failed" | "waiting" | "blocked" | "canceled";

/** One job of a backfill. */
export interface SlotProgress {
  readonly slot: number;
  readonly partition: string | null;
  readonly assets: readonly string[];
  readonly state: SlotState;
  /** host:pid of the worker that last started it. */
  readonly worker: string | null;
  readonly startedAt: string | null;
  /** Attempts made (retries included). */
  readonly attempts: number;
  /** The last failure, for a failed job (and one waiting to retry). */
  readonly error: { readonly message: string; readonly asset: string | null } | null;
  /** For a blocked job: the slots it waits on that failed, are blocked or were canceled. */
  readonly blockedBy?: readonly number[];
}

/**
 * Where a backfill stands as a whole: every job completed; work left to run (queued, running or
 * waiting on jobs that will run); stopped (failed jobs, and nothing left that can run until they
 * are retried); canceled.
 */
export type BackfillStatus = "completed" | "running" | "stopped" | "canceled";

/** A backfill as the queue holds it. */
export interface BackfillProgress {
  readonly id: string;
  readonly createdAt: string;
  readonly project: string;
  readonly window: string | null;
  /** "active" or "canceled", as stored. */
  readonly state: string;
  readonly status: BackfillStatus;
  readonly total: number;
  readonly counts: Readonly<Record<SlotState, number>>;
  readonly slots: readonly SlotProgress[];
}

/** The states of a parent that keep its children from ever running. */
const STOPPED: readonly string[] = ["failed", "blocked", "canceled"];

/** pg-boss's words for an expired job, said plainly. */
function plainMessage(message: string): string {
  return message === "job failed by timeout in active state" ? EXPIRED_MESSAGE : message;
}

/** The backfills of a queue, newest first, each with its counts (no slots). */
export async function listBackfills(connection: QueueConnection): Promise<BackfillProgress[]> {
  await ensureTables(connection);
  const rows = await connection.query<{ id: string }>(`SELECT id FROM ${connection.schema}.backfill ORDER BY created_at DESC, id`);
  const out: BackfillProgress[] = [];
  for (const row of rows) {
    const progress = await backfillProgress(connection, row.id);
    out.push({ ...progress, slots: [] });
  }
  return out;
}

/** ConfigError unless `id` has the form of a backfill id: checked before anything touches the queue. */
export function checkBackfillId(id: string): void {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw new ConfigError(`${JSON.stringify(id)} is not a backfill id: expected a UUID, as materialize --queue printed it`);
}

/** One backfill's progress, job by job; ConfigError for an unknown id. */
export async function backfillProgress(connection: QueueConnection, id: string): Promise<BackfillProgress> {
  await ensureTables(connection);
  checkBackfillId(id);
  const [backfill] = await connection.query<{
    id: string;
    created_at: Date;
    project: string;
    window: string | null;
    state: string;
    total: number;
  }>(`SELECT id, created_at, project, "window", state, total FROM ${connection.schema}.backfill WHERE id = $1`, [id]);
  if (!backfill) throw new ConfigError(`no backfill ${id} in the queue`);
  const slots = slotsOf(await slotRows(connection, id), await parentsOf(connection, id), backfill.state === "canceled");
  const counts: Record<SlotState, number> = { queued: 0, running: 0, completed: 0, failed: 0, waiting: 0, blocked: 0, canceled: 0 };
  for (const slot of slots) counts[slot.state]++;
  const status: BackfillStatus =
    backfill.state === "canceled"
      ? "canceled"
      : counts.completed === backfill.total
        ? "completed"
        : counts.queued + counts.running + counts.waiting > 0
          ? "running"
          : "stopped";
  return {
    id: backfill.id,
    createdAt: backfill.created_at.toISOString(),
    project: backfill.project,
    window: backfill.window,
    state: backfill.state,
    status,
    total: backfill.total,
    counts,
    slots,
  };
}

/** A job's failure as a worker reported it (pg-boss's output) or as we recorded it. */
type Failure = { message?: unknown; asset?: unknown; value?: { message?: unknown } } | null;

/** One slot of a backfill joined with its pg-boss job, if pg-boss still holds it. */
interface SlotRow {
  slot_id: number;
  partition: string | null;
  assets: string[];
  waiting_on: number;
  worker: string | null;
  started_at: Date | null;
  state: string | null;
  retry_count: number | null;
  output: Failure;
  started_on: Date | null;
  completed_at: Date | null;
  last_error: Failure;
}

/** The slots of a backfill in slot order, each with its job, live or archived. */
function slotRows(connection: QueueConnection, id: string): Promise<SlotRow[]> {
  const s = connection.schema;
  const b = connection.bossSchema;
  return connection.query<SlotRow>(
    `SELECT s.slot_id, s.partition, s.assets, s.waiting_on, s.worker, s.started_at, s.completed_at, s.last_error, j.state::text AS state, j.retry_count, j.output, j.started_on
     FROM ${s}.slot s
     LEFT JOIN LATERAL (
       SELECT state, retry_count, output, started_on FROM ${b}.job WHERE name = $2 AND id = s.job_id
       UNION ALL
       SELECT state, retry_count, output, started_on FROM ${b}.archive WHERE name = $2 AND id = s.job_id
       LIMIT 1
     ) j ON true
     WHERE s.backfill_id = $1 ORDER BY s.slot_id`,
    [id, connection.queueName],
  );
}

/** The parents of each slot of a backfill. */
async function parentsOf(connection: QueueConnection, id: string): Promise<Map<number, number[]>> {
  const edges = await connection.query<{ parent: number; child: number }>(
    `SELECT parent, child FROM ${connection.schema}.edge WHERE backfill_id = $1`,
    [id],
  );
  const parents = new Map<number, number[]>();
  for (const e of edges) parents.set(e.child, [...(parents.get(e.child) ?? []), e.parent]);
  return parents;
}

/** Each slot's progress; rows come in slot order, and parents precede their children. */
function slotsOf(rows: readonly SlotRow[], parents: ReadonlyMap<number, number[]>, canceled: boolean): SlotProgress[] {
  const states = new Map<number, SlotState>();
  const stopped = (slot: number) => (parents.get(slot) ?? []).filter((p) => STOPPED.includes(states.get(p) ?? ""));
  return rows.map((row): SlotProgress => {
    const state = stateOf(row, canceled, () => stopped(row.slot_id).length > 0);
    states.set(row.slot_id, state);
    const output = row.output ?? row.last_error;
    const message = output?.message ?? output?.value?.message;
    const failedOnce = (state === "failed" || state === "queued") && typeof message === "string";
    return {
      slot: row.slot_id,
      partition: row.partition,
      assets: row.assets,
      state,
      worker: row.worker,
      startedAt: row.started_at ? row.started_at.toISOString() : null,
      attempts: row.state === null ? 0 : (row.retry_count ?? 0) + (row.started_on ? 1 : 0),
      error: failedOnce ? { message: plainMessage(message), asset: typeof output?.asset === "string" ? output.asset : null } : null,
      ...(state === "blocked" ? { blockedBy: stopped(row.slot_id) } : {}),
    };
  });
}

/** Where a slot stands, from its pg-boss job's state, or our own record once pg-boss deleted the job. */
function stateOf(row: SlotRow, canceled: boolean, parentStopped: () => boolean): SlotState {
  switch (row.state) {
    case "created":
    case "retry":
      return "queued";
    case "active":
      return "running";
    case "completed":
      return "completed";
    case "failed":
      return "failed";
    case "cancelled":
      return "canceled";
    default:
      // pg-boss deleted the settled job (after its retention): our own record tells.
      if (row.completed_at) return "completed";
      if (row.last_error && row.waiting_on === 0) return "failed";
      if (canceled) return "canceled";
      // The parents' states are known: they precede the slot.
      return parentStopped() ? "blocked" : "waiting";
  }
}
