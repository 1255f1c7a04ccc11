import type { PartitionFilter } from "../../partitioning/index.js";
import type { IOContext } from "../io-context.js";
import type { MaybePromise } from "../../maybe-promise.js";

/**
 * The four hooks a database backend writes, in its SQL dialect. `select` returns the table in
 * the backend's native shape, or null when the table does not exist; `count` maps each stored
 * value of the column, as text (ISO 8601 for dates and instants), to its number of rows, and
 * is empty for a missing table; `delete` on a missing table does nothing. The base sends a
 * filter `{ column, value }` or `{ column, start, end }` (half-open), or null, nothing else.
 */
export interface DatabaseHooks {
  insert(table: string, dataset: string | null, data: unknown, context: IOContext): MaybePromise<void>;
  delete(table: string, dataset: string | null, where: PartitionFilter | null): MaybePromise<void>;
  select(table: string, dataset: string | null, where: PartitionFilter | null): MaybePromise<unknown>;
  count(table: string, dataset: string | null, column: string): MaybePromise<Record<string, number>>;
}

/**
 * Optional hooks keeping the record of which partitions were written, so that a partition
 * written with no rows reads as empty (and counts 0) while one never written is missing. A
 * backend implements both or neither; without them the base keeps the record in a table
 * `_interloper_partitions` of the dataset, through the four hooks above.
 */
export interface PartitionLedger {
  /** Records, inside the write's transaction, that these partitions of `table` were written. */
  recordPartitions?(table: string, dataset: string | null, keys: readonly string[]): MaybePromise<void>;
  /** Which of `keys` (every one recorded, when null) were recorded as written for `table`. */
  writtenPartitions?(table: string, dataset: string | null, keys: readonly string[] | null): MaybePromise<Iterable<string>>;
  /** Forgets every partition recorded for `table` (for `--full-refresh`, inside its transaction). */
  forgetPartitions?(table: string, dataset: string | null): MaybePromise<void>;
}
