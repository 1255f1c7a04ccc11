// Runs checks as an execution does: fed in batches, then judged.
import { verifyChecks, type Check, type CheckVerdict } from "../../src/check/index.js";
import { TimePartition } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";

export interface JudgeOptions {
  /** Rows per batch; all at once when absent. */
  readonly batch?: number;
  /** Stored row counts before the partition, oldest first (the partition is then 2026-01-10). */
  readonly history?: readonly number[];
}

/** The verdict of one check over rows. */
export async function judge(check: Check, rows: readonly Row[], options: JudgeOptions = {}): Promise<CheckVerdict> {
  const { batch, history } = options;
  const data = batch === undefined ? rows : batches(rows, batch);
  const target = {
    qualifiedKey: "shop.orders",
    checks: [check],
    ...(history ? { previousRowCounts: async (_partition: string, n: number) => history.slice(-n) } : {}),
  };
  const [verdict] = await verifyChecks(target, history ? new TimePartition("2026-01-10") : null, data);
  return verdict!;
}

export async function* batches(rows: readonly Row[], size: number): AsyncGenerator<Row[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
