import { assetsOfPartition } from "./partition-scope.js";
import { planExecution, type Plan, type PlannedRun, type PlanningOptions, type SkippedAsset } from "../runner/plan.js";
import type { Project } from "./project.js";
import { resolveScope, type ScopeOptions } from "./scope.js";
import { MATERIALIZABLE, selectAssets } from "./select.js";
import { parseShard, shardOf, type Shard } from "./shard.js";

export { parseShard, shardOf, type Plan, type PlannedRun, type Shard, type SkippedAsset };

/** What to materialize, as selectors and a window, and how (see `PlanningOptions`: order, only, shard). */
export interface PlanOptions extends ScopeOptions, Omit<PlanningOptions, "perPartition"> {
  /** Selectors (see `Selection`: `orders`, `shop`, `+orders`, `tag:finance`); none means every materializable asset. */
  readonly assets?: readonly string[];
  /** Selectors of assets to leave out. */
  readonly exclude?: readonly string[];
  /**
   * Set when what runs was picked from the stored data and nothing was (`--stale` with nothing
   * stale): the plan runs nothing. An empty `assets` cannot say so: it means every asset.
   */
  readonly nothingPicked?: true;
}

/** Plans a materialize from a selection and a window; throws (bad input) before anything runs. */
export function planMaterialize(project: Project, options: PlanOptions = {}): Plan {
  if (options.nothingPicked)
    return {
      mode: "backfill",
      window: null,
      assets: [],
      order: options.order ?? "newest",
      runs: [],
      partitions: [],
      schedule: [],
      skipped: [],
    };
  const selected = selectAssets(project.dag, { select: options.assets ?? [], exclude: options.exclude ?? [], keep: MATERIALIZABLE });
  project.dag.checkEdges(selected);
  const window = resolveScope(selected, options);
  if (options.partition === undefined) return planExecution(project.dag, selected, window, options);
  const { assets, skipped } = assetsOfPartition(selected, options.partition, window);
  const plan = planExecution(project.dag, assets, window, options);
  return skipped.length > 0 ? { ...plan, skipped: [...skipped, ...plan.skipped] } : plan;
}
