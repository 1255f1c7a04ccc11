import { ListPartitionConfig, MultiPartitionConfig, type PartitionConfig } from "../partitioning/index.js";
import { TableData } from "../representation/index.js";
import { keyedTable } from "../keyed.js";

/**
 * How many rows a stored value counts as: a table's rows; for anything else, which nothing can
 * count, 1 when there is a value and 0 for null or undefined.
 */
export function rowCountOf(data: unknown): number {
  const table = TableData.from(data);
  if (table) return table.length;
  return data === null || data === undefined ? 0 : 1;
}

/**
 * Rows per partition key in the one order every destination returns them: a list partitioning's
 * keys as its values are declared, then any key it no longer declares; other keys as strings,
 * which is chronological for the keys of one time granularity. (Any value per key: staleness orders its reasons so too.) Counts already in that order (a
 * sorted listing of partition folders) are not sorted again.
 */
export function orderedCounts<T = number>(counts: Iterable<readonly [string, T]>, partitioning: PartitionConfig | null): Record<string, T> {
  const compareKeys = partitioning instanceof MultiPartitionConfig ? multiOrder(partitioning) : keyOrder(partitioning);
  const compare = ([a]: readonly [string, T], [b]: readonly [string, T]) => compareKeys(a, b);
  const entries = [...counts];
  if (entries.some((entry, at) => at > 0 && compare(entries[at - 1]!, entry) > 0)) entries.sort(compare);
  const ordered = keyedTable<T>();
  for (const [key, value] of entries) ordered[key] = value;
  return ordered;
}

/** The order of one kind's keys: a list's declared values first, as declared, then the rest as strings. */
function keyOrder(partitioning: PartitionConfig | null): (a: string, b: string) => number {
  const declared = partitioning instanceof ListPartitionConfig ? new Map(partitioning.values.map((value, at) => [value, at])) : null;
  const rank = (key: string) => declared?.get(key) ?? declared?.size ?? 0;
  return (a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The order of multi keys, the order of a window's partitions: by the time dimension's key, then
 * by each list's in declared order (each by `keyOrder`); a key of another shape after them all.
 */
function multiOrder(config: MultiPartitionConfig): (a: string, b: string) => number {
  const dimensions = config.dimensions.map((d, at) => ({ at, order: keyOrder(d.config), time: d.kind === "time" }));
  const ranked = [...dimensions.filter((d) => d.time), ...dimensions.filter((d) => !d.time)];
  const width = config.dimensions.length;
  return (a, b) => {
    const pa = a.split("|");
    const pb = b.split("|");
    if ((pa.length === width) !== (pb.length === width)) return pa.length === width ? -1 : 1;
    if (pa.length !== width) return a < b ? -1 : a > b ? 1 : 0;
    for (const d of ranked) {
      const order = d.order(pa[d.at]!, pb[d.at]!);
      if (order !== 0) return order;
    }
    return 0;
  };
}
