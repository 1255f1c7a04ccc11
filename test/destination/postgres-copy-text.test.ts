// The COPY text PostgresDestination sends (copyChunks), byte for byte, without a server: rows
// read in place or from columns, ASCII strings escaped as they are copied, other text through
// its column's writer, date strings checked once each. And the window check reading rows in place.
import { describe, expect, it } from "vitest";
import { copyChunks } from "../../src/destination/database/postgres/copy-text.js";
import { checkWindowRows } from "../../src/destination/database/window-check.js";
import { PartitionError, SchemaError } from "../../src/errors.js";
import { TimeGranularity, TimePartitionWindow } from "../../src/partitioning/index.js";
import { type Row, TableData } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";

function copyText(fields: readonly FieldSpec[], data: unknown): string {
  return Buffer.concat([...copyChunks(fields, TableData.from(data)!)]).toString("utf8");
}

/** The same rows as `{ column: values[] }`. */
function asColumns(rows: Row[], names: readonly string[]): Record<string, unknown[]> {
  return Object.fromEntries(names.map((name) => [name, rows.map((row) => (Object.hasOwn(row, name) ? row[name] : null))]));
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaError);
    return (error as Error).message;
  }
  throw new Error("expected a refusal, but the value was accepted");
}

const TEXT: FieldSpec[] = [{ name: "s", type: "string", nullable: true }];
const DATES: FieldSpec[] = [
  { name: "day", type: "date", nullable: true },
  { name: "at", type: "datetime", nullable: true },
];

describe("copyChunks: rows as COPY text", () => {
  it("escapes backslashes, tabs and line breaks in ASCII and non-ASCII text alike", () => {
    const values = ["plain", "a\tb", "line1\nline2\r\n", "back\\slash", "\\N", "", "é\tü\\n", "tab\t😀\n", null];
    expect(
      copyText(
        TEXT,
        values.map((s) => ({ s })),
      ),
    ).toBe(["plain", "a\\tb", "line1\\nline2\\r\\n", "back\\\\slash", "\\\\N", "", "é\\tü\\\\n", "tab\\t😀\\n", "\\N"].join("\n") + "\n");
  });

  it("refuses a lone surrogate after ASCII rows, naming its row", () => {
    const rows = [{ s: "ok" }, { s: "ok\ttoo" }, { s: "half \uD83D" }];
    expect(refusal(() => copyText(TEXT, rows))).toMatch(
      /^PostgreSQL: cannot write field "s" at row 2: the string holds a lone UTF-16 surrogate/,
    );
  });

  it("writes repeated date and instant strings each time, and refuses one of another year at its first row", () => {
    const rows = [
      { day: "2026-01-01", at: "2026-01-01T10:00:00Z" },
      { day: "2026-01-01", at: new Date("2026-01-01T10:00:00Z") },
      { day: "2026-01-02", at: "2026-01-01T10:00:00Z" },
    ];
    expect(copyText(DATES, rows)).toBe(
      "2026-01-01\t2026-01-01T10:00:00Z\n2026-01-01\t2026-01-01T10:00:00.000Z\n2026-01-02\t2026-01-01T10:00:00Z\n",
    );
    const far = [{ day: "2026-01-01" }, { day: "2026-01-01" }, { day: "0000-06-01" }, { day: "0000-06-01" }];
    expect(refusal(() => copyText(DATES, far))).toMatch(
      /^PostgreSQL: cannot write field "day" at row 2: the date 0000-06-01 is outside the years 1\.\.9999/,
    );
  });

  it("writes the same bytes from rows and from columns, a name Object.prototype has read as an own field only", () => {
    const fields: FieldSpec[] = [
      { name: "id", type: "integer", nullable: false },
      { name: "amount", type: "number", nullable: true },
      { name: "constructor", type: "string", nullable: true },
      { name: "toString", type: "boolean", nullable: true },
    ];
    const rows: Row[] = [
      { id: 1, amount: 0.25, constructor: "own", toString: true },
      { id: -2, amount: -0 },
      { id: 3, amount: null, constructor: "x\ty", toString: false },
    ];
    const expected = "1\t0.25\town\tt\n-2\t-0\t\\N\t\\N\n3\t\\N\tx\\ty\tf\n";
    expect(copyText(fields, rows)).toBe(expected);
    expect(copyText(fields, asColumns(rows, ["id", "amount", "constructor", "toString"]))).toBe(expected);
  });
});

describe("checkWindowRows: rows read in place", () => {
  const window = new TimePartitionWindow("2026-01-01", "2026-01-02", TimeGranularity.DAY);
  const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
  let warnings: string[] = [];

  it("refuses rows outside the window, from rows and from columns alike", () => {
    const rows: Row[] = [{ day: "2026-01-01" }, { day: "2026-01-03" }, { day: "2026-01-02" }, { day: "2025-12-31" }];
    for (const data of [rows, asColumns(rows, ["day"])]) {
      expect(() => checkWindowRows("a", "PostgreSQL", TableData.from(data)!, window, "day", logger)).toThrow(PartitionError);
      expect(() => checkWindowRows("a", "PostgreSQL", TableData.from(data)!, window, "day", logger)).toThrow(
        /2 rows have a "day" value outside the window .*\("2026-01-03", "2025-12-31"\)/,
      );
    }
  });

  it("reads a column named like a member of Object.prototype as an own field: rows without it have no value", () => {
    warnings = [];
    // Rows lacking "constructor" must not read Object.prototype.constructor (a function, outside the window).
    checkWindowRows("a", "PostgreSQL", TableData.from([{ id: 1 }, { id: 2 }])!, window, "constructor", logger);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/has no "constructor" column, so reads of the partitions of .* will not find these 2 rows/);
    // Beside a row that has it, the other is outside the window, its value null (not a function).
    expect(() =>
      checkWindowRows("a", "PostgreSQL", TableData.from([{ constructor: "2026-01-01" }, { id: 2 }])!, window, "constructor", logger),
    ).toThrow(/1 row has a "constructor" value outside the window .* \(null\)/);
  });
});
