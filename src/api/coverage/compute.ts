import type { Asset } from "../../asset/asset.js";
import { ConfigError } from "../../errors.js";
import { ListPartitionConfig, TimePartitionConfig, TimeGranularity, type PartitionWindow } from "../../partitioning/index.js";

export type PartitionStatus = "materialized" | "empty" | "missing" | "unexpected";

/** One partition's state in storage. */
export interface PartitionCoverage {
  readonly key: string;
  readonly status: PartitionStatus;
  /** Stored rows; null when missing. */
  readonly rows: number | null;
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
  readonly unexpected: number;
  readonly rows: number;
  readonly minRows: number | null;
  readonly medianRows: number | null;
  readonly maxRows: number | null;
  /** Materialized partitions whose count is far below the median (see SUSPICIOUS_RATIO). */
  readonly suspicious: readonly PartitionCoverage[];
  /** Every expected partition oldest (or first declared) first, then the unexpected ones. */
  readonly partitions: readonly PartitionCoverage[];
  readonly missingRanges: readonly string[];
  readonly emptyRanges: readonly string[];
}

/**
 * A materialized partition is suspicious when it holds less than this share of the median
 * count, once there are at least SUSPICIOUS_MIN_PARTITIONS to take a median of: a cheap signal
 * of a partial load (an API that timed out, a file cut short).
 */
export const SUSPICIOUS_RATIO = 0.1;
export const SUSPICIOUS_MIN_PARTITIONS = 5;

/** What coverage expects and how it is told. */
export interface CoverageScope {
  /** Narrows the expected partitions to a window. */
  readonly window?: PartitionWindow | null;
  /** The current instant; the expected range of a time partitioning ends at its period. */
  readonly now?: Date;
}

/** The expected partition keys of an asset, in order. */
export function expectedKeys(asset: Asset, counts: Readonly<Record<string, number>>, scope: CoverageScope): string[] {
  const config = asset.partitioning;
  if (config instanceof ListPartitionConfig) {
    return scope.window ? scope.window.partitions.map((p) => p.key) : [...config.values];
  }
  if (!(config instanceof TimePartitionConfig)) throw new ConfigError(`asset "${asset.qualifiedKey}" is not partitioned: it has no coverage`);
  const g = config.granularity;
  if (scope.window) {
    // A window narrows the expected range, never widens it: nothing before start, nothing after now.
    const floor = config.start ? g.format(config.start) : null;
    const ceiling = g.format(scope.now ?? new Date());
    return scope.window.partitions.map((p) => p.key).filter((k) => (!floor || k >= floor) && k <= ceiling);
  }
  let first = config.start;
  if (!first) {
    const found = Object.keys(counts).filter((k) => isKeyOf(g, k)).sort();
    if (found.length === 0) return [];
    first = g.parse(found[0]!);
  }
  const current = g.truncate(scope.now ?? new Date());
  if (first > current) return [];
  const keys: string[] = [];
  for (const start of g.periodRange(first, current)) keys.push(g.format(start));
  return keys;
}

function isKeyOf(g: TimeGranularity, key: string): boolean {
  try {
    g.parse(key);
    return true;
  } catch {
    return false;
  }
}

/** Compares stored row counts with the expected partitions. */
export function computeCoverage(asset: Asset, counts: Readonly<Record<string, number>>, scope: CoverageScope = {}): Coverage {
  const config = asset.partitioning!;
  const expected = expectedKeys(asset, counts, scope);
  const expectedSet = new Set(expected);
  const partitions: PartitionCoverage[] = [];
  let materialized = 0;
  let empty = 0;
  let rows = 0;
  const counted: number[] = [];
  for (const key of expected) {
    const stored = counts[key];
    if (stored === undefined) {
      partitions.push({ key, status: "missing", rows: null });
    } else if (stored === 0) {
      empty++;
      partitions.push({ key, status: "empty", rows: 0 });
    } else {
      materialized++;
      rows += stored;
      counted.push(stored);
      partitions.push({ key, status: "materialized", rows: stored });
    }
  }
  // With a window, storage outside it is simply out of scope, not unexpected.
  const unexpected = scope.window ? [] : Object.keys(counts).filter((k) => !expectedSet.has(k)).sort();
  for (const key of unexpected) partitions.push({ key, status: "unexpected", rows: counts[key]! });
  counted.sort((a, b) => a - b);
  const median = counted.length ? (counted.length % 2 ? counted[(counted.length - 1) / 2]! : (counted[counted.length / 2 - 1]! + counted[counted.length / 2]!) / 2) : null;
  const suspicious =
    median !== null && counted.length >= SUSPICIOUS_MIN_PARTITIONS ? partitions.filter((p) => p.status === "materialized" && p.rows! < median * SUSPICIOUS_RATIO) : [];
  const definition = config.toDefinition();
  return {
    asset: asset.qualifiedKey,
    kind: config.kind,
    granularity: typeof definition["granularity"] === "string" ? definition["granularity"] : null,
    column: config.column,
    first: expected[0] ?? null,
    last: expected[expected.length - 1] ?? null,
    expected: expected.length,
    materialized,
    empty,
    missing: expected.length - materialized - empty,
    unexpected: unexpected.length,
    rows,
    minRows: counted[0] ?? null,
    medianRows: median,
    maxRows: counted[counted.length - 1] ?? null,
    suspicious,
    partitions,
    missingRanges: ranges(partitions, "missing"),
    emptyRanges: ranges(partitions, "empty"),
  };
}

/** Consecutive runs of a status, as "first..last" (or the key alone). */
function ranges(partitions: readonly PartitionCoverage[], status: PartitionStatus): string[] {
  const out: string[] = [];
  let start: string | null = null;
  let previous: string | null = null;
  for (const p of partitions) {
    if (p.status === "unexpected") break;
    if (p.status === status) {
      start ??= p.key;
      previous = p.key;
    } else if (start !== null) {
      out.push(start === previous ? start : `${start}..${previous}`);
      start = null;
    }
  }
  if (start !== null) out.push(start === previous ? start : `${start}..${previous}`);
  return out;
}
