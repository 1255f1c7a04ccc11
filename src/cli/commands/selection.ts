import type { MissingOptions } from "../../api/session/index.js";
import type { MultiValues, Plan, PlanOptions, Session } from "../../api/session/index.js";
import { ConfigError, PartitionError } from "../../errors.js";
import { currentPeriod } from "../../partitioning/current-period.js";
import { MultiPartitionWindow, TimePartitionWindow } from "../../partitioning/index.js";

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
  /** With `--lookback`: count the period in progress (else left to finish, as coverage leaves it). */
  readonly includeCurrent?: boolean;
  /** `--values` texts (`region=eu,us`), read by the session. */
  readonly values?: readonly string[];
}

/**
 * `--values` as the session reads it (`{ region: ["eu", "us"] }`), for the assets the selectors
 * name; absent when not given.
 */
export function valuesOf(
  session: Pick<Session, "parseValues">,
  selectors: readonly string[],
  flags: Pick<SelectionFlags, "values" | "exclude">,
): { values?: MultiValues } {
  if (!flags.values?.length) return {};
  return { values: session.parseValues(flags.values, { select: selectors, exclude: flags.exclude ?? [] }) };
}

/** Plan options from command-line flags (undefined flags stay absent). */
export function planOptions(session: Pick<Session, "parseValues">, selectors: readonly string[], flags: SelectionFlags): PlanOptions {
  return {
    ...valuesOf(session, selectors, flags),
    assets: selectors,
    ...(flags.exclude?.length ? { exclude: flags.exclude } : {}),
    ...(flags.partition !== undefined ? { partition: flags.partition } : {}),
    ...(flags.window !== undefined ? { window: flags.window } : {}),
    ...(flags.lookback !== undefined ? { lookback: flags.lookback } : {}),
    ...(flags.offset !== undefined ? { offset: flags.offset } : {}),
    ...(flags.tz !== undefined ? { tz: flags.tz } : {}),
    ...(flags.includeCurrent && flags.lookback !== undefined ? { includeCurrent: true } : {}),
  };
}

/** The flags that end `--missing`'s range of time. */
export interface RangeEndFlags {
  readonly missing?: boolean;
  readonly until?: string;
  readonly includeCurrent?: boolean;
}

/** --until says where `--missing` looks: alone it would do nothing. (--include-current alone lets periods not begun run.) */
export function rangeEndNeedsMissing(flags: RangeEndFlags): void {
  if (flags.until !== undefined && !flags.missing) throw new ConfigError("--until only applies with --missing");
}

/**
 * A window reaching periods that have not begun is nearly always a slip (`..2126-01-01`): it is
 * refused before anything runs, unless --include-current says it is meant. The current period
 * (begun, not ended) runs as asked; --missing never runs a period that has not begun (coverage
 * expects none), so its window may reach past now.
 */
export function refuseNotBegun(plan: Plan, now: Date, flags: RangeEndFlags & { readonly tz?: string }): void {
  // A multi window's periods are its time dimension's (`2027-06-01|eu` is a day not begun).
  const window = plan.window instanceof MultiPartitionWindow ? plan.window.time : plan.window;
  if (flags.missing || flags.includeCurrent || !(window instanceof TimePartitionWindow)) return;
  const g = window.granularity;
  // The current period in the calendar the window was named in (--tz; days of UTC otherwise).
  const current = currentPeriod(g, now, flags.tz ?? "UTC");
  if (window.end <= current) return;
  const next = g.advance(current, 1);
  const named = String(plan.window);
  const what = plan.window!.length === 1 ? `partition ${named} has` : `window ${named} reaches ${g.format(next)}, which has`;
  throw new PartitionError(
    `${what} not begun (now is ${now.toISOString()}): end it at ${g.format(current)} at the latest, or add --include-current to run periods that have not begun`,
  );
}

/** The missing options the range-end flags give (undefined flags stay absent). */
export function rangeEnd(flags: RangeEndFlags): Pick<MissingOptions, "until" | "includeCurrent"> {
  return { ...(flags.until !== undefined ? { until: flags.until } : {}), ...(flags.includeCurrent ? { includeCurrent: true } : {}) };
}
