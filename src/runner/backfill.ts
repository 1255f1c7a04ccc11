import { randomUUID } from "node:crypto";
import type { AssetGraph } from "../asset/dependencies.js";
import { errorInfo } from "../asset/events.js";
import { ConfigError, PartitionError } from "../errors.js";
import { Partition, type PartitionWindow } from "../partitioning/index.js";
import type { FieldSpec } from "../schema/index.js";
import { RunControl } from "./attempt.js";
import { emitter, type EventHandler } from "./events.js";
import { Limiter } from "./limiter.js";
import type { ExecutionStatus, RunResult } from "./run-result.js";
import { checkLimits } from "./limits.js";
import { checkOrder, planExecution } from "./plan.js";
import { selectAssets, type RunInternals, type RunOptions } from "./run.js";
import { SlotRunner } from "./slot-runner.js";
import type { Stage, WaitingPartition } from "./stages.js";
import { defaultRunContext, type RunContext } from "./context.js";
import { WorkerPool, type ChildProcessOptions, type PoolContext } from "./pool/worker-pool.js";

/** Options of `il.backfill`. */
export interface BackfillOptions extends Omit<RunOptions, "runId" | "backfillId"> {
  /** Which end of the window runs first (default "newest": recent data lands first). */
  readonly order?: "newest" | "oldest";
  /** Only these partition keys of the window, e.g. those a previous backfill did not complete. */
  readonly only?: Iterable<string>;
  readonly backfillId?: string;
  /** Run each partition in a worker process, at most this many at once (needs `childProcess`). */
  readonly processes?: number;
  /**
   * How worker processes are started: the config file they load (once each), a timeout per
   * partition (else `timeoutMs`). Each partition's run gets `timeoutMs` and `graceMs` as its
   * own limits.
   */
  readonly childProcess?: ChildProcessOptions;
}

/** An asset's partition left unrun because what it reads did not complete in this backfill. */
export interface NotRunPartition {
  readonly asset: string;
  readonly partition: string | null;
  /** "its dependency \"shop.orders\" 2026-01-15 failed", or "... was skipped" when what it read was not run either */
  readonly reason: string;
}

/** What happened to one partition of a backfill. */
export interface PartitionOutcome {
  readonly key: string;
  readonly status: ExecutionStatus;
  /** The partition's run; absent when it was never started. */
  readonly result: RunResult | null;
  /** The assets planned over it (the run's, and those left unrun), in dependency order. */
  readonly assets: readonly string[];
}

/** The outcome of a backfill: one run per partition, plus one for the unpartitioned assets. */
export class BackfillResult {
  constructor(
    readonly backfillId: string,
    readonly status: ExecutionStatus,
    readonly window: string,
    readonly executionTime: number,
    /** In dispatch order. */
    readonly partitions: readonly PartitionOutcome[],
    /** The run of the unpartitioned assets, which run once (before the partitions, unless they read them). */
    readonly unpartitioned: RunResult | null,
    /** An error that failed the backfill as a whole: thrown outside every asset's run, so no partition could be blamed. */
    readonly runError: Error | null = null,
    /** Assets' partitions not run because the upstream partitions they read are not stored. */
    readonly waiting: readonly WaitingPartition[] = [],
    /** Assets' partitions not run because an upstream partition of this backfill did not complete. */
    readonly notRun: readonly NotRunPartition[] = [],
  ) {
    Object.freeze(this);
  }

  get completedPartitions(): string[] {
    return this.partitions.filter((p) => p.status === "completed").map((p) => p.key);
  }

  get failedPartitions(): string[] {
    return this.partitions.filter((p) => p.status === "failed").map((p) => p.key);
  }

  get canceledPartitions(): string[] {
    return this.partitions.filter((p) => p.status === "canceled").map((p) => p.key);
  }

  /** Canceled partitions that were running when the backfill stopped waiting for them. */
  get abandonedPartitions(): string[] {
    return this.partitions.filter((p) => p.status === "canceled" && (p.result?.abandonedAssets.length ?? 0) > 0).map((p) => p.key);
  }

  /** The partitions to pass as `only` to re-run what did not complete. */
  get incompletePartitions(): string[] {
    return this.partitions.filter((p) => p.status !== "completed").map((p) => p.key);
  }
}

/**
 * Materializes a window one partition per run, newest first by default, with bounded
 * concurrency; unpartitioned assets run once, first (after the values of a list asset they
 * read). Assets that read other partitions than their own (a month its days) run after those
 * partitions, or wait for them (see `runStages`).
 */
export async function backfill(
  dag: AssetGraph,
  partitionOrWindow: PartitionWindow | Partition,
  options: BackfillOptions = {},
): Promise<BackfillResult> {
  const window = partitionOrWindow instanceof Partition ? partitionOrWindow.window : partitionOrWindow;
  if (!window || typeof (window as PartitionWindow).partitions !== "object")
    throw new PartitionError(`backfill needs a window or a partition, got ${String(partitionOrWindow)}`);
  const selected = selectAssets(dag, options.assets);
  const order = checkOrder(options.order);
  const only = options.only ? new Set(options.only) : undefined;
  const inWindow = new Set(window.partitions.map((p) => p.key));
  const strays = only ? [...only].filter((key) => !inWindow.has(key)) : [];
  if (strays.length > 0)
    throw new PartitionError(
      `only: ${strays.slice(0, 5).join(", ")} ${strays.length === 1 ? "is" : "are"} not in the window ${String(window)}`,
    );
  const plan = planExecution(dag, selected, window, { order, ...(only ? { only } : {}), perPartition: true });
  return runStages(dag, plan.schedule, { ...options, window: String(window) });
}

/** Options of `runStages`: a backfill's, and how to name the whole of what runs. */
export interface StagedOptions extends BackfillOptions, Pick<RunInternals, "context"> {
  /** The range the stages cover, as events and the result name it. */
  readonly window: string;
}

/**
 * Runs stages of slots (see stages.ts), each slot one run (or one child process), at most
 * `concurrency` at once; a stage starts when the one before has settled. A slot's asset whose
 * upstream partitions this backfill ran without completing is canceled, and one whose
 * upstream partitions are neither run nor stored waits: it is not run, and listed in
 * `waiting`.
 */
export async function runStages(dag: AssetGraph, stages: readonly Stage[], options: StagedOptions): Promise<BackfillResult> {
  checkOrder(options.order);
  if (options.processes !== undefined && (!Number.isInteger(options.processes) || options.processes < 1)) {
    throw new ConfigError(`processes must be an integer of at least 1, got ${String(options.processes)}`);
  }
  if (options.processes && !options.childProcess)
    throw new ConfigError("processes needs childProcess.configPath: the config file each child process loads");
  checkLimits(options);
  const control = new RunControl(options.signal);
  const context = options.context ?? defaultRunContext;
  const unwatch = context.watchdog.watch(control);
  try {
    return await runSlots(dag, stages, { ...options, context }, control);
  } finally {
    unwatch();
    control.dispose();
  }
}

/** A backfill's options once its session's context is known. */
type InContext = StagedOptions & { readonly context: RunContext };

/** The backfill itself, once its stages and options are checked; `control` stops it. */
async function runSlots(dag: AssetGraph, stages: readonly Stage[], options: InContext, control: RunControl): Promise<BackfillResult> {
  const backfillId = options.backfillId ?? randomUUID();
  const emit = emitter(options.onEvent, options.events, options.context.listeners);
  const concurrency = options.processes ?? options.concurrency ?? 4;
  const failFast = options.failFast ?? false;
  const base = { backfillId, runId: backfillId, window: options.window };
  const startedAt = Date.now();
  const keys = stages.flatMap((stage) => stage.flatMap((slot) => (slot.partition ? [slot.partition.key] : [])));
  emit({ ...base, type: "backfill:started", time: new Date().toISOString(), partitions: keys, order: options.order ?? "newest" });

  // Runs deliver through the backfill's emitter, so subscribers see each event once. They share
  // one limiter (assets at once across the backfill) and the schemas they infer.
  const { window: _window, onEvent: _onEvent, ...backfillOptions } = options;
  const limiter = new Limiter(concurrency);
  const schemas = new Map<string, readonly FieldSpec[] | null>();
  const runOptions = { ...backfillOptions, emit, backfillId, limiter, schemas, failFast, control } as const;
  const pool = options.processes ? startPool(options, { backfillId, emit, control, failFast }) : null;
  const slots = new SlotRunner(dag, { base, emit, concurrency, failFast, signal: options.signal, control, pool, runOptions });
  try {
    await slots.run(stages);
  } finally {
    await pool?.close();
  }
  return summarize(slots, { base, emit, control, signal: options.signal, executionTime: Date.now() - startedAt });
}

/** The process pool of a backfill with `processes`: each partition's run gets the backfill's limits unless the pool has its own. */
function startPool(options: InContext, backfill: Pick<PoolContext, "backfillId" | "emit" | "control" | "failFast">): WorkerPool {
  const timeoutMs = options.childProcess?.timeoutMs ?? options.timeoutMs;
  const graceMs = options.childProcess?.graceMs ?? options.graceMs;
  return new WorkerPool(
    { ...options.childProcess!, ...(timeoutMs ? { timeoutMs } : {}), ...(graceMs !== undefined ? { graceMs } : {}) },
    { ...backfill, concurrency: options.concurrency ?? 4, workers: options.context.workers },
  );
}

/**
 * The backfill's result once its slots have settled, announced by its last event. Canceled
 * partitions fail it unless the backfill was aborted: then they are what the abort left.
 */
function summarize(
  slots: SlotRunner,
  end: {
    readonly base: { readonly backfillId: string; readonly runId: string; readonly window: string };
    readonly emit: EventHandler;
    readonly control: RunControl;
    readonly signal: AbortSignal | undefined;
    readonly executionTime: number;
  },
): BackfillResult {
  const { base, control } = end;
  const statuses = slots.partitions.map((p) => p.status).concat(slots.unpartitioned ? [slots.unpartitioned.status] : []);
  const status: ExecutionStatus =
    statuses.includes("failed") || control.error
      ? "failed"
      : statuses.includes("canceled")
        ? end.signal?.aborted
          ? "canceled"
          : "failed"
        : "completed";
  const result = new BackfillResult(
    base.backfillId,
    status,
    base.window,
    end.executionTime,
    slots.partitions,
    slots.unpartitioned?.result ?? null,
    control.error,
    slots.waiting,
    slots.notRun,
  );
  end.emit({
    ...base,
    type: `backfill:${status}`,
    time: new Date().toISOString(),
    durationMs: result.executionTime,
    completed: result.completedPartitions,
    failed: result.failedPartitions,
    canceled: result.canceledPartitions,
    ...(control.error ? { error: errorInfo(control.error) } : {}),
  });
  return result;
}
