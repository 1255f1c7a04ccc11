// Coverage with staleness: stored partitions out of date are marked with why, counted and
// given as ranges. Every asset is asked (a record can be stale against an asset that now has no
// upstream or no codeVersion); one whose destinations keep no records reads none.
import type { Asset } from "../../asset/asset.js";
import type { AssetGraph } from "../../asset/dependencies.js";
import { assetStaleness, type RecordCache, type Staleness } from "../../asset/staleness.js";
import type { PartitionWindow } from "../../partitioning/index.js";
import type { Coverage, PartitionCoverage } from "./compute.js";
import { ranges } from "./statistics.js";
import { ownEntry } from "../../keyed.js";

/**
 * The asset's stale partitions over a window (all when null), its dependencies found in the
 * graph: the one computation coverage, `--fail-on-stale`, `materialize --stale` and
 * `session.staleness` share.
 */
export function graphStaleness(asset: Asset, graph: AssetGraph, window: PartitionWindow | null, cache: RecordCache): Promise<Staleness> {
  return assetStaleness(asset, window, graph.dependencies(asset), cache);
}

/** The coverage with its stored partitions that are out of date marked, counted and put in ranges. */
export function markStale(coverage: Coverage, stale: Staleness): Coverage {
  if (Object.keys(stale).length === 0) return coverage;
  const mark = (p: PartitionCoverage): PartitionCoverage => {
    const reasons = p.status === "missing" ? undefined : ownEntry(stale, p.key);
    return reasons ? { ...p, stale: true, staleReasons: reasons } : p;
  };
  const partitions = coverage.partitions.map(mark);
  const count = partitions.filter((p) => p.stale && p.status !== "unexpected").length;
  const staleRanges = ranges(
    partitions.map((p) => ({ key: p.key, status: p.stale ? "stale" : p.status })),
    "stale",
    coverage.dimensions ?? null,
  );
  return { ...coverage, partitions, stale: count, staleRanges, inProgress: coverage.inProgress && mark(coverage.inProgress) };
}
