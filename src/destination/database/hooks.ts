import type { PartitionFilter } from "../../partitioning/index.js";
import type { IOContext } from "../io-context.js";

type MaybePromise<T> = T | Promise<T>;

/**
 * The four hooks a database backend writes, in its SQL dialect. `select` returns the table in
 * the backend's native shape, or null when the table does not exist; `count` maps each stored
 * value of the column, as text (ISO 8601 for dates and instants), to its number of rows, and
 * is empty for a missing table; `delete` on a missing table does nothing.
 */
export interface DatabaseHooks {
  insert(table: string, dataset: string | null, data: unknown, context: IOContext): MaybePromise<void>;
  delete(table: string, dataset: string | null, where: PartitionFilter | null): MaybePromise<void>;
  select(table: string, dataset: string | null, where: PartitionFilter | null): MaybePromise<unknown>;
  count(table: string, dataset: string | null, column: string): MaybePromise<Record<string, number>>;
}
