import { PartitionError } from "../errors.js";
import type { Partition, PartitionConfig, PartitionWindow } from "../partitioning/index.js";

/** What names an asset and its partitioning: every runtime asset. */
interface Partitioned {
  readonly qualifiedKey: string;
  readonly partitioning: PartitionConfig | null;
}

/**
 * The window an asset runs or is read over: checked by its partitioning (a read may take any
 * window, `allowWindow`), or null for an unpartitioned asset. PartitionError, naming the asset,
 * when a partitioned asset is given none.
 */
export function assetWindowOf(
  asset: Partitioned,
  partitionOrWindow: PartitionWindow | Partition | null | undefined,
  allowWindow?: boolean,
): PartitionWindow | null {
  if (!asset.partitioning) return null;
  if (!partitionOrWindow) {
    throw new PartitionError(
      `asset "${asset.qualifiedKey}" is partitioned by "${asset.partitioning.column}": give a partition or a window`,
    );
  }
  return asset.partitioning.check(partitionOrWindow, asset.qualifiedKey, allowWindow);
}
