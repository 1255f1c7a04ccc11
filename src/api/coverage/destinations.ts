import type { Asset } from "../../asset/asset.js";
import { ConfigError } from "../../errors.js";

/** Rows per stored partition key in one destination of an asset. */
export interface DestinationCounts {
  /** The destination's name on the asset (`asset.destinationKeys`). */
  readonly key: string;
  /** What kind of destination it is (`destination.displayName`). */
  readonly type: string;
  readonly counts: Readonly<Record<string, number>>;
}

/** What one destination holds of an asset's expected partitions. */
export interface DestinationCoverage {
  readonly key: string;
  readonly type: string;
  readonly materialized: number;
  readonly empty: number;
  readonly missing: number;
  readonly unexpected: number;
  /** Rows of the expected partitions this destination holds. */
  readonly rows: number;
  readonly missingRanges: readonly string[];
  readonly emptyRanges: readonly string[];
}

/**
 * Row counts of every destination of an asset, read in parallel (one count per destination).
 * Every count is settled before a failure is reported, so none is still running afterwards.
 */
export async function destinationCounts(asset: Asset): Promise<DestinationCounts[]> {
  if (!asset.partitioning) throw new ConfigError(`asset "${asset.qualifiedKey}" is not partitioned: it has no partition row counts`);
  if (asset.destinations.length === 0) throw new ConfigError(`asset "${asset.qualifiedKey}" has no destination to count: set destinations on the asset or its source`);
  const context = asset.ioContext(null);
  const settled = await Promise.allSettled(asset.destinations.map(async (d) => d.partitionRowCounts(context)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((r, i) => ({
    key: asset.destinationKeys[i]!,
    type: asset.destinations[i]!.displayName,
    counts: (r as PromiseFulfilledResult<Record<string, number>>).value,
  }));
}

/**
 * Every stored key of any destination, with the count of the first destination holding it:
 * the first destination is the one reads use, so its count is the one shown.
 */
export function unionCounts(stores: readonly DestinationCounts[]): Record<string, number> {
  if (stores.length === 1) return stores[0]!.counts as Record<string, number>;
  const union: Record<string, number> = {};
  for (let i = stores.length - 1; i >= 0; i--) Object.assign(union, stores[i]!.counts);
  return union;
}

/** The destinations of `stores` lacking `key`, in order. */
export function lacking(stores: readonly DestinationCounts[], key: string): string[] {
  const out: string[] = [];
  for (const store of stores) if (!Object.hasOwn(store.counts, key)) out.push(store.key);
  return out;
}

/**
 * One destination's share of the coverage: its statuses over the expected keys (in order), and
 * its stored keys that are neither expected nor out of scope.
 */
export function destinationCoverage(
  store: DestinationCounts,
  expected: readonly string[],
  outOfScope: (key: string) => boolean,
  ranges: (statuses: ReadonlyArray<readonly [string, string]>, status: string) => string[],
): DestinationCoverage {
  let materialized = 0;
  let empty = 0;
  let rows = 0;
  const statuses: Array<readonly [string, string]> = [];
  for (const key of expected) {
    const stored = Object.hasOwn(store.counts, key) ? store.counts[key]! : undefined;
    if (stored === undefined) statuses.push([key, "missing"]);
    else if (stored === 0) {
      empty++;
      statuses.push([key, "empty"]);
    } else {
      materialized++;
      rows += stored;
      statuses.push([key, "materialized"]);
    }
  }
  const expectedSet = new Set(expected);
  const unexpected = Object.keys(store.counts).filter((k) => !expectedSet.has(k) && !outOfScope(k)).length;
  return {
    key: store.key,
    type: store.type,
    materialized,
    empty,
    missing: expected.length - materialized - empty,
    unexpected,
    rows,
    missingRanges: ranges(statuses, "missing"),
    emptyRanges: ranges(statuses, "empty"),
  };
}
