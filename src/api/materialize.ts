import type { Asset } from "../asset/asset.js";
import { rowCountOf } from "../destination/row-count.js";
import { ConfigError, DataNotFoundError } from "../errors.js";
import type { BackfillResult } from "../runner/backfill.js";
import { executePlan } from "../runner/execute-plan.js";
import type { RunContext } from "../runner/context.js";
import type { ChildProcessOptions } from "../runner/pool/worker-pool.js";
import type { EventHandler, RunEvents } from "../runner/events.js";
import type { RunResult } from "../runner/run-result.js";
import type { ExecutionStatus } from "../runner/run-result.js";
import { planMaterialize, type Plan, type PlanOptions } from "./plan.js";
import type { Project } from "./project.js";
import { keyedTable } from "../keyed.js";

/** Options of `materialize`: what to run (as `plan`) and how. */
export interface MaterializeOptions extends PlanOptions, PlanExecutionOptions {}

/** How `materializePlan` runs a plan. */
export interface PlanExecutionOptions {
  /** Assets (or backfill partitions) at once; the config's `concurrency`, else 4. */
  readonly concurrency?: number;
  /** Stop at the first failure: nothing starts after it (default false: partitions are independent, every failure is reported). */
  readonly failFast?: boolean;
  readonly onEvent?: EventHandler;
  /** The run's own channel of events (see `RunEvents`). */
  readonly events?: RunEvents;
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
  return materializePlan(project, planMaterialize(project, options), options);
}

/** Runs a plan `planMaterialize` made of this project, as it stands (a command shows it first). */
export async function materializePlan(project: Project, plan: Plan, options: PlanExecutionOptions = {}): Promise<MaterializeOutcome> {
  return runPlan(project, plan, options);
}

/** `materializePlan` in a session: its runs share `context` (unset: runs outside any session). */
export async function runPlan(
  project: Project,
  plan: Plan,
  options: PlanExecutionOptions,
  context?: RunContext,
): Promise<MaterializeOutcome> {
  const result = await executePlan(project.dag, plan, {
    concurrency: options.concurrency ?? project.config.concurrency ?? 4,
    failFast: options.failFast ?? false,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    ...(options.backfillId ? { backfillId: options.backfillId } : {}),
    ...(options.processes && plan.mode === "backfill" ? processPool(project, options.processes) : {}),
    ...(context ? { context } : {}),
  });
  const incomplete =
    "incompletePartitions" in result
      ? result.incompletePartitions
      : result.status === "completed"
        ? []
        : [result.partitionOrWindow ?? "(unpartitioned)"];
  return { plan, status: result.status, result, incomplete };
}

function processPool(project: Project, processes: number): { processes: number; childProcess: ChildProcessOptions } {
  if (!project.filepath)
    throw new ConfigError((o) => `${o("processes")} needs a config file that worker processes can load; this project was built in code`);
  return { processes, childProcess: { configPath: project.filepath, cwd: process.cwd() } };
}

/** The rows an unpartitioned asset holds in its first destination, read back and counted; null when it was never written. */
async function storedRows(asset: Asset): Promise<number | null> {
  try {
    return rowCountOf(await asset.read());
  } catch (error) {
    if (error instanceof DataNotFoundError) return null;
    throw error;
  }
}

/**
 * For a dry run: the current row counts of the partitions a plan would replace, per asset; an
 * unpartitioned asset's whole stored data under the key "" (absent when nothing is stored).
 */
export async function currentRowCounts(plan: Plan): Promise<Record<string, Record<string, number>>> {
  // The partitions the plan runs: with --missing or a shard, fewer than its window holds.
  const keys = new Set(plan.partitions);
  const counts = keyedTable<Record<string, number>>();
  for (const asset of plan.assets) {
    if (!asset.primaryDestination) continue;
    // An unpartitioned asset's one run replaces all it holds (when the plan runs it): key "".
    if (!asset.partitioning) {
      const rows = plan.runs.some((run) => run.partition === null && run.assets.includes(asset.qualifiedKey))
        ? await storedRows(asset)
        : null;
      counts[asset.qualifiedKey] = rows === null ? keyedTable() : Object.assign(keyedTable<number>(), { "": rows });
      continue;
    }
    const stored = await asset.partitionRowCounts();
    const replaced = keyedTable<number>();
    for (const [key, rows] of Object.entries(stored)) if (keys.has(key)) replaced[key] = rows;
    counts[asset.qualifiedKey] = replaced;
  }
  return counts;
}
