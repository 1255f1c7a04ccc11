// Coverage of a multi-partitioned asset cut into one time coverage per combination of list
// values (`shop.stock[eu]`): what a picture draws as one heatmap row, a calendar or a line of the
// explorer, each drawn as a time asset's is. Totals, ranges and row statistics are the
// combination's own; each destination's share is counted again from its own counts, so that
// the figures of a destination beyond the first are its own, not the first one's.
import type { Coverage, PartitionCoverage } from "./compute.js";
import { ranges, rowStats } from "./statistics.js";
import { destinationCoverage, lookupOf, type DestinationCounts, type DestinationCoverage, type KeyStatus } from "./destinations.js";
import { combinationOf, type CoverageDimension } from "./multi.js";
import { TimeGranularity } from "../../partitioning/index.js";

/** How the combinations of a multi asset are cut. */
export interface CombinationOptions {
  /**
   * The expected range stops just before the current period (no window, `until` or
   * `includeCurrent`): each combination then shows its current period in progress, as a time
   * asset does (the whole asset has no one partition for it).
   */
  readonly inProgress?: boolean;
}

/** Which multi-partitioned asset, and which of its list values, a combination's coverage stands for. */
export interface CoverageCombination {
  /** The multi-partitioned asset's key (`shop.stock`). */
  readonly asset: string;
  /** One value of each list dimension, by name (`{ region: "eu" }`). */
  readonly values: Readonly<Record<string, string>>;
}

/**
 * The coverage of each combination of list values of a multi asset with a time dimension, in
 * the order its partitions come (declared order); the coverage itself, in a list of one, for
 * the other kinds and for a multi asset of lists only (drawn as a list of its combinations).
 */
export function coverageByCombination(whole: Coverage, counts: readonly DestinationCounts[], options: CombinationOptions = {}): Coverage[] {
  const dimensions = whole.dimensions;
  const at = dimensions?.findIndex((d) => d.kind === "time") ?? -1;
  if (!dimensions || at < 0) return [whole];
  const groups = new Map<string, PartitionCoverage[]>();
  // Stored keys of another shape (a folder made by hand) are shown whole, with the first combination's.
  const odd: PartitionCoverage[] = [];
  for (const p of whole.partitions) {
    if (p.key.split("|").length !== dimensions.length) {
      odd.push(p);
      continue;
    }
    const combination = combinationOf(p.key, dimensions);
    let group = groups.get(combination);
    if (!group) groups.set(combination, (group = []));
    group.push(p);
  }
  const sliced = [...groups];
  if (odd.length > 0) sliced[0]?.[1].push(...odd);
  // Every combination expected comes with its expected partitions first; one holding only unexpected keys (a value no longer declared) after them.
  return sliced.map(([combination, partitions]) => slice(whole, dimensions, at, combination, partitions, counts, options));
}

/** The time part of a key of the dimensions (a key of another shape whole). */
function timePart(key: string, at: number, dimensions: number): string {
  const parts = key.split("|");
  return parts.length === dimensions ? parts[at]! : key;
}

/**
 * The key of a multi asset a combination's coverage names by its time part (`2026-01-05`
 * -> `2026-01-05|eu`): a partition's key or a window's text (`A..B` -> `A..B|eu`), as the
 * command line takes them.
 */
export function multiKeyOf(c: Pick<Coverage, "dimensions" | "combination">, time: string): string {
  return c.combination && c.dimensions ? joinedKey(c.dimensions, c.combination.values, time) : time;
}

/** The dimensions' keys in declared order, joined by "|": `time` for the time dimension, `values` for the lists. */
function joinedKey(dimensions: readonly CoverageDimension[], values: Readonly<Record<string, string>>, time: string): string {
  return dimensions.map((d) => (d.kind === "time" ? time : values[d.name]!)).join("|");
}

function slice(
  whole: Coverage,
  dimensions: readonly CoverageDimension[],
  at: number,
  combination: string,
  group: readonly PartitionCoverage[],
  counts: readonly DestinationCounts[],
  options: CombinationOptions,
): Coverage {
  const parts = combination.split("|");
  const values = Object.fromEntries(dimensions.filter((d) => d.kind === "list").map((d, i) => [d.name, parts[i]!]));
  const time = dimensions[at]!;
  const partitions = group.map((p) => ({ ...p, key: timePart(p.key, at, dimensions.length) }));
  const expected = partitions.filter((p) => p.status !== "unexpected");
  const tally = (status: string) => expected.filter((p) => p.status === status).length;
  const materialized = tally("materialized");
  const empty = tally("empty");
  const unreadable = tally("unreadable");
  const missing = tally("missing");
  const counted = expected.filter((p) => p.status === "materialized").map((p) => p.rows!);
  const rows = counted.reduce((sum, n) => sum + n, 0);
  const missingRanges = ranges(partitions, "missing");
  const emptyRanges = ranges(partitions, "empty");
  const totals = { materialized, empty, missing, unreadable, unexpected: partitions.length - expected.length, rows };
  const inProgress = options.inProgress ? currentOf(expected.at(-1)?.key ?? null, time, values, dimensions, counts) : null;
  return {
    asset: `${whole.asset}[${combination}]`,
    kind: "time",
    granularity: time.granularity,
    column: time.column,
    first: expected[0]?.key ?? null,
    last: expected.at(-1)?.key ?? null,
    expected: expected.length,
    ...totals,
    ...rowStats(counted, partitions),
    partitions,
    missingRanges,
    emptyRanges,
    stale: expected.filter((p) => p.stale).length,
    staleRanges: ranges(
      partitions.map((p) => ({ key: p.key, status: p.stale ? "stale" : p.status })),
      "stale",
    ),
    warnings: expected.filter((p) => p.warnings !== undefined).length,
    inProgress,
    neverMaterialized: whole.neverMaterialized,
    destinations:
      counts.length > 1
        ? destinationShares(counts, group, at, dimensions.length)
        : [{ key: whole.destinations[0]!.key, type: whole.destinations[0]!.type, ...totals, missingRanges, emptyRanges }],
    dimensions,
    combination: { asset: whole.asset, values },
  };
}

/** Each destination's share of a combination: its own counts of the combination's expected keys, ranges by time part. */
function destinationShares(
  counts: readonly DestinationCounts[],
  group: readonly PartitionCoverage[],
  at: number,
  dimensions: number,
): DestinationCoverage[] {
  const expected = group.filter((p) => p.status !== "unexpected").map((p) => p.key);
  const expectedSet = new Set(expected);
  const unexpected = new Set(group.filter((p) => p.status === "unexpected").map((p) => p.key));
  const outOfScope = (key: string) => !unexpected.has(key);
  const byTime = (statuses: readonly KeyStatus[], status: string) =>
    ranges(
      statuses.map((s) => ({ key: timePart(s.key, at, dimensions), status: s.status })),
      status,
    );
  return counts.map((store) => destinationCoverage(store, lookupOf(store.counts), expected, expectedSet, outOfScope, byTime));
}

/** The period after a combination's last expected one, in progress: the rows its first destination holds so far, or null. */
function currentOf(
  last: string | null,
  time: CoverageDimension,
  values: Readonly<Record<string, string>>,
  dimensions: readonly CoverageDimension[],
  counts: readonly DestinationCounts[],
): PartitionCoverage | null {
  if (last === null) return null;
  const g = TimeGranularity.named(time.granularity!);
  const key = g.format(g.advance(last, 1));
  const first = counts[0]?.counts ?? {};
  const multiKey = joinedKey(dimensions, values, key);
  const stored = Object.hasOwn(first, multiKey) ? first[multiKey] : undefined;
  return { key, status: "in-progress", rows: stored ?? null };
}
