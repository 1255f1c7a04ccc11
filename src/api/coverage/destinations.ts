import type { Asset } from "../../asset/asset.js";
import { ConfigError } from "../../errors.js";
import type { Materialization, PartitionCounts, UnreadablePartition } from "../../destination/index.js";
import type { PartitionWindow } from "../../partitioning/index.js";

/** Rows per stored partition key in one destination of an asset. */
export interface DestinationCounts {
  /** The destination's name on the asset (`asset.destinationKeys`). */
  readonly key: string;
  /** What kind of destination it is (`destination.displayName`). */
  readonly type: string;
  readonly counts: Readonly<Record<string, number>>;
  /** Stored partitions whose data cannot be read, by key (not in `counts`). */
  readonly unreadable?: Readonly<Record<string, UnreadablePartition>>;
  /** The records counting read on the way, when the destination gives them (see `PartitionCounts.records`). */
  readonly records?: Readonly<Record<string, Materialization>>;
}

/** What one destination holds of an asset's expected partitions. */
export interface DestinationCoverage {
  readonly key: string;
  readonly type: string;
  readonly materialized: number;
  readonly empty: number;
  readonly missing: number;
  /** Expected partitions stored here whose data cannot be read. */
  readonly unreadable: number;
  readonly unexpected: number;
  /** Rows of the expected partitions this destination holds. */
  readonly rows: number;
  readonly missingRanges: readonly string[];
  readonly emptyRanges: readonly string[];
}

/**
 * Row counts of every destination of an asset, read in parallel (one count per destination).
 * Every count is settled before a failure is reported, so none is still running afterwards.
 * Given a window, a destination may count only its partitions (an object store lists no more).
 */
export async function destinationCounts(asset: Asset, window: PartitionWindow | null = null): Promise<DestinationCounts[]> {
  if (!asset.partitioning) throw new ConfigError(`asset "${asset.qualifiedKey}" is not partitioned: it has no partition row counts`);
  if (asset.destinations.length === 0)
    throw new ConfigError(`asset "${asset.qualifiedKey}" has no destination to count: set destinations on the asset or its source`);
  const context = asset.ioContext(window);
  const settled = await Promise.allSettled(asset.destinations.map(async (d) => d.partitionCounts(context)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((r, i) => {
    const { counts, unreadable, records } = (r as PromiseFulfilledResult<PartitionCounts>).value;
    return {
      key: asset.destinationKeys[i]!,
      type: asset.destinations[i]!.displayName,
      counts,
      unreadable,
      ...(records ? { records } : {}),
    };
  });
}

/** Stored counts as coverage looks them up: a record's own keys, or a Map. */
export interface CountLookup {
  get(key: string): number | undefined;
  has(key: string): boolean;
  keys(): Iterable<string>;
}

/** A record of counts as a lookup of its own keys only (a key such as "constructor" is not inherited). */
export function lookupOf(record: Readonly<Record<string, number>>): CountLookup {
  return {
    get: (key) => (Object.hasOwn(record, key) ? record[key] : undefined),
    has: (key) => Object.hasOwn(record, key),
    keys: () => Object.keys(record),
  };
}

/**
 * Every stored key of any destination, with the count of the first destination holding it:
 * the first destination is the one reads use, so its count is the one shown.
 */
export function unionCounts(lookups: readonly CountLookup[]): CountLookup {
  if (lookups.length === 1) return lookups[0]!;
  const union = new Map<string, number>();
  for (const lookup of lookups) for (const key of lookup.keys()) if (!union.has(key)) union.set(key, lookup.get(key)!);
  return union;
}

/** The destinations of `stores` that cannot read their data of `key`, with the file and why. */
export function unreadableIn(
  stores: readonly DestinationCounts[],
  key: string,
): Array<UnreadablePartition & { readonly destination: string }> {
  const out: Array<UnreadablePartition & { readonly destination: string }> = [];
  for (const store of stores)
    if (store.unreadable && Object.hasOwn(store.unreadable, key)) out.push({ destination: store.key, ...store.unreadable[key]! });
  return out;
}

/** The destinations of `stores` lacking `key`, in order (`lookups` holds their counts). */
export function lacking(stores: readonly DestinationCounts[], lookups: readonly CountLookup[], key: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < stores.length; i++) if (!lookups[i]!.has(key)) out.push(stores[i]!.key);
  return out;
}

/** A key and its status, as ranges are made of. */
export interface KeyStatus {
  readonly key: string;
  readonly status: string;
}

/**
 * One destination's share of the coverage of several: its statuses over the expected keys (in
 * order), and its stored keys that are neither expected nor out of scope.
 */
export function destinationCoverage(
  store: DestinationCounts,
  counts: CountLookup,
  expected: readonly string[],
  expectedSet: ReadonlySet<string>,
  outOfScope: (key: string) => boolean,
  ranges: (statuses: readonly KeyStatus[], status: string) => string[],
): DestinationCoverage {
  let materialized = 0;
  let empty = 0;
  let unreadable = 0;
  let rows = 0;
  const statuses: KeyStatus[] = [];
  for (const key of expected) {
    const stored = counts.get(key);
    if (store.unreadable && Object.hasOwn(store.unreadable, key)) {
      unreadable++;
      statuses.push({ key, status: "unreadable" });
    } else if (stored === undefined) statuses.push({ key, status: "missing" });
    else if (stored === 0) {
      empty++;
      statuses.push({ key, status: "empty" });
    } else {
      materialized++;
      rows += stored;
      statuses.push({ key, status: "materialized" });
    }
  }
  let unexpected = 0;
  for (const key of counts.keys()) if (!expectedSet.has(key) && !outOfScope(key)) unexpected++;
  return {
    key: store.key,
    type: store.type,
    materialized,
    empty,
    missing: expected.length - materialized - empty - unreadable,
    unreadable,
    unexpected,
    rows,
    missingRanges: ranges(statuses, "missing"),
    emptyRanges: ranges(statuses, "empty"),
  };
}
