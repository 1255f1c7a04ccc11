import { ListPartitionConfig, type PartitionConfig } from "../partitioning/index.js";
import { TableData } from "../representation/index.js";

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
  const declared = partitioning instanceof ListPartitionConfig ? new Map(partitioning.values.map((value, at) => [value, at])) : null;
  const rank = (key: string) => declared?.get(key) ?? declared?.size ?? 0;
  const compare = ([a]: readonly [string, T], [b]: readonly [string, T]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
  const entries = [...counts];
  if (entries.some((entry, at) => at > 0 && compare(entries[at - 1]!, entry) > 0)) entries.sort(compare);
  return Object.fromEntries(entries);
}
