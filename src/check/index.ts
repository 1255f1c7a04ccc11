// Checks (issue 35): rules an asset's data must pass before it is written, run per stored
// partition over the conformed rows. What `il.checks.*` and `il.check` make, and how they run.
import { acceptedValues, notNull } from "./row-checks.js";
import { range } from "./range.js";
import { rowCount, rowCountChange } from "./table-checks.js";
import { unique } from "./unique.js";

/** The built-in checks: `il.checks.notNull("id")`, `il.checks.unique("id")`, ... */
export const checks = Object.freeze({ notNull, unique, acceptedValues, range, rowCount, rowCountChange });

export {
  isCheck,
  MAX_EXAMPLES,
  type Check,
  type CheckAccumulator,
  type CheckKind,
  type CheckScope,
  type CheckSeverity,
  type CheckVerdict,
} from "./check.js";
export type { CheckOptions } from "./options.js";
export type { RangeBound, RangeOptions } from "./range.js";
export {
  check,
  median,
  type CheckContext,
  type CheckFunction,
  type CheckRow,
  type RowCountChangeOptions,
  type RowCountOptions,
} from "./table-checks.js";
export { PartitionChecks, WindowChecks, failedVerdicts, previousCounts, type CheckTarget, type PartitionVerdicts } from "./evaluate.js";
export { checkError } from "./failure.js";
export { describeCheck } from "./describe.js";
export { verifyChecks } from "./verify.js";
export { assetChecks, checkAgainstAsset } from "./asset-checks.js";
