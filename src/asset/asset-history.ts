// An asset's provenance as its first destination keeps it: the records of its writes.
import { ConfigError } from "../errors.js";
import { HISTORY_KEPT, type Destination } from "../destination/destination.js";
import type { Materialization } from "../destination/provenance/materialization.js";
import type { IOContext } from "../destination/index.js";
import type { Partition, PartitionConfig } from "../partitioning/index.js";

/** Options of `asset.history`. */
export interface HistoryOptions {
  /** At most this many records, the newest (default: 10, what every destination keeps at least per partition). */
  readonly limit?: number;
}

/**
 * The records of an asset's writes, newest first: of one partition (a key or a Partition; null or
 * undefined for every partition, or the whole of an unpartitioned asset). Empty when the
 * destination keeps no records (its provenance is unknown) or nothing was written since it began to.
 */
export async function assetHistory(
  asset: { readonly qualifiedKey: string; readonly partitioning: PartitionConfig | null; ioContext(window: null): IOContext },
  destination: Destination,
  partition: string | Partition | null | undefined,
  options: HistoryOptions,
): Promise<Materialization[]> {
  const limit = options.limit ?? HISTORY_KEPT;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new ConfigError(`history: limit must be a whole number of 1 or more, got ${String(limit)}`);
  if (!destination.materializationHistory) return [];
  const context = asset.ioContext(null);
  if (!asset.partitioning) return destination.materializationHistory(context, { partition: null, limit });
  if (partition === null || partition === undefined) return destination.materializationHistory(context, { limit });
  const checked = asset.partitioning.check(
    typeof partition === "string" ? asset.partitioning.partition(partition) : partition,
    asset.qualifiedKey,
  );
  return destination.materializationHistory(context, { partition: checked.partitions[0]!, limit });
}
