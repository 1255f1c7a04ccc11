// unique: no two rows share a value (of one column) or a combination of values (of several
// together). It keeps a 64-bit hash per distinct value, never the values (see hash-set.ts for
// the memory and the odds of a collision), so a streamed partition of millions of rows is
// checked in bounded memory. A row with a null in any of the columns is left out, as a SQL
// UNIQUE constraint does; -0 is 0, NaN equals NaN, a Date is its instant, and the number 1 and
// the string "1" differ.
import type { Row } from "../representation/index.js";
import { count } from "../text/english.js";
import { verdictOf, type Check } from "./check.js";
import { HashSet64, Hasher } from "./hash-set.js";
import { checkedOptions, columnsAndOptions, makeCheck, type CheckOptions } from "./options.js";
import { cell, Examples, readsOwn, showValue } from "./values.js";

// A tag per kind of value, fed before it: equal bits of different kinds never meet.
const STRING = 1;
const NUMBER = 2;
const BIGINT = 3;
const BOOLEAN = 4;
const DATE = 5;
const OTHER = 6;

/** Feeds one non-null value into the hasher. */
function feed(hasher: Hasher, value: unknown): void {
  switch (typeof value) {
    case "string":
      hasher.word(STRING);
      hasher.string(value);
      return;
    case "number":
      hasher.word(NUMBER);
      hasher.number(value);
      return;
    case "bigint":
      hasher.word(BIGINT);
      hasher.string(value.toString());
      return;
    case "boolean":
      hasher.word(BOOLEAN);
      hasher.word(value ? 1 : 0);
      return;
    default:
      if (value instanceof Date) {
        hasher.word(DATE);
        hasher.number(value.getTime());
      } else {
        hasher.word(OTHER);
        hasher.string(showValue(value));
      }
  }
}

/** No duplicate values of `columns` taken together; `failures` counts the rows that repeat an earlier one. */
export function unique(...args: [string, ...string[]] | [...columns: string[], options: CheckOptions]): Check {
  const { columns, options, call } = columnsAndOptions("unique", args);
  const { severity } = checkedOptions<CheckOptions>(call, options, []);
  return makeCheck({
    type: "unique",
    name: `unique(${columns.join(", ")})`,
    severity,
    columns,
    start: (_scope, check) => {
      const seen = new HashSet64();
      const hasher = new Hasher();
      const examples = new Examples();
      let failures = 0;
      const owns = columns.map(readsOwn);
      // Out of the loop: a closure made in the loop over its row costs every row a context.
      const example = (row: Row, key: string): void => examples.add(key, () => columns.map((c) => showValue(cell(row, c))).join(", "));
      return {
        add(rows: readonly Row[]) {
          seen.reserve(rows.length);
          next: for (const row of rows) {
            hasher.reset();
            for (let c = 0; c < columns.length; c++) {
              const value = owns[c] ? row[columns[c]!] : cell(row, columns[c]!);
              if (value === null || value === undefined) continue next;
              feed(hasher, value);
            }
            hasher.finish();
            const { high, low } = hasher;
            if (seen.add(high, low)) continue;
            failures++;
            example(row, `${high}:${low}`);
          }
        },
        verdict: (rows) =>
          verdictOf(
            check,
            failures,
            failures === 0
              ? `${count(seen.size, "distinct value")} in ${count(rows, "row")}`
              : `${count(failures, "row")} of ${rows} repeat${failures === 1 ? "s" : ""} the ${columns.length === 1 ? columns[0] : `(${columns.join(", ")})`} of an earlier row`,
            examples.list,
          ),
      };
    },
  });
}
