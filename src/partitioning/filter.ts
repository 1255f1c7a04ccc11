/**
 * How a database selects a partition's rows: a list value, a time partition's half-open bounds,
 * or the members of a window of list partitions. The base destination resolves it; a dialect only
 * renders it.
 */
export type PartitionFilter =
  | { readonly column: string; readonly value: string }
  | { readonly column: string; readonly start: Date; readonly end: Date }
  | { readonly column: string; readonly values: readonly string[] };
