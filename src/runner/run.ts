import type { Asset } from "../asset/asset.js";
import type { AssetGraph } from "../asset/dependencies.js";
import type { Partition, PartitionWindow } from "../partitioning/index.js";
import type { FieldSpec } from "../schema/index.js";
import { RunControl } from "./attempt.js";
import { checkRunWindow, selectAssets } from "./run-scope.js";
import type { EventHandler, RunEvents } from "./events.js";
import { Limiter } from "./limiter.js";
import type { RunResult } from "./run-result.js";
import { checkLimits } from "./limits.js";
import { watchRun } from "./watchdog.js";
import { WindowRun } from "./window-run.js";

export { checkRunWindow, selectAssets };

/** Options of `dag.materialize`. */
export interface RunOptions {
  /** How many assets may execute at once (default 4). */
  readonly concurrency?: number;
  /** Stop scheduling on the first failure (default true). Dependents of a failure are always canceled. */
  readonly failFast?: boolean;
  readonly onEvent?: EventHandler;
  /** The run's own channel of events: what subscribes there hears this run and no other. */
  readonly events?: RunEvents;
  /** Only these assets (qualified or bare keys); the others are read from storage when needed. */
  readonly assets?: readonly (string | Asset)[];
  readonly runId?: string;
  readonly backfillId?: string;
  /** Aborting stops scheduling; running assets see it on `context.signal`. */
  readonly signal?: AbortSignal;
  /**
   * A limit on the run, from its start: assets still running then fail ("timed out after 30s",
   * naming the destination when a write hung); their `context.signal` is aborted, the run stops
   * waiting for them, and nothing more of theirs is written.
   */
  readonly timeoutMs?: number;
  /**
   * After `signal` aborts, how long running assets may take to finish; those still running then
   * are abandoned (canceled, nothing more of theirs written). Unset: as long as they take.
   */
  readonly graceMs?: number;
}

/** Internal extras a backfill passes to its runs. */
export interface RunInternals {
  readonly limiter?: Limiter;
  readonly schemas?: Map<string, readonly FieldSpec[] | null>;
  /** An emitter that already reaches the subscribers. */
  readonly emit?: EventHandler;
  /** The backfill's control, so that stopping it stops its runs; a run alone makes its own. */
  readonly control?: RunControl;
  /** Awaited before each destination write (see `ExecuteOptions.beforeWrite`). */
  readonly beforeWrite?: () => Promise<void>;
}

/** Materializes a DAG over one window: assets start as soon as their dependencies complete. */
export async function materializeDag(
  dag: AssetGraph,
  partitionOrWindow: PartitionWindow | Partition | null | undefined,
  options: RunOptions & RunInternals = {},
): Promise<RunResult> {
  const selected = selectAssets(dag, options.assets);
  return runWindow(dag, selected, checkRunWindow(selected, partitionOrWindow), options);
}

/**
 * One run of assets already selected (in dependency order) over a window already checked
 * against them: what a plan's run, or a backfill's slot, executes.
 */
export async function runWindow(
  dag: AssetGraph,
  selected: readonly Asset[],
  window: PartitionWindow | null,
  options: RunOptions & RunInternals = {},
): Promise<RunResult> {
  checkLimits(options);
  const limiter = options.limiter ?? new Limiter(options.concurrency ?? 4);
  const startedAt = Date.now();
  // A backfill's runs share its control and its watch; a run alone makes and watches its own.
  const control = options.control ?? new RunControl(options.signal);
  const unwatch = options.control ? null : watchRun(control);
  const run = new WindowRun(dag, selected, window, options, control);
  run.start();
  await run.schedule(limiter);
  run.limits.dispose();
  if (unwatch) {
    unwatch();
    control.dispose();
  }
  // An error outside every asset fails a run alone; inside a backfill it fails the backfill.
  return run.finish(startedAt, unwatch ? control.error : null);
}
