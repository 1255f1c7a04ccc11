// Coverage of a multi-partitioned asset: a key per combination of list values and period. The
// expected periods are the time dimension's, found as a time asset's are (its start, now, the
// window), crossed with the values (all, or the window's). Partitions come one combination at
// a time, its periods oldest first, so a front end draws one row per combination.
import type { Asset } from "../../asset/asset.js";
import { checkedValues, MultiPartitionWindow, type MultiPartitionConfig } from "../../partitioning/index.js";
import type { CoverageScope, PartitionCoverage } from "./compute.js";
import { horizonOf, timeExpected, type Horizon } from "./expected.js";

/** One dimension of a multi partitioning, as coverage (and `--json`) describes it. */
export interface CoverageDimension {
  readonly name: string;
  readonly kind: "time" | "list";
  readonly column: string;
  /** The time dimension's granularity; null for a list. */
  readonly granularity: string | null;
  /** A list's declared values; null for the time dimension. */
  readonly values: readonly string[] | null;
}

/** The dimensions of a multi partitioning, in declared order. */
export function coverageDimensions(config: MultiPartitionConfig): CoverageDimension[] {
  return config.dimensions.map((d) => ({
    name: d.name,
    kind: d.kind,
    column: d.column,
    granularity: d.kind === "time" ? config.granularity!.name : null,
    values: d.kind === "list" ? config.listDimensions.find((l) => l.name === d.name)!.config.values : null,
  }));
}

/** Where the time part sits in a key of these dimensions (-1 without one). */
const timeIndex = (dimensions: readonly CoverageDimension[]) => dimensions.findIndex((d) => d.kind === "time");

/** A key's combination of list values: the key without its time part. */
export function combinationOf(key: string, dimensions: readonly CoverageDimension[]): string {
  const at = timeIndex(dimensions);
  const parts = key.split("|");
  if (at >= 0) parts.splice(at, 1);
  return parts.join("|");
}

/** The expected keys of a multi asset, each combination in turn, its periods oldest first; and the horizon of its periods. */
export function multiExpected(
  asset: Asset,
  config: MultiPartitionConfig,
  stored: Iterable<string>,
  scope: CoverageScope,
): { expected: string[]; horizon: Horizon | null } {
  const window = scope.window instanceof MultiPartitionWindow ? scope.window : null;
  const combos = window?.values ?? checkedValues(config, scope.values ?? {});
  const time = config.timeDimension;
  const horizon = time ? horizonOf(asset, time.config, scope) : null;
  const at = config.dimensions.findIndex((d) => d.kind === "time");
  const times = time ? timeExpected(time.config, timeParts(stored, at), { ...scope, window: window?.time ?? null }, horizon!) : [null];
  const expected: string[] = [];
  for (const combination of product(config.listDimensions.map((d) => combos[d.name]!))) {
    for (const period of times) {
      const parts = [...combination];
      if (period !== null) parts.splice(at, 0, period);
      expected.push(parts.join("|"));
    }
  }
  return { expected, horizon };
}

function timeParts(stored: Iterable<string>, at: number): string[] {
  const parts = new Set<string>();
  for (const key of stored) {
    const part = key.split("|")[at];
    if (part !== undefined) parts.add(part);
  }
  return [...parts];
}

/** Every combination of one value of each list, in declared order, the last list fastest. */
function product(lists: readonly (readonly string[])[]): string[][] {
  let out: string[][] = [[]];
  for (const list of lists) out = out.flatMap((head) => list.map((value) => [...head, value]));
  return out;
}

/**
 * Stored keys that are neither expected nor unexpected: everything outside a window, and the
 * periods after the end of the range up to the current one (their data may be arriving).
 */
export function multiOutOfScope(config: MultiPartitionConfig, scope: CoverageScope, horizon: Horizon | null): (key: string) => boolean {
  if (scope.window) return () => true;
  const g = config.granularity;
  const at = config.dimensions.findIndex((d) => d.kind === "time");
  // Values left out by `values` are not asked about.
  const narrowed = config.dimensions.flatMap((d, i) =>
    d.kind === "list" && scope.values?.[d.name] ? [[i, scope.values[d.name]!] as const] : [],
  );
  const [after, upTo] = g && horizon ? [g.format(horizon.last), g.format(horizon.current)] : [null, null];
  return (key) => {
    const parts = key.split("|");
    if (narrowed.some(([i, values]) => !values.includes(parts[i]!))) return true;
    const part = parts[at] ?? "";
    return after !== null && part > after && part <= upTo!;
  };
}

/** Each partition with its keys by dimension name. */
export function withKeys(partitions: readonly PartitionCoverage[], dimensions: readonly CoverageDimension[]): PartitionCoverage[] {
  return partitions.map((p) => {
    const parts = p.key.split("|");
    if (parts.length !== dimensions.length) return p;
    return { ...p, keys: Object.fromEntries(dimensions.map((d, i) => [d.name, parts[i]!])) };
  });
}
