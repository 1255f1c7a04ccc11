import { ListPartitionConfig, TimePartitionConfig } from "../../partitioning/index.js";
import type { PartitionConfig, PartitionFilter, PartitionWindow } from "../../partitioning/index.js";
import { instantOf } from "../../partitioning/dates.js";
import { PartitionError } from "../../errors.js";

// How DatabaseDestination maps between partitions and rows: the filters selecting a window's
// rows, and the partition a stored value counts towards.

/** The partition key a stored column value (as `count` renders it) belongs to, or null. */
export function partitionKeyOf(partitioning: PartitionConfig | null, value: string): string | null {
  if (partitioning instanceof TimePartitionConfig) {
    const time = instantOf(value);
    if (Number.isNaN(time)) return null;
    const g = partitioning.granularity;
    return g.format(g.truncate(new Date(time)));
  }
  if (partitioning instanceof ListPartitionConfig || partitioning === null) return value;
  // A kind of the user's own: a stored value names the partition its kind reads it as a key of.
  try {
    return partitioning.partition(value).key;
  } catch (error) {
    // `partition` throws PartitionError for text that is no key: a value of no partition.
    if (error instanceof PartitionError) return null;
    throw error;
  }
}

/**
 * The filters selecting a window's rows, in the two shapes the hooks are documented to receive:
 * a time window's half-open bounds, and one `{ column, value }` per partition of a list window
 * (whose rows no single range holds).
 */
export function filtersOf(window: PartitionWindow, column: string): PartitionFilter[] {
  const filter = window.filter(column);
  return "values" in filter ? window.partitions.map((partition) => partition.filter(column)) : [filter];
}
