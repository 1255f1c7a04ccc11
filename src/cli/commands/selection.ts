import type { PlanOptions } from "../../api/plan.js";

/** The flags that name partitions, shared by materialize and plan. */
export interface SelectionFlags {
  readonly partition?: string;
  readonly window?: string;
  readonly lookback?: number;
  readonly offset?: number;
  readonly tz?: string;
}

/** Plan options from command-line flags (undefined flags stay absent). */
export function planOptions(assets: readonly string[], flags: SelectionFlags): PlanOptions {
  return {
    assets,
    ...(flags.partition !== undefined ? { partition: flags.partition } : {}),
    ...(flags.window !== undefined ? { window: flags.window } : {}),
    ...(flags.lookback !== undefined ? { lookback: flags.lookback } : {}),
    ...(flags.offset !== undefined ? { offset: flags.offset } : {}),
    ...(flags.tz !== undefined ? { tz: flags.tz } : {}),
  };
}
