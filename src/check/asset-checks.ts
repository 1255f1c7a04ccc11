// The `checks` option of an asset, checked when the config loads: a list of checks with
// distinct names (results are kept by name), each reading only columns the asset's declared
// schema has, and rowCountChange only on a partitioned asset.
import { ConfigError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { isCheck, type Check } from "./check.js";

/** The checks an asset definition declares, frozen; a ConfigError for anything else. */
export function assetChecks(asset: string, value: unknown): readonly Check[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value)) {
    throw new ConfigError(`asset "${asset}": checks must be an array of il.checks.* or il.check(...), got ${describeValue(value)}`);
  }
  const names = new Set<string>();
  for (const [index, entry] of value.entries()) {
    if (!isCheck(entry)) {
      throw new ConfigError(
        `asset "${asset}": checks[${index}] is not a check (il.checks.* or il.check(...)), got ${describeValue(entry)}`,
      );
    }
    if (names.has(entry.name))
      throw new ConfigError(`asset "${asset}": two checks are named ${JSON.stringify(entry.name)}; give each its own`);
    names.add(entry.name);
  }
  return Object.freeze([...(value as Check[])]);
}

/**
 * Checks an asset's checks against what the asset is: each column they read must be in the
 * declared schema (when there is one), and rowCountChange needs partitions to compare.
 */
export function checkAgainstAsset(asset: string, checks: readonly Check[], columns: readonly string[] | null, partitioned: boolean): void {
  for (const check of checks) {
    const missing = columns === null ? undefined : check.columns.find((c) => !columns.includes(c));
    if (missing !== undefined) {
      throw new ConfigError(
        `asset "${asset}": check ${check.name} reads the column "${missing}", which the asset's schema does not have (it has: ${columns!.join(", ")})`,
      );
    }
    if (check.needsPartitions && !partitioned) {
      throw new ConfigError(`asset "${asset}": check ${check.name} compares stored partitions, but the asset is not partitioned`);
    }
  }
}
