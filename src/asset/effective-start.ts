// Where a time-partitioned asset's partitions begin when it declares no `start`: a weekly
// rollup of daily orders has nothing to read before the first day of orders, so its range
// begins with the first week that reads any of them. Planning and coverage both ask.
import { timeConfigOf } from "../partitioning/index.js";
import type { Asset } from "./asset.js";
import type { AssetGraph } from "./dependencies.js";

/** An asset's first partition and where it comes from. */
export interface EffectiveStart {
  /** The start of the first period. */
  readonly start: Date;
  /** The upstream whose first partition gives it; null when the asset declares its own `start`. */
  readonly upstream: string | null;
}

/**
 * The first period of a time-partitioned asset: its declared `start`, else the first period
 * whose upstream periods (read through the edge's mapping) reach the first partition of every
 * required time-partitioned upstream that has one (transitively); null when none bounds it.
 */
export function effectiveStart(graph: AssetGraph, asset: Asset): EffectiveStart | null {
  return startOf(graph, asset, new Map());
}

function startOf(graph: AssetGraph, asset: Asset, seen: Map<Asset, EffectiveStart | null>): EffectiveStart | null {
  if (seen.has(asset)) return seen.get(asset)!;
  // A multi partitioning's periods begin as its time dimension's do.
  const config = timeConfigOf(asset.partitioning);
  if (!config) return null;
  if (config.start) return { start: config.start, upstream: null };
  seen.set(asset, null);
  const g = config.granularity;
  let found: EffectiveStart | null = null;
  for (const dependency of graph.dependencies(asset)) {
    const upstream = dependency.asset;
    if (dependency.optional || !upstream || !timeConfigOf(upstream.partitioning)) continue;
    const bound = startOf(graph, upstream, seen);
    if (!bound) continue;
    // The period holding the upstream's first one reads it; an offset of -1 (the previous
    // period) moves that one period later.
    const start = g.advance(g.truncate(bound.start), -(dependency.mapping?.offset ?? 0));
    if (!found || start > found.start) found = { start, upstream: upstream.qualifiedKey };
  }
  seen.set(asset, found);
  return found;
}
