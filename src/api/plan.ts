import type { Asset } from "../asset/asset.js";
import type { PartitionWindow } from "../partitioning/index.js";
import { checkRunWindow } from "../runner/run.js";
import { selectAssets, type Project } from "./project.js";
import { resolveScope, type ScopeOptions } from "./scope.js";

/** What to materialize and how the command names it. */
export interface PlanOptions extends ScopeOptions {
  /** Asset keys; none means every materializable asset. */
  readonly assets?: readonly string[];
  readonly order?: "newest" | "oldest";
  /** Only these partition keys of the window (as `--missing` computes them); forces one run per partition. */
  readonly only?: ReadonlySet<string>;
}

/** One run a materialize would make. */
export interface PlannedRun {
  /** The run's window or partition key; null for a run of unpartitioned assets. */
  readonly partition: string | null;
  readonly assets: readonly string[];
}

/** The runs a materialize makes, in order, before anything executes. */
export interface Plan {
  /** "run": one execution (a partition, a window every asset takes whole, or no window); "backfill": one run per partition. */
  readonly mode: "run" | "backfill";
  readonly window: PartitionWindow | null;
  readonly assets: readonly Asset[];
  readonly order: "newest" | "oldest";
  readonly runs: readonly PlannedRun[];
  /** The partition keys a backfill runs, in dispatch order. */
  readonly partitions: readonly string[];
}

/** Plans a materialize; throws (bad input) before anything runs. */
export function planMaterialize(project: Project, options: PlanOptions = {}): Plan {
  const assets = selectAssets(project, options.assets);
  const window = resolveScope(assets, options);
  const order = options.order ?? "newest";
  const partitioned = assets.filter((a) => a.partitioning);
  const unpartitioned = assets.filter((a) => !a.partitioning);
  const whole = !options.only && (!window || window.length === 1 || partitioned.every((a) => a.partitioning!.allowWindow));
  if (whole || !window) {
    checkRunWindow(assets, window);
    const runs = [{ partition: window ? String(window) : null, assets: assets.map((a) => a.qualifiedKey) }];
    return { mode: "run", window, assets, order, runs, partitions: window ? window.partitions.map((p) => p.key) : [] };
  }
  const partitions = window.partitions.filter((p) => !options.only || options.only.has(p.key));
  if (order === "newest") partitions.reverse();
  for (const partition of partitions) checkRunWindow(partitioned, partition);
  const runs: PlannedRun[] = [];
  if (unpartitioned.length > 0) runs.push({ partition: null, assets: unpartitioned.map((a) => a.qualifiedKey) });
  for (const partition of partitions) runs.push({ partition: partition.key, assets: partitioned.map((a) => a.qualifiedKey) });
  return { mode: "backfill", window, assets, order, runs, partitions: partitions.map((p) => p.key) };
}
