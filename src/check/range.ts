// range: inclusive bounds for numbers, or for dates and times. Dates compare as instants: a
// Date by its time, an ISO string as parseIsoDateTime reads it (a string without a zone is UTC,
// as the schema reads it), so the verdict never depends on the process's time zone, and
// "2026-01-05T23:30:00-08:00" is after "2026-01-06" (it is 07:30 UTC on the 6th).
import { ConfigError } from "../errors.js";
import type { Row } from "../representation/index.js";
import { parseIsoDateTime } from "../schema/index.js";
import { describeValue } from "../text/describe-value.js";
import { count } from "../text/english.js";
import { verdictOf, type Check } from "./check.js";
import { callName, checkedOptions, columnsAndOptions, makeCheck, type CheckOptions } from "./options.js";
import { cell, equalityKey, Examples, isAbsent, readsOwn, showValue } from "./values.js";

/** A bound: a number (or bigint) for numbers; a Date or an ISO date or timestamp string for dates. */
export type RangeBound = number | bigint | Date | string;

export interface RangeOptions extends CheckOptions {
  readonly min?: RangeBound;
  readonly max?: RangeBound;
}

type Kind = "number" | "instant";

/** A bound as compared: a number, a bigint, or an instant in milliseconds; and which kind. */
function readBound(call: string, name: string, bound: RangeBound): [number | bigint, Kind] {
  if (typeof bound === "number" && !Number.isNaN(bound)) return [bound, "number"];
  if (typeof bound === "bigint") return [bound, "number"];
  if (bound instanceof Date && !Number.isNaN(bound.getTime())) return [bound.getTime(), "instant"];
  const parsed = typeof bound === "string" ? parseIsoDateTime(bound) : null;
  if (parsed) return [parsed.time, "instant"];
  throw new ConfigError(
    `${call}: ${name} must be a number, a Date or an ISO date or timestamp ("2026-01-05"), got ${describeValue(bound)}`,
  );
}

/** A value as compared against bounds of `kind`: NaN when it is not of that kind (a string among numbers, NaN itself). */
function comparable(value: unknown, kind: Kind): number | bigint {
  if (kind === "number") return typeof value === "number" || typeof value === "bigint" ? value : Number.NaN;
  if (value instanceof Date) return value.getTime();
  if (typeof value === "string") return parseIsoDateTime(value)?.time ?? Number.NaN;
  return Number.NaN;
}

const shownBound = (bound: RangeBound): string => (typeof bound === "string" ? bound : showValue(bound));

/** Values of a column within [min, max]; nulls pass (see notNull); NaN, and a value of another kind, fail. */
export function range(column: string, options: RangeOptions): Check {
  const call = callName("range", [column]);
  columnsAndOptions("range", [column]);
  const { min, max, severity } = checkedOptions<RangeOptions>(call, options, ["min", "max"]);
  if (min === undefined && max === undefined) throw new ConfigError(`${call}: give min, max or both ({ min: 0 })`);
  const low = min === undefined ? null : readBound(call, "min", min);
  const high = max === undefined ? null : readBound(call, "max", max);
  if (low && high && low[1] !== high[1]) throw new ConfigError(`${call}: min and max must both be numbers or both be dates`);
  if (low && high && low[0] > high[0]) throw new ConfigError(`${call}: min ${shownBound(min!)} is above max ${shownBound(max!)}`);
  const kind = (low ?? high)![1];
  const bounds = [min === undefined ? "" : `min ${shownBound(min)}`, max === undefined ? "" : `max ${shownBound(max)}`].filter(Boolean);
  const name = `range(${column}, ${bounds.join(", ")})`;
  return makeCheck({
    type: "range",
    name,
    severity,
    columns: [column],
    start: (_scope, check) => {
      let failures = 0;
      const examples = new Examples();
      const own = readsOwn(column);
      const numeric = kind === "number";
      return {
        add(rows: readonly Row[]) {
          for (const row of rows) {
            const value = own ? row[column] : cell(row, column);
            if (isAbsent(value)) continue;
            const at = numeric && typeof value === "number" ? value : comparable(value, kind);
            // NaN compares false both ways: it lands here, as a value of another kind does.
            if ((low === null || at >= low[0]) && (high === null || at <= high[0])) continue;
            failures++;
            examples.add(equalityKey(value), () => showValue(value));
          }
        },
        verdict: (rows) =>
          verdictOf(
            check,
            failures,
            failures === 0
              ? `every ${column} within ${bounds.join(", ")} in ${count(rows, "row")}`
              : `${count(failures, "row")} of ${rows} with ${column} outside ${bounds.join(", ")}`,
            examples.list,
          ),
      };
    },
  });
}
