import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { TableData } from "../../src/representation/index.js";

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe("conversions", () => {
  it("converts rows to columns, every key in first-appearance order, missing cells null", () => {
    const rows = [{ a: 1 }, { b: "x", a: 2 }, { c: true }];
    const columns = TableData.from(rows)!.to("columns");
    expect(Object.keys(columns)).toEqual(["a", "b", "c"]);
    expect(columns).toEqual({ a: [1, 2, null], b: [null, "x", null], c: [null, null, true] });
  });

  it("reads explicit undefined as null and keeps every value's identity", () => {
    const when = day("2026-01-01");
    const nested = { k: [1] };
    const columns = TableData.from([{ a: undefined, when, nested }])!.to("columns");
    expect(columns.a).toEqual([null]);
    expect(columns.when![0]).toBe(when);
    expect(columns.nested![0]).toBe(nested);
  });

  it("handles columns named like Object.prototype members", () => {
    const columns = TableData.from([{ constructor: 1 }, { other: 2 }])!.to("columns");
    expect(columns).toEqual({ constructor: [1, null], other: [null, 2] });
  });

  it("converts columns to rows as new plain objects in column order", () => {
    const data = { b: [1, 2], a: ["x", "y"] };
    const table = TableData.from(data)!;
    const rows = table.to("rows");
    expect(rows).toEqual([
      { b: 1, a: "x" },
      { b: 2, a: "y" },
    ]);
    expect(Object.keys(rows[0]!)).toEqual(["b", "a"]);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(table.rows).toEqual(rows);
  });

  it("round-trips rows -> columns -> rows and columns -> rows -> columns", () => {
    const rows = [
      { date: "2026-01-01", amount: 1.5, ok: true, at: day("2026-01-01") },
      { date: "2026-01-02", amount: null, ok: false, at: day("2026-01-02") },
    ];
    const columns = TableData.from(rows)!.to("columns");
    expect(TableData.from(columns)!.to("rows")).toEqual(rows);
    expect(TableData.from(TableData.from(columns)!.to("rows"))!.to("columns")).toEqual(columns);
  });

  it("returns the wrapped value itself for its own kind", () => {
    const rows = [{ a: 1 }];
    const columns = { a: [1] };
    expect(TableData.from(rows)!.to("rows")).toBe(rows);
    expect(TableData.from(rows)!.rows).toBe(rows);
    expect(TableData.from(columns)!.to("columns")).toBe(columns);
  });

  it("converts empty tables", () => {
    expect(TableData.from([])!.to("columns")).toEqual({});
    expect(TableData.from({ a: [] })!.to("rows")).toEqual([]);
  });

  it("refuses an unknown kind with a ConfigError naming it and the known ones", () => {
    const table = TableData.from([{ a: 1 }])!;
    expect(() => table.to("dataframe")).toThrow(ConfigError);
    expect(() => table.to("dataframe")).toThrow('unknown table representation string "dataframe": expected one of "columns", "rows"');
    expect(() => table.to(undefined as unknown as string)).toThrow(
      'unknown table representation undefined: expected one of "columns", "rows"',
    );
  });

  it("reads a column's values, null where a row lacks it", () => {
    expect(TableData.from([{ a: 1 }, { b: 2 }])!.values("a")).toEqual([1, null]);
    expect(TableData.from({ b: [1, 2] })!.values("a")).toEqual([null, null]);
  });
});
