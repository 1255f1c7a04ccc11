// How a failed error check is said: CheckError's message, first line whole (the asset, each
// partition, each failed check with how many rows and a few examples), then one line per check.
import { CheckError, type FailedCheck } from "../errors.js";
import { count } from "../text/english.js";
import type { CheckVerdict } from "./check.js";
import { failedVerdicts, type PartitionVerdicts } from "./evaluate.js";

/** One failed check as a clause: `unique(id) failed on 3 rows (17, 18)`. */
function clause(verdict: CheckVerdict, table: boolean): string {
  const examples = verdict.examples.length > 0 ? ` (${verdict.examples.join(", ")})` : "";
  return table ? `${verdict.name} failed: ${verdict.message}` : `${verdict.name} failed on ${count(verdict.failures, "row")}${examples}`;
}

/** Whether a verdict is of the table as a whole: a failed row check always has an example. */
const tableLevel = (verdict: CheckVerdict): boolean => verdict.examples.length === 0;

/**
 * The CheckError of an execution's verdicts when an error check failed, else null. Warn checks
 * never make one.
 */
export function checkError(asset: string, results: readonly PartitionVerdicts[]): CheckError | null {
  const failed = failedVerdicts(results).filter(({ verdict }) => verdict.severity === "error");
  if (failed.length === 0) return null;
  const byPartition = new Map<string | null, CheckVerdict[]>();
  for (const { partition, verdict } of failed) byPartition.set(partition, [...(byPartition.get(partition) ?? []), verdict]);
  const parts = [...byPartition].map(([partition, verdicts]) => {
    const said = verdicts.map((v) => clause(v, tableLevel(v))).join("; ");
    return partition === null ? said : `${partition}: ${said}`;
  });
  const first = `asset "${asset}" failed its checks, so nothing was written: ${parts.join(" | ")}`;
  const details = failed.map(
    ({ partition, verdict }) => `  ${partition === null ? "" : `${partition} `}${verdict.name}: ${verdict.message}`,
  );
  const data: FailedCheck[] = failed.map(({ partition, verdict }) => ({
    partition,
    check: verdict.name,
    failures: verdict.failures,
    message: verdict.message,
    examples: verdict.examples,
  }));
  return new CheckError([first, ...details].join("\n"), { asset, failed: data });
}
