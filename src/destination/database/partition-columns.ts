import { MultiPartitionConfig, type PartitionConfig, TimePartitionConfig } from "../../partitioning/index.js";

/** A column a table's partitions are selected by, and whether its values are instants (a time partitioning's). */
export interface KeyColumn {
  readonly column: string;
  readonly time: boolean;
}

/**
 * The columns a partitioning selects rows by: its one column, or each dimension's column of a
 * multi partitioning, in declared order (its joined `column` is no column of the table).
 */
export function keyColumns(partitioning: PartitionConfig | null): readonly KeyColumn[] {
  if (!partitioning) return [];
  if (partitioning instanceof MultiPartitionConfig)
    return partitioning.dimensions.map((d) => ({ column: d.column, time: d.kind === "time" }));
  return [{ column: partitioning.column, time: partitioning instanceof TimePartitionConfig }];
}

/** The key column of this name, or undefined when `name` selects no partition. */
export function keyColumn(partitioning: PartitionConfig | null, name: string): KeyColumn | undefined {
  return keyColumns(partitioning).find((key) => key.column === name);
}
