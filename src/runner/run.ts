import { randomUUID } from "node:crypto";
import type { Asset } from "../asset/asset.js";
import { errorInfo } from "../asset/events.js";
import { executeAsset, type Execution } from "../asset/execute.js";
import { resolveDependency, type AssetGraph } from "../asset/dependencies.js";
import { DestinationWriteError } from "../errors.js";
import type { Partition, PartitionWindow } from "../partitioning/index.js";
import type { FieldSpec } from "../schema/index.js";
import { AbandonedAttempt, Attempt, RunControl } from "./attempt.js";
import { checkRunWindow, selectAssets } from "./run-scope.js";
import { emitter, type EventHandler, type RunEvents } from "./events.js";
import { Limiter } from "./limiter.js";
import { RunResult, type AssetExecution, type ExecutionStatus } from "./run-result.js";
import { checkLimits, formatLimit, interruptName, RunLimits } from "./limits.js";
import { defaultRunContext, type RunContext } from "./context.js";

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
  /** The session's state the run shares (listeners, attempts, watchdog); the default one when unset. */
  readonly context?: RunContext;
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
  const context = options.context ?? defaultRunContext;
  const emit = options.emit ?? emitter(options.onEvent, options.events, context.listeners);
  const limiter = options.limiter ?? new Limiter(options.concurrency ?? 4);
  const failFast = options.failFast ?? true;
  const runId = options.runId ?? randomUUID();
  const scope = {
    runId,
    ...(options.backfillId ? { backfillId: options.backfillId } : {}),
    ...(window ? { partition: String(window) } : {}),
  };
  const now = () => new Date().toISOString();
  const schemas = options.schemas ?? new Map<string, readonly FieldSpec[] | null>();
  const inRun = new Set(selected.map((a) => a.qualifiedKey));
  const results = new Map<string, AssetExecution>();
  const running = new Set<string>();
  const startedAt = Date.now();
  let stopped = false;
  const control = options.control ?? new RunControl(options.signal);
  const unwatch = options.control ? null : context.watchdog.watch(control);
  const attempts = new Map<string, Attempt>();
  const limits = new RunLimits(attempts, options, control);

  /** Why nothing more starts, once something stopped the run. */
  const stopReason = (): string | null =>
    options.signal?.aborted
      ? "the run was interrupted"
      : limits.timedOut
        ? `the run timed out after ${formatLimit(options.timeoutMs!)}`
        : control.haltReason
          ? `the run stopped: ${control.haltReason}`
          : stopped
            ? "the run stopped after a failure (failFast)"
            : null;

  emit({ ...scope, type: "run:started", time: now(), assets: selected.map((a) => a.qualifiedKey) });
  for (const asset of selected) emit({ ...scope, type: "asset:queued", time: now(), asset: asset.qualifiedKey });

  const settle = (asset: Asset, execution: Omit<AssetExecution, "asset">) => {
    results.set(asset.qualifiedKey, { asset: asset.qualifiedKey, ...execution });
  };
  const cancel = (asset: Asset, reason: string) => {
    settle(asset, {
      status: "canceled",
      startTime: null,
      endTime: null,
      error: new Error(reason),
      rows: null,
      written: [],
      failedDestinations: [],
    });
    emit({ ...scope, type: "asset:canceled", time: now(), asset: asset.qualifiedKey, reason });
  };

  const execute = async (asset: Asset): Promise<void> => {
    const reason = stopReason();
    if (reason) {
      cancel(asset, reason);
      return;
    }
    const key = asset.qualifiedKey;
    const startTime = new Date();
    emit({ ...scope, type: "asset:started", time: startTime.toISOString(), asset: key });
    const attempt = new Attempt(key, window ? String(window) : null, control, context.attempts);
    attempts.set(key, attempt);
    try {
      const execution: Execution = await attempt.watch(() =>
        executeAsset(asset, window, {
          runId,
          write: true,
          emit: attempt.observe(emit),
          schemas,
          // the graph resolved every declared dependency; resolving again only words an undeclared name
          resolve: (a, name) => dag.dependencies(a).find((d) => d.name === name) ?? resolveDependency(a, name, dag.assets, "the DAG"),
          ...(options.backfillId ? { backfillId: options.backfillId } : {}),
          signal: attempt.signal,
          abandoned: attempt.abandoned,
          ...(options.beforeWrite ? { beforeWrite: options.beforeWrite } : {}),
        }),
      );
      const endTime = new Date();
      settle(asset, {
        status: "completed",
        startTime,
        endTime,
        error: null,
        rows: execution.rows,
        written: execution.written,
        failedDestinations: [],
      });
      emit({
        ...scope,
        type: "asset:completed",
        time: endTime.toISOString(),
        asset: key,
        rows: execution.rows,
        durationMs: endTime.getTime() - startTime.getTime(),
      });
    } catch (caught) {
      const endTime = new Date();
      const durationMs = endTime.getTime() - startTime.getTime();
      if (caught instanceof AbandonedAttempt) {
        const { status, error } = caught.outcome;
        settle(asset, { status, startTime, endTime, error, rows: null, written: attempt.written, failedDestinations: [] });
        if (status === "failed")
          emit({ ...scope, type: "asset:failed", time: endTime.toISOString(), asset: key, error: errorInfo(error), durationMs });
        else emit({ ...scope, type: "asset:canceled", time: endTime.toISOString(), asset: key, reason: error.message, durationMs });
        if (status === "failed" && failFast) stopped = true;
        return;
      }
      const error = caught instanceof Error ? caught : new Error(String(caught));
      if (options.signal?.aborted && isAbort(error, options.signal)) {
        // It stopped on the interrupt, as asked: canceled, not failed.
        const reason = `abandoned: interrupted by ${interruptName(options.signal)}`;
        settle(asset, {
          status: "canceled",
          startTime,
          endTime,
          error: new Error(reason, { cause: error }),
          rows: null,
          written: attempt.written,
          failedDestinations: [],
        });
        emit({ ...scope, type: "asset:canceled", time: endTime.toISOString(), asset: key, reason, durationMs });
        return;
      }
      const writes = error instanceof DestinationWriteError ? error : null;
      settle(asset, {
        status: "failed",
        startTime,
        endTime,
        error,
        rows: null,
        written: writes?.written ?? [],
        failedDestinations: writes?.failedDestinations ?? [],
      });
      emit({ ...scope, type: "asset:failed", time: endTime.toISOString(), asset: key, error: errorInfo(error), durationMs });
      if (failFast) stopped = true;
    } finally {
      attempts.delete(key);
    }
  };

  await new Promise<void>((resolve) => {
    const pump = () => {
      // Assets are in dependency order, so one pass cascades cancellations downstream.
      for (const asset of selected) {
        const key = asset.qualifiedKey;
        if (results.has(key) || running.has(key)) continue;
        const upstream = dag.dependencies(asset).flatMap((d) => (d.asset && inRun.has(d.asset.qualifiedKey) ? [d.asset.qualifiedKey] : []));
        const broken = upstream.find((u) => results.get(u) && results.get(u)!.status !== "completed");
        if (broken) {
          cancel(asset, `its dependency "${broken}" ${results.get(broken)!.status === "failed" ? "failed" : "was canceled"}`);
        } else if (stopReason()) {
          cancel(asset, stopReason()!);
        } else if (upstream.every((u) => results.get(u)?.status === "completed")) {
          running.add(key);
          void limiter
            .run(() => execute(asset))
            .finally(() => {
              running.delete(key);
              pump();
            });
        }
      }
      if (results.size === selected.length) resolve();
    };
    pump();
  });

  limits.dispose();
  if (unwatch) {
    unwatch();
    control.dispose();
  }

  const executions = Object.fromEntries(selected.map((a) => [a.qualifiedKey, results.get(a.qualifiedKey)!]));
  const statuses = Object.values(executions).map((e) => e.status);
  // An error outside every asset fails a run alone; inside a backfill it fails the backfill.
  const runError = unwatch ? control.error : null;
  const status: ExecutionStatus =
    statuses.includes("failed") || runError
      ? "failed"
      : (options.signal?.aborted || control.haltReason !== null) && statuses.includes("canceled")
        ? "canceled"
        : statuses.includes("canceled")
          ? "failed"
          : "completed";
  const result = new RunResult({
    runId,
    status,
    executionTime: Date.now() - startedAt,
    partitionOrWindow: window ? String(window) : null,
    assetExecutions: executions,
    runError,
  });
  emit({
    ...scope,
    type: `run:${status}`,
    time: now(),
    durationMs: result.executionTime,
    completed: result.completedAssets,
    failed: result.failedAssets,
    canceled: result.canceledAssets,
    ...(runError ? { error: errorInfo(runError) } : {}),
  });
  return result;
}

/** Whether an error is the interrupt itself (its reason, or an AbortError), wrapped or not. */
function isAbort(error: unknown, signal: AbortSignal): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e === signal.reason || (e as { name?: unknown }).name === "AbortError") return true;
  }
  return false;
}
