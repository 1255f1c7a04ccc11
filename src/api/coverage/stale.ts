// Coverage with staleness: stored partitions out of date are marked with why, counted and
// given as ranges. Only an asset that can be stale is asked (one with upstream assets, a
// codeVersion or several destinations, in a destination that keeps records): for the others
// coverage reads no records at all.
import type { Asset } from "../../asset/asset.js";
import type { AssetGraph } from "../../asset/dependencies.js";
import { assetStaleness, type RecordCache, type Staleness } from "../../asset/staleness.js";
import type { PartitionWindow } from "../../partitioning/index.js";
import type { Coverage, PartitionCoverage } from "./compute.js";
import { ranges } from "./statistics.js";
import { ownEntry } from "../../keyed.js";

/** Whether any partition of the asset could be stale, given where it is stored and what it reads. */
export function canBeStale(asset: Asset, graph: AssetGraph): boolean {
  if (!asset.destinations.some((destination) => destination.materializations)) return false;
  return asset.definition.codeVersion !== null || asset.destinations.length > 1 || graph.dependencies(asset).some((d) => d.asset);
}

/** The asset's stale partitions over a window (all when null), its upstreams found in the graph. */
export function graphStaleness(asset: Asset, graph: AssetGraph, window: PartitionWindow | null, cache: RecordCache): Promise<Staleness> {
  const upstream = graph.dependencies(asset).flatMap((d) => (d.asset ? [d.asset] : []));
  return assetStaleness(asset, window, upstream, cache);
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
