import type { Asset } from "../asset/asset.js";
import type { PartitionWindow } from "../partitioning/index.js";
import { checkRunWindow } from "../runner/run.js";
import type { Stage } from "../runner/stages.js";
import { parseShard, shardOf, type Shard } from "./shard.js";
import { needsStages, stagedPlan, type SkippedAsset } from "./stages.js";

export { parseShard, shardOf, type Shard };
import type { Project } from "./project.js";
import { MATERIALIZABLE, selectAssets } from "./select.js";
import { resolveScope, type ScopeOptions } from "./scope.js";

/** What to materialize and how the command names it. */
export interface PlanOptions extends ScopeOptions {
  /** Selectors (see `Selection`: `orders`, `shop`, `+orders`, `tag:finance`); none means every materializable asset. */
  readonly assets?: readonly string[];
  /** Selectors of assets to leave out. */
  readonly exclude?: readonly string[];
  readonly order?: "newest" | "oldest";
  /** Only these partition keys of the window (as `--missing` computes them); forces one run per partition. */
  readonly only?: ReadonlySet<string>;
  /**
   * With `only`, in a staged plan (several partitionings): each asset's own keys, so that a
   * missing day of one asset does not re-run the same day of every daily asset.
   */
  readonly onlyByAsset?: ReadonlyMap<string, ReadonlySet<string>>;
  /** This worker's share of a backfill split across machines; forces one run per partition. */
  readonly shard?: Shard;
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
  /**
   * Set when assets of several partitionings run over one range of time, or read other
   * partitions than their own: the stages the backfill runs, one after the other.
   */
  readonly stages?: readonly Stage[];
  /** Selected assets the window gives nothing to run, each with why and what to run instead. */
  readonly skipped: readonly SkippedAsset[];
}

/** Plans a materialize; throws (bad input) before anything runs. */
export function planMaterialize(project: Project, options: PlanOptions = {}): Plan {
  const assets = selectAssets(project.dag, { select: options.assets ?? [], exclude: options.exclude ?? [], keep: MATERIALIZABLE });
  project.dag.checkEdges(assets);
  const window = resolveScope(assets, options);
  const order = options.order ?? "newest";
  if (needsStages(project.dag, assets, window)) return stagedPlan(project.dag, assets, window, { ...options, order });
  const partitioned = assets.filter((a) => a.partitioning);
  const unpartitioned = assets.filter((a) => !a.partitioning);
  const whole = !options.only && !options.shard && (!window || window.length === 1 || partitioned.every((a) => a.partitioning!.allowWindow));
  if (whole || !window) {
    checkRunWindow(assets, window);
    const runs = [{ partition: window ? String(window) : null, assets: assets.map((a) => a.qualifiedKey) }];
    return { mode: "run", window, assets, order, runs, partitions: window ? window.partitions.map((p) => p.key) : [], skipped: [] };
  }
  const ordered = order === "newest" ? [...window.partitions].reverse() : [...window.partitions];
  const partitions = shardOf(ordered, options.shard).filter((p) => !options.only || options.only.has(p.key));
  for (const partition of partitions) checkRunWindow(partitioned, partition);
  const runs: PlannedRun[] = [];
  // Unpartitioned assets run once: in the first shard only.
  if (unpartitioned.length > 0 && (options.shard?.index ?? 1) === 1) runs.push({ partition: null, assets: unpartitioned.map((a) => a.qualifiedKey) });
  for (const partition of partitions) runs.push({ partition: partition.key, assets: partitioned.map((a) => a.qualifiedKey) });
  const inRuns = options.shard && options.shard.index > 1 ? partitioned : assets;
  return { mode: "backfill", window, assets: inRuns, order, runs, partitions: partitions.map((p) => p.key), skipped: [] };
}
