import { ConfigError } from "../errors.js";
import { backfill, runStages, type BackfillResult } from "../runner/backfill.js";
import type { ChildProcessOptions } from "../runner/pool/worker-pool.js";
import type { EventHandler } from "../runner/events.js";
import type { RunResult } from "../runner/run-result.js";
import type { ExecutionStatus } from "../runner/run-result.js";
import { planMaterialize, type Plan, type PlanOptions } from "./plan.js";
import type { Project } from "./project.js";

/** Options of `materialize`: what to run (as `plan`) and how. */
export interface MaterializeOptions extends PlanOptions {
  /** Assets (or backfill partitions) at once; the config's `concurrency`, else 4. */
  readonly concurrency?: number;
  readonly failFast?: boolean;
  readonly onEvent?: EventHandler;
  readonly signal?: AbortSignal;
  /** Run the backfill's partitions in this many worker processes, each loading the config once. */
  readonly processes?: number;
  /**
   * A limit per run (per partition in a backfill): assets still running then fail ("timed out
   * after 30s"), are abandoned and nothing more of theirs is written; the backfill goes on.
   * With `processes`, each worker applies it to its partition, and is sent SIGTERM once this
   * much has passed since it was handed the partition (SIGKILL CHILD_KILL_DELAY_MS later).
   */
  readonly timeoutMs?: number;
  /**
   * After `signal` aborts, how long running assets (or workers' partitions) may take to finish
   * before they are abandoned (canceled); unset: in process, as long as they take; a worker, 10 s.
   */
  readonly graceMs?: number;
  /** The backfill id to use (default: a new UUID). */
  readonly backfillId?: string;
}

/** What a materialize did. */
export interface MaterializeOutcome {
  readonly plan: Plan;
  readonly status: ExecutionStatus;
  readonly result: RunResult | BackfillResult;
  /** Partitions (or the run's window) that did not complete, in dispatch order. */
  readonly incomplete: readonly string[];
}

/** Plans, then runs: one execution when the window can run whole, a backfill otherwise. */
export async function materialize(project: Project, options: MaterializeOptions = {}): Promise<MaterializeOutcome> {
  const plan = planMaterialize(project, options);
  const concurrency = options.concurrency ?? project.config.concurrency ?? 4;
  const common = {
    concurrency,
    failFast: options.failFast ?? true,
    assets: plan.assets,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
  };
  if (plan.stages) {
    const pool = options.processes ? processPool(project, options) : {};
    const window = plan.window ? String(plan.window) : "(every value)";
    const result = await runStages(project.dag, plan.stages, { ...common, ...pool, order: plan.order, window, ...(options.backfillId ? { backfillId: options.backfillId } : {}) });
    return { plan, status: result.status, result, incomplete: result.incompletePartitions };
  }
  if (plan.mode === "backfill" && plan.window) {
    const pool = options.processes ? processPool(project, options) : {};
    const result = await backfill(project.dag, plan.window, { ...common, ...pool, order: plan.order, only: plan.partitions, ...(options.backfillId ? { backfillId: options.backfillId } : {}) });
    return { plan, status: result.status, result, incomplete: result.incompletePartitions };
  }
  const result = await project.dag.materialize(plan.window, { ...common, ...(options.backfillId ? { backfillId: options.backfillId } : {}) });
  return { plan, status: result.status, result, incomplete: result.status === "completed" ? [] : [result.partitionOrWindow ?? "(unpartitioned)"] };
}

function processPool(project: Project, options: MaterializeOptions): { processes: number; childProcess: ChildProcessOptions } {
  if (!project.filepath) throw new ConfigError("--processes needs a config file that worker processes can load; this project was built in code");
  return { processes: options.processes!, childProcess: { configPath: project.filepath, cwd: process.cwd() } };
}

/** For a dry run: the current row counts of the partitions a plan would replace, per asset. */
export async function currentRowCounts(plan: Plan): Promise<Record<string, Record<string, number>>> {
  // The partitions the plan runs: with --missing or a shard, fewer than its window holds.
  const keys = new Set(plan.partitions);
  const counts: Record<string, Record<string, number>> = {};
  for (const asset of plan.assets) {
    if (!asset.partitioning || !asset.primaryDestination) continue;
    const stored = await asset.partitionRowCounts();
    counts[asset.qualifiedKey] = Object.fromEntries(Object.entries(stored).filter(([key]) => keys.has(key)));
  }
  return counts;
}
