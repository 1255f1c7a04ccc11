import { randomUUID } from "node:crypto";
import type { Asset } from "../asset/asset.js";
import { errorInfo } from "../asset/events.js";
import { executeAsset, type Execution, type ExecuteOptions } from "../asset/execute.js";
import { resolveDependency, type AssetGraph } from "../asset/dependencies.js";
import { DestinationWriteError } from "../errors.js";
import type { PartitionWindow } from "../partitioning/index.js";
import type { FieldSpec } from "../schema/index.js";
import { AbandonedAttempt, Attempt, type RunControl } from "./attempt.js";
import { emitter, type EventHandler } from "./events.js";
import type { Limiter } from "./limiter.js";
import { RunResult, type AssetExecution, type ExecutionStatus } from "./run-result.js";
import { formatLimit, interruptName, RunLimits } from "./limits.js";
import type { RunInternals, RunOptions } from "./run.js";

// One run of assets over a window, as `runWindow` (run.ts) drives it: what it has settled, what
// it runs, why nothing more starts, and how one asset's attempt ends. runWindow owns what
// surrounds it (the control, the watchdog) and is left the order: start, schedule, finish.

type Settled = Omit<AssetExecution, "asset">;

/** The state of one run over a window, from its first event to its RunResult. */
export class WindowRun {
  readonly runId: string;
  readonly limits: RunLimits;
  private readonly emit: EventHandler;
  private readonly failFast: boolean;
  private readonly scope: { readonly runId: string; readonly backfillId?: string; readonly partition?: string };
  private readonly schemas: Map<string, readonly FieldSpec[] | null>;
  private readonly inRun: ReadonlySet<string>;
  private readonly results = new Map<string, AssetExecution>();
  private readonly running = new Set<string>();
  private readonly attempts = new Map<string, Attempt>();
  /** A failure stopped the run (failFast). */
  private stopped = false;

  constructor(
    private readonly dag: AssetGraph,
    private readonly selected: readonly Asset[],
    private readonly window: PartitionWindow | null,
    private readonly options: RunOptions & RunInternals,
    private readonly control: RunControl,
  ) {
    this.emit = options.emit ?? emitter(options.onEvent, options.events);
    this.failFast = options.failFast ?? true;
    this.runId = options.runId ?? randomUUID();
    this.scope = {
      runId: this.runId,
      ...(options.backfillId ? { backfillId: options.backfillId } : {}),
      ...(window ? { partition: String(window) } : {}),
    };
    this.schemas = options.schemas ?? new Map<string, readonly FieldSpec[] | null>();
    this.inRun = new Set(selected.map((a) => a.qualifiedKey));
    this.limits = new RunLimits(this.attempts, options, control);
  }

  /** Announces the run and queues its assets. */
  start(): void {
    this.emit({ ...this.scope, type: "run:started", time: now(), assets: this.selected.map((a) => a.qualifiedKey) });
    for (const asset of this.selected) this.emit({ ...this.scope, type: "asset:queued", time: now(), asset: asset.qualifiedKey });
  }

  /** Starts each asset once its dependencies in the run completed; settles when every asset has. */
  schedule(limiter: Limiter): Promise<void> {
    return new Promise<void>((resolve) => {
      const pump = () => {
        // Assets are in dependency order, so one pass cascades cancellations downstream.
        for (const asset of this.selected) {
          const key = asset.qualifiedKey;
          if (this.results.has(key) || this.running.has(key)) continue;
          const upstream = this.dag
            .dependencies(asset)
            .flatMap((d) => (d.asset && this.inRun.has(d.asset.qualifiedKey) ? [d.asset.qualifiedKey] : []));
          const broken = upstream.find((u) => this.results.get(u) && this.results.get(u)!.status !== "completed");
          if (broken) {
            this.cancel(asset, `its dependency "${broken}" ${this.results.get(broken)!.status === "failed" ? "failed" : "was canceled"}`);
          } else if (this.stopReason()) {
            this.cancel(asset, this.stopReason()!);
          } else if (upstream.every((u) => this.results.get(u)?.status === "completed")) {
            this.running.add(key);
            void limiter
              .run(() => this.execute(asset))
              .finally(() => {
                this.running.delete(key);
                pump();
              });
          }
        }
        if (this.results.size === this.selected.length) resolve();
      };
      pump();
    });
  }

  /** The run's result, announced; `runError` is an error outside every asset, which fails the run. */
  finish(startedAt: number, runError: Error | null): RunResult {
    const executions = Object.fromEntries(this.selected.map((a) => [a.qualifiedKey, this.results.get(a.qualifiedKey)!]));
    const statuses = Object.values(executions).map((e) => e.status);
    const status: ExecutionStatus =
      statuses.includes("failed") || runError
        ? "failed"
        : (this.options.signal?.aborted || this.control.haltReason !== null) && statuses.includes("canceled")
          ? "canceled"
          : statuses.includes("canceled")
            ? "failed"
            : "completed";
    const result = new RunResult({
      runId: this.runId,
      status,
      executionTime: Date.now() - startedAt,
      partitionOrWindow: this.window ? String(this.window) : null,
      assetExecutions: executions,
      runError,
    });
    this.emit({
      ...this.scope,
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

  /** Why nothing more starts, once something stopped the run. */
  private stopReason(): string | null {
    const { signal, timeoutMs } = this.options;
    if (signal?.aborted) return "the run was interrupted";
    if (this.limits.timedOut) return `the run timed out after ${formatLimit(timeoutMs!)}`;
    if (this.control.haltReason) return `the run stopped: ${this.control.haltReason}`;
    return this.stopped ? "the run stopped after a failure (failFast)" : null;
  }

  private settle(asset: Asset, execution: Settled): void {
    this.results.set(asset.qualifiedKey, { asset: asset.qualifiedKey, ...execution });
  }

  private cancel(asset: Asset, reason: string): void {
    this.settle(asset, {
      status: "canceled",
      startTime: null,
      endTime: null,
      error: new Error(reason),
      rows: null,
      written: [],
      failedDestinations: [],
    });
    this.emit({ ...this.scope, type: "asset:canceled", time: now(), asset: asset.qualifiedKey, reason });
  }

  /** Runs one asset (unless the run stopped meanwhile) and settles how it ended. */
  private async execute(asset: Asset): Promise<void> {
    const reason = this.stopReason();
    if (reason) {
      this.cancel(asset, reason);
      return;
    }
    const key = asset.qualifiedKey;
    const startTime = new Date();
    this.emit({ ...this.scope, type: "asset:started", time: startTime.toISOString(), asset: key });
    const attempt = new Attempt(key, this.window ? String(this.window) : null, this.control);
    this.attempts.set(key, attempt);
    try {
      const execution: Execution = await attempt.watch(() => executeAsset(asset, this.window, this.executeOptions(attempt)));
      const endTime = new Date();
      this.settle(asset, {
        status: "completed",
        startTime,
        endTime,
        error: null,
        rows: execution.rows,
        written: execution.written,
        failedDestinations: [],
      });
      this.emit({
        ...this.scope,
        type: "asset:completed",
        time: endTime.toISOString(),
        asset: key,
        rows: execution.rows,
        durationMs: endTime.getTime() - startTime.getTime(),
      });
    } catch (caught) {
      this.settleFailure(asset, attempt, caught, startTime);
    } finally {
      this.attempts.delete(key);
    }
  }

  private executeOptions(attempt: Attempt): ExecuteOptions {
    const { dag, options } = this;
    return {
      runId: this.runId,
      write: true,
      emit: attempt.observe(this.emit),
      schemas: this.schemas,
      // the graph resolved every declared dependency; resolving again only words an undeclared name
      resolve: (a, name) => dag.dependencies(a).find((d) => d.name === name) ?? resolveDependency(a, name, dag.assets, "the DAG"),
      ...(options.backfillId ? { backfillId: options.backfillId } : {}),
      signal: attempt.signal,
      abandoned: attempt.abandoned,
      ...(options.beforeWrite ? { beforeWrite: options.beforeWrite } : {}),
    };
  }

  /** Settles an asset whose attempt threw: abandoned by a limit, stopped by the interrupt, or failed. */
  private settleFailure(asset: Asset, attempt: Attempt, caught: unknown, startTime: Date): void {
    const key = asset.qualifiedKey;
    const endTime = new Date();
    const durationMs = endTime.getTime() - startTime.getTime();
    const time = endTime.toISOString();
    if (caught instanceof AbandonedAttempt) {
      const { status, error } = caught.outcome;
      this.settle(asset, { status, startTime, endTime, error, rows: null, written: attempt.written, failedDestinations: [] });
      if (status === "failed") this.emit({ ...this.scope, type: "asset:failed", time, asset: key, error: errorInfo(error), durationMs });
      else this.emit({ ...this.scope, type: "asset:canceled", time, asset: key, reason: error.message, durationMs });
      if (status === "failed" && this.failFast) this.stopped = true;
      return;
    }
    const error = caught instanceof Error ? caught : new Error(String(caught));
    const { signal } = this.options;
    if (signal?.aborted && isAbort(error, signal)) {
      // It stopped on the interrupt, as asked: canceled, not failed.
      const reason = `abandoned: interrupted by ${interruptName(signal)}`;
      const cause = new Error(reason, { cause: error });
      this.settle(asset, {
        status: "canceled",
        startTime,
        endTime,
        error: cause,
        rows: null,
        written: attempt.written,
        failedDestinations: [],
      });
      this.emit({ ...this.scope, type: "asset:canceled", time, asset: key, reason, durationMs });
      return;
    }
    const writes = error instanceof DestinationWriteError ? error : null;
    this.settle(asset, {
      status: "failed",
      startTime,
      endTime,
      error,
      rows: null,
      written: writes?.written ?? [],
      failedDestinations: writes?.failedDestinations ?? [],
    });
    this.emit({ ...this.scope, type: "asset:failed", time, asset: key, error: errorInfo(error), durationMs });
    if (this.failFast) this.stopped = true;
  }
}

const now = () => new Date().toISOString();

/** Whether an error is the interrupt itself (its reason, or an AbortError), wrapped or not. */
function isAbort(error: unknown, signal: AbortSignal): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e === signal.reason || (e as { name?: unknown }).name === "AbortError") return true;
  }
  return false;
}
