import { randomUUID } from "node:crypto";
import type { Asset } from "../asset/asset.js";
import { errorInfo } from "../asset/events.js";
import { executeAsset, type Execution } from "../asset/execute.js";
import type { DAG } from "../dag/dag.js";
import { ConfigError, PartitionError } from "../errors.js";
import { Partition, type PartitionWindow } from "../partitioning/index.js";
import type { FieldSpec } from "../schema/index.js";
import { emitter, type EventHandler } from "./events.js";
import { Limiter } from "./limiter.js";
import { RunResult, type AssetExecution, type ExecutionStatus } from "./run-result.js";

/** Options of `dag.materialize`. */
export interface RunOptions {
  /** How many assets may execute at once (default 4). */
  readonly concurrency?: number;
  /** Stop scheduling on the first failure (default true). Dependents of a failure are always canceled. */
  readonly failFast?: boolean;
  readonly onEvent?: EventHandler;
  /** Only these assets (qualified or bare keys); the others are read from storage when needed. */
  readonly assets?: readonly (string | Asset)[];
  readonly runId?: string;
  readonly backfillId?: string;
  /** Aborting stops scheduling; running assets see it on `context.signal`. */
  readonly signal?: AbortSignal;
}

/** Internal extras a backfill passes to its runs. */
export interface RunInternals {
  readonly limiter?: Limiter;
  readonly schemas?: Map<string, readonly FieldSpec[] | null>;
  /** An emitter that already reaches the subscribers. */
  readonly emit?: EventHandler;
}

/** The assets a run covers: the selection, or every materializable asset. */
export function selectAssets(dag: DAG, selection?: readonly (string | Asset)[]): Asset[] {
  if (!selection) return dag.assets.filter((a) => a.materializable);
  const chosen = new Set<string>();
  for (const item of selection) {
    const asset = typeof item === "string" ? dag.find(item) : item;
    if (!asset || !dag.assets.includes(asset)) throw new ConfigError(`no asset "${typeof item === "string" ? item : item.qualifiedKey}" in the DAG`);
    if (!asset.materializable) throw new ConfigError(`asset "${asset.qualifiedKey}" is not materializable`);
    chosen.add(asset.qualifiedKey);
  }
  return dag.assets.filter((a) => chosen.has(a.qualifiedKey));
}

/**
 * Checks a run's window against every selected asset before anything executes, listing every
 * asset that cannot serve it in one PartitionError. Returns the window (null when none is given).
 */
export function checkRunWindow(assets: readonly Asset[], partitionOrWindow: PartitionWindow | Partition | null | undefined): PartitionWindow | null {
  const window = partitionOrWindow instanceof Partition ? partitionOrWindow.window : (partitionOrWindow ?? null);
  const problems: string[] = [];
  for (const asset of assets) {
    if (!asset.partitioning) continue;
    if (!window) {
      problems.push(`asset "${asset.qualifiedKey}" is partitioned by "${asset.partitioning.column}" but no partition or window was given`);
      continue;
    }
    try {
      asset.partitioning.check(window, asset.qualifiedKey);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length === 1) throw new PartitionError(problems[0]!);
  if (problems.length > 1) throw new PartitionError(`${problems.length} assets cannot run this window: ${problems.join("; ")}`);
  return window;
}

/** Materializes a DAG over one window: assets start as soon as their dependencies complete. */
export async function materializeDag(dag: DAG, partitionOrWindow: PartitionWindow | Partition | null | undefined, options: RunOptions & RunInternals = {}): Promise<RunResult> {
  const selected = selectAssets(dag, options.assets);
  const window = checkRunWindow(selected, partitionOrWindow);
  const emit = options.emit ?? emitter(options.onEvent);
  const limiter = options.limiter ?? new Limiter(options.concurrency ?? 4);
  const failFast = options.failFast ?? true;
  const runId = options.runId ?? randomUUID();
  const scope = { runId, ...(options.backfillId ? { backfillId: options.backfillId } : {}), ...(window ? { partition: String(window) } : {}) };
  const now = () => new Date().toISOString();
  const schemas = options.schemas ?? new Map<string, readonly FieldSpec[] | null>();
  const inRun = new Set(selected.map((a) => a.qualifiedKey));
  const results = new Map<string, AssetExecution>();
  const running = new Set<string>();
  const startedAt = Date.now();
  let stopped = false;

  emit({ ...scope, type: "run:started", time: now(), assets: selected.map((a) => a.qualifiedKey) });
  for (const asset of selected) emit({ ...scope, type: "asset:queued", time: now(), asset: asset.qualifiedKey });

  const settle = (asset: Asset, execution: Omit<AssetExecution, "asset">) => {
    results.set(asset.qualifiedKey, { asset: asset.qualifiedKey, ...execution });
  };
  const cancel = (asset: Asset, reason: string) => {
    settle(asset, { status: "canceled", startTime: null, endTime: null, error: new Error(reason), rows: null, written: [], failedDestinations: [] });
    emit({ ...scope, type: "asset:canceled", time: now(), asset: asset.qualifiedKey, reason });
  };

  const execute = async (asset: Asset): Promise<void> => {
    if (stopped || options.signal?.aborted) {
      cancel(asset, options.signal?.aborted ? "the run was interrupted" : "the run stopped after a failure (failFast)");
      return;
    }
    const startTime = new Date();
    emit({ ...scope, type: "asset:started", time: startTime.toISOString(), asset: asset.qualifiedKey });
    try {
      const execution: Execution = await executeAsset(asset, window, {
        runId, write: true, emit, schemas,
        resolve: (a, name) => dag.resolve(a, name),
        ...(options.backfillId ? { backfillId: options.backfillId } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const endTime = new Date();
      settle(asset, { status: "completed", startTime, endTime, error: null, rows: execution.rows, written: execution.written, failedDestinations: [] });
      emit({ ...scope, type: "asset:completed", time: endTime.toISOString(), asset: asset.qualifiedKey, rows: execution.rows, durationMs: endTime.getTime() - startTime.getTime() });
    } catch (caught) {
      const error = caught instanceof Error ? caught : new Error(String(caught));
      const endTime = new Date();
      const detail = error as { written?: string[]; failedDestinations?: string[] };
      settle(asset, { status: "failed", startTime, endTime, error, rows: null, written: detail.written ?? [], failedDestinations: detail.failedDestinations ?? [] });
      emit({ ...scope, type: "asset:failed", time: endTime.toISOString(), asset: asset.qualifiedKey, error: errorInfo(error), durationMs: endTime.getTime() - startTime.getTime() });
      if (failFast) stopped = true;
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
        } else if (stopped || options.signal?.aborted) {
          cancel(asset, options.signal?.aborted ? "the run was interrupted" : "the run stopped after a failure (failFast)");
        } else if (upstream.every((u) => results.get(u)?.status === "completed")) {
          running.add(key);
          void limiter.run(() => execute(asset)).finally(() => {
            running.delete(key);
            pump();
          });
        }
      }
      if (results.size === selected.length) resolve();
    };
    pump();
  });

  const executions = Object.fromEntries(selected.map((a) => [a.qualifiedKey, results.get(a.qualifiedKey)!]));
  const statuses = Object.values(executions).map((e) => e.status);
  const status: ExecutionStatus = statuses.includes("failed") ? "failed" : options.signal?.aborted && statuses.includes("canceled") ? "canceled" : statuses.includes("canceled") ? "failed" : "completed";
  const result = new RunResult({ runId, status, executionTime: Date.now() - startedAt, partitionOrWindow: window ? String(window) : null, assetExecutions: executions });
  emit({ ...scope, type: `run:${status}`, time: now(), durationMs: result.executionTime, completed: result.completedAssets, failed: result.failedAssets, canceled: result.canceledAssets });
  return result;
}
