import type { Asset } from "../../asset/asset.js";
import { ConfigError } from "../../errors.js";
import {
  ListPartitionConfig,
  MultiPartitionConfig,
  TimePartitionConfig,
  type MultiValues,
  type PartitionWindow,
} from "../../partitioning/index.js";
import { coverageDimensions, multiExpected, multiOutOfScope, withKeys, type CoverageDimension } from "./multi.js";
import type { CoverageCombination } from "./combinations.js";
import { expectedKeys, horizonOf, outOfScope, timeExpected, type Horizon } from "./expected.js";

export { expectedKeys };
import {
  destinationCoverage,
  lookupOf,
  unionCounts,
  type CountLookup,
  type DestinationCounts,
  type DestinationCoverage,
  type KeyStatus,
} from "./destinations.js";
import { tallyExpected } from "./tally.js";
import { ranges, rowStats } from "./statistics.js";

export { SUSPICIOUS_MIN_PARTITIONS, SUSPICIOUS_RATIO } from "./statistics.js";

/**
 * "in-progress" marks only `Coverage.inProgress`, the period under way: `partitions` holds the
 * others. "unreadable": stored, but its data cannot be read (a file cut short); `--missing`
 * rebuilds it.
 */
export type PartitionStatus = "materialized" | "empty" | "missing" | "unreadable" | "unexpected" | "in-progress";

/** One partition's state in storage. */
export interface PartitionCoverage {
  readonly key: string;
  readonly status: PartitionStatus;
  /**
   * Stored rows (the first destination's count); null when missing (or, in progress, when
   * nothing is stored yet).
   */
  readonly rows: number | null;
  /**
   * For an asset with several destinations, on a missing partition only: the destinations that
   * lack it, in the asset's order (all of them when none holds it).
   */
  readonly missingIn?: readonly string[];
  /** On an unreadable partition: the file (or object) that cannot be read, and why. */
  readonly file?: string;
  readonly error?: string;
  /** On an unreadable partition of an asset with several destinations: those that cannot read it. */
  readonly unreadableIn?: readonly string[];
  /** On a stored partition that is out of date (see `Asset.staleness`): true, and why. */
  readonly stale?: true;
  readonly staleReasons?: readonly string[];
  /** Of a multi-partitioned asset: each dimension's key by name (`{ date: "2026-01-05", region: "eu" }`). */
  readonly keys?: Readonly<Record<string, string>>;
  /** On a stored partition whose record says warn checks failed when it was written: how many, and which. */
  readonly warnings?: number;
  readonly warningChecks?: readonly string[];
}

/** Which partitions of an asset exist and what they hold; the shape of `coverage --json`. */
export interface Coverage {
  readonly asset: string;
  readonly kind: string;
  readonly granularity: string | null;
  readonly column: string;
  /** The first and last expected keys (null when nothing is expected). */
  readonly first: string | null;
  readonly last: string | null;
  readonly expected: number;
  readonly materialized: number;
  readonly empty: number;
  readonly missing: number;
  /** Expected partitions stored in a destination that cannot read them (see PartitionCoverage.file). */
  readonly unreadable: number;
  readonly unexpected: number;
  readonly rows: number;
  readonly minRows: number | null;
  readonly medianRows: number | null;
  readonly maxRows: number | null;
  /** Materialized partitions whose count is far below the median (see SUSPICIOUS_RATIO). */
  readonly suspicious: readonly PartitionCoverage[];
  /**
   * Every expected partition oldest (or first declared) first, then the unexpected ones. A
   * multi-partitioned asset's come one combination of list values at a time (in declared
   * order), each its periods oldest first; each partition carries its `keys`.
   */
  readonly partitions: readonly PartitionCoverage[];
  readonly missingRanges: readonly string[];
  readonly emptyRanges: readonly string[];
  /** Expected partitions stored but out of date (see `PartitionCoverage.stale`), and their runs of keys. */
  readonly stale: number;
  readonly staleRanges: readonly string[];
  /** Expected partitions stored with failed warn checks (see `PartitionCoverage.warnings`). */
  readonly warnings: number;
  /**
   * The current period of a time partitioning when the expected range stops just before it
   * (the default): its data may still be arriving, so it is neither expected nor missing.
   * Status "in-progress"; rows stored so far, or null. Null with a window, `until` or
   * `includeCurrent`, for a list partitioning, and before the asset's start.
   */
  readonly inProgress: PartitionCoverage | null;
  /**
   * What each destination of the asset holds, in the asset's order. A partition is
   * materialized (or empty) above only when every destination holds it.
   */
  readonly destinations: readonly DestinationCoverage[];
  /**
   * True for a time partitioning with no `start`, no upstream giving one and nothing stored:
   * no range can be expected yet, and the asset is not complete (`--fail-on-missing` fails).
   */
  readonly neverMaterialized: boolean;
  /** A multi-partitioned asset's dimensions, in declared order (absent for the other kinds). */
  readonly dimensions?: readonly CoverageDimension[];
  /**
   * On the coverage of one combination of a multi asset's list values (see `byCombination`):
   * the asset and the values; its partitions are keyed by their time part.
   */
  readonly combination?: CoverageCombination;
}

/** What coverage expects and how it is told. */
export interface CoverageScope {
  /** Narrows the expected partitions to a window (clamped to the asset's start and the current period). */
  readonly window?: PartitionWindow | null;
  /** The current instant (default: the clock). */
  readonly now?: Date;
  /**
   * Without a window, ends the expected range of a time partitioning at this key, inclusive
   * (never after the current period). A key of the asset's granularity.
   */
  readonly until?: string;
  /** Without a window, the expected range ends with the current period instead of the one before. */
  readonly includeCurrent?: boolean;
  /** IANA zone whose calendar decides the current day, week, month...; hours are UTC. Default "UTC". */
  readonly timeZone?: string;
  /**
   * Where the range of a time partitioning with no `start` begins: its upstreams' first period
   * (see effectiveStart). Without it (or when none bounds the asset) the range begins with the
   * first stored partition.
   */
  readonly start?: Date | null;
  /** Of a multi-partitioned asset without a window: only these values of its lists, by name. */
  readonly values?: MultiValues;
}

/**
 * Compares stored row counts with the expected partitions: those of every destination of the
 * asset (a partition is missing when any of them lacks it), or one record of counts, read as
 * the asset's first destination's.
 */
export function computeCoverage(
  asset: Asset,
  counts: Readonly<Record<string, number>> | readonly DestinationCounts[],
  scope: CoverageScope = {},
): Coverage {
  const config = partitioningOf(asset);
  const stores = storesOf(asset, counts);
  const lookups = stores.map((store) => lookupOf(store.counts));
  const union = unionCounts(lookups);
  const time = config instanceof TimePartitionConfig ? config : null;
  const multi = config instanceof MultiPartitionConfig ? multiExpected(asset, config, union.keys(), scope) : null;
  const horizon = time ? horizonOf(asset, time, scope) : (multi?.horizon ?? null);
  const expected = multi
    ? multi.expected
    : config instanceof TimePartitionConfig
      ? timeExpected(config, union.keys(), scope, horizon!)
      : scope.window
        ? scope.window.keys
        : [...(config as ListPartitionConfig).values];
  const expectedSet = new Set(expected);
  const tally = tallyExpected(expected, stores, lookups, union);
  const { materialized, empty, unreadable, rows, counted } = tally;
  const dimensions = config instanceof MultiPartitionConfig ? coverageDimensions(config) : null;
  const ignored = config instanceof MultiPartitionConfig ? multiOutOfScope(config, scope, horizon) : outOfScope(config, scope, horizon);
  const partitions = dimensions ? withKeys(tally.partitions, dimensions) : tally.partitions;
  const unexpected = [...union.keys()].filter((k) => !expectedSet.has(k) && !ignored(k)).sort();
  for (const key of unexpected) partitions.push(...withKeys([{ key, status: "unexpected", rows: union.get(key)! }], dimensions ?? []));
  const stats = rowStats(counted, partitions);
  const definition = config.toDefinition();
  const rangesOf = (statuses: readonly KeyStatus[], status: string) => ranges(statuses, status, dimensions);
  const missingRanges = rangesOf(partitions, "missing");
  const emptyRanges = rangesOf(partitions, "empty");
  const missing = expected.length - materialized - empty - unreadable;
  const totals = { materialized, empty, missing, unreadable, unexpected: unexpected.length, rows };
  return {
    asset: asset.qualifiedKey,
    kind: config.kind,
    granularity: typeof definition["granularity"] === "string" ? definition["granularity"] : null,
    column: config.column,
    first: expected[0] ?? null,
    last: expected[expected.length - 1] ?? null,
    expected: expected.length,
    ...totals,
    ...stats,
    partitions,
    missingRanges,
    emptyRanges,
    stale: 0,
    staleRanges: [],
    warnings: 0,
    // A multi asset's current period holds a partition per combination: none stands for it.
    inProgress: time ? inProgressOf(time, union, scope, horizon!) : null,
    neverMaterialized: time !== null && !time.start && !scope.start && !scope.window && stored(union) === 0,
    // With one destination its share is the whole; with several, each is counted apart.
    destinations:
      stores.length > 1
        ? stores.map((store, i) => destinationCoverage(store, lookups[i]!, expected, expectedSet, ignored, rangesOf))
        : [{ key: stores[0]!.key, type: stores[0]!.type, ...totals, missingRanges, emptyRanges }],
    ...(dimensions ? { dimensions } : {}),
  };
}

/** The asset's partitioning; coverage has nothing to say of an unpartitioned asset. */
function partitioningOf(asset: Asset): TimePartitionConfig | ListPartitionConfig | MultiPartitionConfig {
  const config = asset.partitioning;
  if (config instanceof TimePartitionConfig || config instanceof ListPartitionConfig || config instanceof MultiPartitionConfig)
    return config;
  throw new ConfigError(`asset "${asset.qualifiedKey}" is not partitioned: it has no coverage`);
}

/** The counts as one entry per destination: a bare record is the asset's first destination's. */
function storesOf(asset: Asset, counts: Readonly<Record<string, number>> | readonly DestinationCounts[]): readonly DestinationCounts[] {
  const stores: readonly DestinationCounts[] = isStoreList(counts)
    ? counts
    : [{ key: asset.destinationKeys[0] ?? "destination", type: asset.destinations[0]?.displayName ?? "destination", counts }];
  if (stores.length === 0)
    throw new ConfigError(`asset "${asset.qualifiedKey}" has no destination to count: set destinations on the asset or its source`);
  return stores;
}

/** How many keys a lookup holds (a Map's size, counted for a record's lookup). */
function stored(lookup: CountLookup): number {
  return [...lookup.keys()].length;
}

function isStoreList(counts: Readonly<Record<string, number>> | readonly DestinationCounts[]): counts is readonly DestinationCounts[] {
  return Array.isArray(counts);
}

/** The current period, when the range stops just before it and the asset has begun. */
function inProgressOf(config: TimePartitionConfig, counts: CountLookup, scope: CoverageScope, horizon: Horizon): PartitionCoverage | null {
  const g = config.granularity;
  if (scope.window || g.advance(horizon.last, 1).getTime() !== horizon.current.getTime()) return null;
  const begins = config.start ?? scope.start ?? null;
  if (begins && begins > horizon.current) return null;
  const key = g.format(horizon.current);
  return { key, status: "in-progress", rows: counts.get(key) ?? null };
}
