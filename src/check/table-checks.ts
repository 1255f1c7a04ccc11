// The checks of a partition as a whole: rowCount, rowCountChange against the stored history,
// and custom checks (`il.check(name, fn)`), which are given the partition's rows gathered.
import { ConfigError } from "../errors.js";
import type { Row } from "../representation/index.js";
import { describeValue } from "../text/describe-value.js";
import { count, formatCount } from "../text/english.js";
import { verdictOf, type Check, type CheckVerdict } from "./check.js";
import { callName, checkedOptions, countOption, makeCheck, type CheckOptions } from "./options.js";

export interface RowCountOptions extends CheckOptions {
  readonly min?: number;
  readonly max?: number;
}

/** The partition holds between min and max rows, inclusive. */
export function rowCount(options: RowCountOptions): Check {
  const call = "il.checks.rowCount(…)";
  const { min, max, severity } = checkedOptions<RowCountOptions>(call, options ?? {}, ["min", "max"]);
  const low = countOption(call, "min", min);
  const high = countOption(call, "max", max);
  if (low === undefined && high === undefined) throw new ConfigError(`${call}: give min, max or both ({ min: 1 })`);
  if (low !== undefined && high !== undefined && low > high) throw new ConfigError(`${call}: min ${low} is above max ${high}`);
  const bounds = [low === undefined ? "" : `min ${low}`, high === undefined ? "" : `max ${high}`].filter(Boolean).join(", ");
  return makeCheck({
    type: "rowCount",
    name: `rowCount(${bounds})`,
    severity,
    start: (_scope, check) => ({
      add() {},
      verdict: (rows) => {
        const failed = (low !== undefined && rows < low) || (high !== undefined && rows > high);
        return verdictOf(check, failed ? 1 : 0, `${count(rows, "row")}${failed ? `, outside ${bounds}` : ""}`);
      },
    }),
  });
}

export interface RowCountChangeOptions extends CheckOptions {
  /** How many stored partitions before this one the median is taken over. */
  readonly trailing: number;
  /** The largest change allowed, as a fraction of that median: 0.5 allows half as many to half as many again. */
  readonly maxChange: number;
}

/** The median of some counts (the mean of the middle two for an even number). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const percent = (fraction: number): string => (Number.isFinite(fraction) ? `${Math.round(fraction * 1000) / 10}%` : "an infinite change");

/**
 * The partition's row count is within `maxChange` of the median of the `trailing` stored
 * partitions before it. No verdict (it passes, saying so) while fewer than `trailing` exist.
 */
export function rowCountChange(options: RowCountChangeOptions): Check {
  const call = "il.checks.rowCountChange(…)";
  const { trailing, maxChange, severity } = checkedOptions<RowCountChangeOptions>(call, options, ["trailing", "maxChange"]);
  const n = countOption(call, "trailing", trailing, 1);
  if (n === undefined)
    throw new ConfigError(`${call}: trailing is required: how many previous partitions ({ trailing: 7, maxChange: 0.5 })`);
  if (typeof maxChange !== "number" || !(maxChange >= 0) || !Number.isFinite(maxChange)) {
    throw new ConfigError(`${call}: maxChange must be a fraction of at least 0 (0.5 for 50%), got ${describeValue(maxChange)}`);
  }
  return makeCheck({
    type: "rowCountChange",
    name: `rowCountChange(trailing ${n}, maxChange ${maxChange})`,
    severity,
    needsPartitions: true,
    start: (scope, check) => ({
      add() {},
      async verdict(rows): Promise<CheckVerdict> {
        const history = scope.previousRowCounts ? await scope.previousRowCounts(n) : [];
        if (history.length < n) {
          return verdictOf(check, 0, `no verdict: ${history.length} of the ${n} previous partitions it compares with are stored`);
        }
        const middle = median(history);
        const change = middle === 0 ? (rows === 0 ? 0 : Number.POSITIVE_INFINITY) : Math.abs(rows - middle) / middle;
        const said = `${count(rows, "row")} against a median of ${formatCount(middle)} over the ${n} previous partitions: ${percent(change)}`;
        return change > maxChange ? verdictOf(check, 1, `${said}, more than ${percent(maxChange)}`) : verdictOf(check, 0, said);
      },
    }),
  });
}

/** What a custom check's function is given besides the rows. */
export interface CheckContext {
  /** The asset's qualified key. */
  readonly asset: string;
  /** The partition's key; null for an unpartitioned asset. */
  readonly partition: string | null;
}

/**
 * A row as a custom check's rule reads it: its fields typed `any`, so that a rule reads
 * `r.amount > 0` without a cast (checks are declared apart from the asset's schema); name your
 * own row type as `il.check<Order>(...)` to have it checked.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CheckRow = Record<string, any>;

/** A custom check's rule: true passes; false, or a message saying what is wrong, fails. */
export type CheckFunction<R extends object = CheckRow> = (
  rows: readonly R[],
  context: CheckContext,
) => boolean | string | Promise<boolean | string>;

/**
 * A custom check. Unlike the built-ins it is given the partition's rows at once: over a streamed
 * partition they are gathered in memory first. A function that throws or returns anything but
 * true fails the check.
 */
export function check<R extends object = CheckRow>(name: string, fn: CheckFunction<R>, options?: CheckOptions): Check {
  if (typeof name !== "string" || name.trim() === "") {
    throw new ConfigError(`il.check(name, fn): name must be a non-empty string, got ${describeValue(name)}`);
  }
  const call = callName("custom", [name]);
  if (typeof fn !== "function")
    throw new ConfigError(`${call}: the rule must be a function (rows, ctx) => true | false | "message", got ${describeValue(fn)}`);
  const { severity } = checkedOptions<CheckOptions>(call, options, []);
  return makeCheck({
    type: "custom",
    name,
    severity,
    start: (scope, made) => {
      const rows: Row[] = [];
      return {
        add(batch: readonly Row[]) {
          for (const row of batch) rows.push(row);
        },
        async verdict(): Promise<CheckVerdict> {
          let result: unknown;
          try {
            // The rows are the asset's conformed rows: of the type the caller names, if it names one.
            result = await fn(rows as unknown as readonly R[], { asset: scope.asset, partition: scope.partition });
          } catch (error) {
            return verdictOf(made, 1, `threw: ${(error as Error)?.message ?? String(error)}`);
          }
          if (result === true) return verdictOf(made, 0, "passed");
          if (typeof result === "string" && result !== "") return verdictOf(made, 1, result);
          if (result === false || result === "") return verdictOf(made, 1, "failed");
          return verdictOf(made, 1, `returned ${describeValue(result)}; a check returns true, false or a message`);
        },
      };
    },
  });
}
