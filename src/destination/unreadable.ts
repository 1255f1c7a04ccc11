import { InterloperError, UnreadableDataError } from "../errors.js";
import type { Partition } from "../partitioning/index.js";
import type { IOContext } from "./io-context.js";
import type { Materialization } from "./provenance/materialization.js";

/** A stored partition whose data cannot be read: the file (or object) and why. */
export interface UnreadablePartition {
  readonly file: string;
  readonly error: string;
}

/**
 * What a destination holds of an asset for coverage: rows per stored partition key it could
 * count, and the stored partitions it could not read (by key), which are not in `counts`.
 */
export interface PartitionCounts {
  readonly counts: Record<string, number>;
  readonly unreadable: Record<string, UnreadablePartition>;
  /**
   * The current materialization record of each counted partition that has one, when counting
   * read them anyway (the local file stores: the ledger line that holds a count holds its
   * record); absent otherwise, and then asked of `materializations`.
   */
  readonly records?: Record<string, Materialization>;
}

/** An error's first line, as a reason. */
export function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
}

/**
 * Runs the decoding of a stored file: a failure that is not already one of interloper's (a
 * parser's "Quote Not Closed", a truncated Parquet footer) becomes an UnreadableDataError naming
 * the file, the asset and the partition.
 */
export async function decoding<T>(context: IOContext, partition: Partition | null, file: string, decode: () => T | Promise<T>): Promise<T> {
  try {
    return await decode();
  } catch (error) {
    if (error instanceof InterloperError) throw error;
    throw new UnreadableDataError(
      { file, asset: context.asset.key, partition: partition?.key ?? null, reason: reasonOf(error) },
      { cause: error },
    );
  }
}
