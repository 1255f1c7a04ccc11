import { ListPartitionConfig, MultiPartitionConfig, MultiPartitionWindow, TimePartitionConfig } from "../../partitioning/index.js";
import type { PartitionConfig, PartitionFilter, PartitionWindow } from "../../partitioning/index.js";
import { instantOf } from "../../partitioning/dates.js";
import { PartitionError } from "../../errors.js";

// How DatabaseDestination maps between partitions and rows: the filters selecting a window's
// rows, and the partition a stored value counts towards.

/** The partition key a stored column value (as `count` renders it) belongs to, or null. */
export function partitionKeyOf(partitioning: PartitionConfig | null, value: string): string | null {
  if (partitioning instanceof MultiPartitionConfig) return multiKeyOf(partitioning, value);
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
 * (whose rows no single range holds). A multi window's: one conjunction (an array, every filter
 * holding) per combination of its lists' values, each the time window's bounds (when it has a
 * time dimension) and one `{ column, value }` per list, in declared order.
 */
export function filtersOf(window: PartitionWindow, column: string): PartitionWhere[] {
  if (window instanceof MultiPartitionWindow) return multiFilters(window);
  const filter = window.filter(column);
  return "values" in filter ? window.partitions.map((partition) => partition.filter(column)) : [filter];
}

/** What selects a table's rows: one filter, or several that must all hold (a multi partition's, one per dimension). */
export type PartitionWhere = PartitionFilter | readonly PartitionFilter[];

/**
 * The order of a multi partitioning's columns in the text a count gives back (`count` and
 * `countPeriods` with several columns): the time dimension's first, as periods are computed on
 * it, then each list's in declared order.
 */
export function countColumns(config: MultiPartitionConfig): string[] {
  const time = config.timeDimension;
  return [...(time ? [time.column] : []), ...config.listDimensions.map((d) => d.column)];
}

/** The key of a count's text (`countColumns`' values joined by "|"): each dimension's value read by its kind, in declared order. */
function multiKeyOf(config: MultiPartitionConfig, value: string): string | null {
  const parts = value.split("|");
  const order = countColumns(config);
  if (parts.length !== order.length) return null;
  const keys: string[] = [];
  for (const d of config.dimensions) {
    const key = partitionKeyOf(d.config, parts[order.indexOf(d.column)]!);
    if (key === null) return null;
    keys.push(key);
  }
  return keys.join("|");
}

function multiFilters(window: MultiPartitionWindow): PartitionFilter[][] {
  const config = window.config;
  const lists = config.listDimensions;
  let combinations: PartitionFilter[][] = [[]];
  for (const d of lists) {
    combinations = combinations.flatMap((picked) => window.values[d.name]!.map((value) => [...picked, { column: d.column, value }]));
  }
  const time = config.timeDimension;
  return combinations.map((picked) => {
    let list = 0;
    return config.dimensions.map((d) => (d === time ? window.time!.filter(d.column) : picked[list++]!));
  });
}
