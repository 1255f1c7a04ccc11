// The checks of stored data (`interloper verify`): the same accumulators, fed a partition as it
// was read back, with nothing written either way.
import type { Partition } from "../partitioning/index.js";
import { batchesOf, isRowStream, type Row, type RowStream } from "../representation/index.js";
import type { CheckVerdict } from "./check.js";
import { WindowChecks, type CheckTarget } from "./evaluate.js";

/**
 * Runs `target`'s checks (an Asset is one) over one partition's rows (null: an unpartitioned
 * asset), given whole or as a stream of rows or batches; rowCountChange compares with the
 * partitions stored before it. Returns one verdict per check, in declared order.
 */
export async function verifyChecks(
  target: CheckTarget,
  partition: Partition | null,
  data: readonly Row[] | RowStream,
): Promise<CheckVerdict[]> {
  // One partition: every row is its own, as a read of it returns them.
  const checks = new WindowChecks(target, partition ? partition.window : null, null);
  if (isRowStream(data)) for await (const batch of batchesOf(data)) checks.add(batch);
  else checks.add(data as readonly Row[]);
  const [result] = await checks.verdicts();
  return [...result!.verdicts];
}
