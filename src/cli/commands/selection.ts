import type { MissingOptions } from "../../api/missing.js";
import type { PlanOptions } from "../../api/plan.js";
import { ConfigError } from "../../errors.js";

/** The flag that leaves assets out, shared by materialize, plan, coverage and list. */
export interface ExcludeFlags {
  /** Selectors, in the positional arguments' syntax. */
  readonly exclude?: readonly string[];
}

/** The flags that name assets and partitions, shared by materialize and plan. */
export interface SelectionFlags extends ExcludeFlags {
  readonly partition?: string;
  readonly window?: string;
  readonly lookback?: number;
  readonly offset?: number;
  readonly tz?: string;
}

/** Plan options from command-line flags (undefined flags stay absent). */
export function planOptions(selectors: readonly string[], flags: SelectionFlags): PlanOptions {
  return {
    assets: selectors,
    ...(flags.exclude?.length ? { exclude: flags.exclude } : {}),
    ...(flags.partition !== undefined ? { partition: flags.partition } : {}),
    ...(flags.window !== undefined ? { window: flags.window } : {}),
    ...(flags.lookback !== undefined ? { lookback: flags.lookback } : {}),
    ...(flags.offset !== undefined ? { offset: flags.offset } : {}),
    ...(flags.tz !== undefined ? { tz: flags.tz } : {}),
  };
}

/** The flags that end `--missing`'s range of time. */
export interface RangeEndFlags {
  readonly missing?: boolean;
  readonly until?: string;
  readonly includeCurrent?: boolean;
}

/** --until and --include-current say where `--missing` looks: alone they would do nothing. */
export function rangeEndNeedsMissing(flags: RangeEndFlags): void {
  const flag = flags.until !== undefined ? "--until" : flags.includeCurrent ? "--include-current" : null;
  if (flag && !flags.missing) throw new ConfigError(`${flag} only applies with --missing`);
}

/** The missing options the range-end flags give (undefined flags stay absent). */
export function rangeEnd(flags: RangeEndFlags): Pick<MissingOptions, "until" | "includeCurrent"> {
  return { ...(flags.until !== undefined ? { until: flags.until } : {}), ...(flags.includeCurrent ? { includeCurrent: true } : {}) };
}
