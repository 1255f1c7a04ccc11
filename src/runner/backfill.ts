import { randomUUID } from "node:crypto";
import type { Asset } from "../asset/asset.js";
import type { DAG } from "../dag/dag.js";
import { errorInfo } from "../asset/events.js";
import { ConfigError, PartitionError } from "../errors.js";
import { Partition, type PartitionWindow } from "../partitioning/index.js";
import type { FieldSpec } from "../schema/index.js";
import { RunControl } from "./attempt.js";
import { runPartitionInChild, type ChildProcessOptions } from "./child-run.js";
import { emitter } from "./events.js";
import { Limiter } from "./limiter.js";
import type { ExecutionStatus, RunResult } from "./run-result.js";
import { checkLimits } from "./limits.js";
import { checkRunWindow, materializeDag, selectAssets, type RunOptions } from "./run.js";
import { watchRun } from "./watchdog.js";

/** Options of `il.backfill`. */
export interface BackfillOptions extends Omit<RunOptions, "runId" | "backfillId"> {
  /** Which end of the window runs first (default "newest": recent data lands first). */
  readonly order?: "newest" | "oldest";
  /** Only these partition keys of the window, e.g. those a previous backfill did not complete. */
  readonly only?: Iterable<string>;
  readonly backfillId?: string;
  /** Run each partition in a child process, at most this many at once (needs `childProcess`). */
  readonly processes?: number;
  /**
   * How children are started: the config file they load, a timeout per partition (else
   * `timeoutMs`). Each child gets `timeoutMs` and `graceMs` as its own limits.
   */
  readonly childProcess?: ChildProcessOptions;
}

/** What happened to one partition of a backfill. */
export interface PartitionOutcome {
  readonly key: string;
  readonly status: ExecutionStatus;
  /** The partition's run; absent when it was never started. */
  readonly result: RunResult | null;
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
    /** The run of the unpartitioned assets, which run once before the partitions. */
    readonly unpartitioned: RunResult | null,
    /** An error that failed the backfill as a whole: thrown outside every asset's run, so no partition could be blamed. */
    readonly runError: Error | null = null,
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
 * concurrency; unpartitioned assets run once, first.
 */
export async function backfill(dag: DAG, partitionOrWindow: PartitionWindow | Partition, options: BackfillOptions = {}): Promise<BackfillResult> {
  const window = partitionOrWindow instanceof Partition ? partitionOrWindow.window : partitionOrWindow;
  if (!window || typeof (window as PartitionWindow).partitions !== "object") throw new PartitionError(`backfill needs a window or a partition, got ${String(partitionOrWindow)}`);
  const selected = selectAssets(dag, options.assets);
  const partitioned = selected.filter((a) => a.partitioning);
  const unpartitioned = selected.filter((a) => !a.partitioning);
  const order = options.order ?? "newest";
  if (order !== "newest" && order !== "oldest") throw new ConfigError(`order must be "newest" or "oldest", got ${JSON.stringify(order)}`);
  const only = options.only ? new Set(options.only) : null;
  const inWindow = new Set(window.partitions.map((p) => p.key));
  const strays = only ? [...only].filter((key) => !inWindow.has(key)) : [];
  if (strays.length > 0) throw new PartitionError(`only: ${strays.slice(0, 5).join(", ")} ${strays.length === 1 ? "is" : "are"} not in the window ${String(window)}`);
  const ordered = [...window.partitions].filter((p) => !only || only.has(p.key));
  if (order === "newest") ordered.reverse();
  for (const partition of ordered) checkRunWindow(partitioned, partition);

  if (options.processes !== undefined && (!Number.isInteger(options.processes) || options.processes < 1)) {
    throw new ConfigError(`processes must be an integer of at least 1, got ${String(options.processes)}`);
  }
  if (options.processes && !options.childProcess) throw new ConfigError("processes needs childProcess.configPath: the config file each child process loads");
  checkLimits(options);
  const control = new RunControl(options.signal);
  const unwatch = watchRun(control);
  try {
    return await runPartitions(dag, window, ordered, partitioned, unpartitioned, options, control);
  } finally {
    unwatch();
    control.dispose();
  }
}

/** The backfill itself, once its window and options are checked; `control` stops it. */
async function runPartitions(
  dag: DAG,
  window: PartitionWindow,
  ordered: readonly Partition[],
  partitioned: readonly Asset[],
  unpartitioned: readonly Asset[],
  options: BackfillOptions,
  control: RunControl,
): Promise<BackfillResult> {
  const backfillId = options.backfillId ?? randomUUID();
  const emit = emitter(options.onEvent);
  const concurrency = options.processes ?? options.concurrency ?? 4;
  const limiter = new Limiter(concurrency);
  const schemas = new Map<string, readonly FieldSpec[] | null>();
  const failFast = options.failFast ?? true;
  const base = { backfillId, runId: backfillId, window: String(window) };
  const startedAt = Date.now();
  emit({ ...base, type: "backfill:started", time: new Date().toISOString(), partitions: ordered.map((p) => p.key), order: options.order ?? "newest" });

  // Runs deliver through the backfill's emitter, so subscribers see each event once.
  const runOptions = { ...options, onEvent: undefined, emit, backfillId, limiter, schemas, failFast, control } as const;
  const timeoutMs = options.childProcess?.timeoutMs ?? options.timeoutMs;
  const graceMs = options.childProcess?.graceMs ?? options.graceMs;
  const child = { ...options.childProcess!, ...(timeoutMs ? { timeoutMs } : {}), ...(graceMs !== undefined ? { graceMs } : {}), backfillId, emit, control };
  let stopped = false;
  let unpartitionedRun: RunResult | null = null;
  if (unpartitioned.length > 0) {
    unpartitionedRun = await materializeDag(dag, null, { ...runOptions, assets: unpartitioned });
    if (unpartitionedRun.status !== "completed" && failFast) stopped = true;
  }

  const outcomes = new Map<string, PartitionOutcome>();
  let next = 0;
  const worker = async () => {
    while (next < ordered.length) {
      const partition = ordered[next++]!;
      if (stopped || options.signal?.aborted || control.haltReason) {
        outcomes.set(partition.key, { key: partition.key, status: "canceled", result: null });
        continue;
      }
      const result =
        partitioned.length === 0
          ? null
          : options.processes
            ? await runPartitionInChild(partition.key, partitioned.map((a) => a.qualifiedKey), child)
            : await materializeDag(dag, partition, { ...runOptions, assets: partitioned });
      const status = result?.status ?? "completed";
      outcomes.set(partition.key, { key: partition.key, status, result });
      if (status === "failed" && failFast) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, ordered.length)) }, worker));

  const partitions = ordered.map((p) => outcomes.get(p.key)!);
  const statuses = partitions.map((p) => p.status).concat(unpartitionedRun ? [unpartitionedRun.status] : []);
  const status: ExecutionStatus =
    statuses.includes("failed") || control.error ? "failed" : statuses.includes("canceled") ? (options.signal?.aborted ? "canceled" : "failed") : "completed";
  const result = new BackfillResult(backfillId, status, String(window), Date.now() - startedAt, partitions, unpartitionedRun, control.error);
  emit({
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
