// Coverage with check warnings: stored partitions whose record says a warn check failed when they
// were written (issue 35) are marked with how many and which, and counted. The records are read
// only for an asset with a warn check whose first destination keeps them.
import type { Asset } from "../../asset/asset.js";
import type { RecordCache } from "../../asset/staleness.js";
import type { PartitionWindow } from "../../partitioning/index.js";
import type { Coverage, PartitionCoverage } from "./compute.js";

/** Whether any partition of the asset can carry a warning: it has a warn check, and records to keep the verdicts. */
export function canWarn(asset: Asset): boolean {
  return asset.checks.some((check) => check.severity === "warn") && asset.primaryDestination?.materializations !== undefined;
}

/** The failed warn checks of each stored partition's current record (of the window, all for null), by key (only those with any). */
export async function failedWarnings(
  asset: Asset,
  records: RecordCache,
  window: PartitionWindow | null,
): Promise<ReadonlyMap<string, readonly string[]>> {
  const found = new Map<string, readonly string[]>();
  for (const [key, record] of Object.entries(await records.ofWindow(asset, window))) {
    const failed = (record.checks ?? []).filter((c) => c.severity === "warn" && !c.passed).map((c) => c.name);
    if (failed.length > 0) found.set(key, failed);
  }
  return found;
}

/** The coverage with its stored partitions written with failed warn checks marked (`warnings`, `warningChecks`) and counted. */
export function markWarnings(coverage: Coverage, warnings: ReadonlyMap<string, readonly string[]>): Coverage {
  if (warnings.size === 0) return coverage;
  const mark = (p: PartitionCoverage): PartitionCoverage => {
    const failed = p.status === "missing" ? undefined : warnings.get(p.key);
    return failed ? { ...p, warnings: failed.length, warningChecks: failed } : p;
  };
  const partitions = coverage.partitions.map(mark);
  const count = partitions.filter((p) => p.warnings !== undefined && p.status !== "unexpected").length;
  return { ...coverage, partitions, warnings: count, inProgress: coverage.inProgress && mark(coverage.inProgress) };
}
