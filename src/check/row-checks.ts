// The checks of each row's values: notNull and acceptedValues. Each keeps a count and at most
// five examples, whatever the number of rows.
import { ConfigError } from "../errors.js";
import type { Row } from "../representation/index.js";
import { describeValue } from "../text/describe-value.js";
import { count } from "../text/english.js";
import { verdictOf, type Check } from "./check.js";
import { callName, checkedOptions, columnsAndOptions, makeCheck, type CheckOptions } from "./options.js";
import { cell, equalityKey, Examples, isAbsent, readsOwn, showValue } from "./values.js";

/**
 * Every named column holds a value in every row: null, undefined and a missing field fail.
 * NaN is a value (a number that is not a number): it passes, and fails `range`.
 */
export function notNull(...args: [string, ...string[]] | [...columns: string[], options: CheckOptions]): Check {
  const { columns, options, call } = columnsAndOptions("notNull", args);
  const { severity } = checkedOptions<CheckOptions>(call, options, []);
  return makeCheck({
    type: "notNull",
    name: `notNull(${columns.join(", ")})`,
    severity,
    columns,
    start: (_scope, check) => {
      let failures = 0;
      const examples = new Examples();
      const owns = columns.map(readsOwn);
      // Out of the loop: a closure made in the loop over its variables costs every row a
      // context, failed or not (it doubled this check's time).
      const example = (row: Row, column: string, at: number): void => {
        const what = !Object.hasOwn(row, column) ? "missing" : String(row[column]);
        examples.add(at, () => `row ${at} (${column}: ${what})`);
      };
      return {
        add(rows: readonly Row[], offset: number) {
          for (let i = 0; i < rows.length; i++) {
            const row = rows[i]!;
            let failed = false;
            for (let c = 0; c < columns.length; c++) {
              const column = columns[c]!;
              const value = owns[c] ? row[column] : cell(row, column);
              if (value !== null && value !== undefined) continue;
              failed = true;
              example(row, column, offset + i);
            }
            if (failed) failures++;
          }
        },
        verdict: (rows) =>
          verdictOf(
            check,
            failures,
            failures === 0
              ? `no nulls in ${count(rows, "row")}`
              : `${count(failures, "row")} of ${rows} with a null in ${columns.join(", ")}`,
            examples.list,
          ),
      };
    },
  });
}

/** The values a column may hold; a null passes (notNull says whether it may be null). -0 is 0, a Date its instant. */
export function acceptedValues(column: string, values: readonly unknown[], options?: CheckOptions): Check {
  const call = callName("acceptedValues", [column]);
  columnsAndOptions("acceptedValues", [column]);
  if (!Array.isArray(values) || values.length === 0) {
    throw new ConfigError(`${call}: values must be a non-empty array of the values allowed, got ${describeValue(values)}`);
  }
  const { severity } = checkedOptions<CheckOptions>(call, options, []);
  const allowed = new Set(values.map(equalityKey));
  const shown = values.slice(0, 5).map(showValue).join(", ") + (values.length > 5 ? `, +${values.length - 5} more` : "");
  return makeCheck({
    type: "acceptedValues",
    name: `acceptedValues(${column}: ${shown})`,
    severity,
    columns: [column],
    start: (_scope, check) => {
      let failures = 0;
      const examples = new Examples();
      const own = readsOwn(column);
      return {
        add(rows: readonly Row[]) {
          for (const row of rows) {
            const value = own ? row[column] : cell(row, column);
            if (isAbsent(value)) continue;
            const key = typeof value === "object" ? equalityKey(value) : value;
            if (allowed.has(key)) continue;
            failures++;
            examples.add(key, () => showValue(value));
          }
        },
        verdict: (rows) =>
          verdictOf(
            check,
            failures,
            failures === 0
              ? `every ${column} accepted in ${count(rows, "row")}`
              : `${count(failures, "row")} of ${rows} with ${column} not among ${shown}`,
            examples.list,
          ),
      };
    },
  });
}
