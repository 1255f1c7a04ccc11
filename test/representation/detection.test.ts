import { describe, expect, it } from "vitest";
import { ColumnsTable, RowsTable, TableData, representationKinds } from "../../src/representation/index.js";

class Point {
  constructor(readonly x: number) {}
}

describe("TableData.from: detection", () => {
  it("recognises an array of plain objects as rows", () => {
    const data = [{ a: 1 }, { a: 2, b: "x" }];
    const table = TableData.from(data);
    expect(table).toBeInstanceOf(RowsTable);
    expect(table?.kind).toBe("rows");
    expect(table?.length).toBe(2);
    expect(table?.data).toBe(data);
  });

  it("treats [] as an empty rows table", () => {
    const table = TableData.from([]);
    expect(table?.kind).toBe("rows");
    expect(table?.length).toBe(0);
    expect(table?.columns()).toEqual([]);
  });

  it("accepts null-prototype rows", () => {
    const row = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    expect(TableData.from([row])?.kind).toBe("rows");
  });

  it("recognises { column: values[] } of equal lengths as columns", () => {
    const data = { a: [1, 2, 3], b: ["x", "y", "z"] };
    const table = TableData.from(data);
    expect(table).toBeInstanceOf(ColumnsTable);
    expect(table?.kind).toBe("columns");
    expect(table?.length).toBe(3);
    expect(table?.columns()).toEqual(["a", "b"]);
    expect(table?.data).toBe(data);
  });

  it("accepts columns of length zero", () => {
    const table = TableData.from({ a: [], b: [] });
    expect(table?.kind).toBe("columns");
    expect(table?.length).toBe(0);
  });

  it("refuses columns of unequal lengths with a TypeError naming them", () => {
    expect(() => TableData.from({ date: [1, 2, 3], amount: [1] })).toThrow(TypeError);
    expect(() => TableData.from({ date: [1, 2, 3], amount: [1] })).toThrow(/date \(3\), amount \(1\)/);
  });

  it.each([
    ["a string", "text"],
    ["a number", 42],
    ["a boolean", true],
    ["null", null],
    ["undefined", undefined],
    ["a bigint", 10n],
    ["a Map", new Map([["a", [1]]])],
    ["a Set", new Set([1])],
    ["a Date", new Date(Date.UTC(2026, 0, 1))],
    ["an array of numbers", [1, 2, 3]],
    [
      "an array of arrays",
      [
        [1, 2],
        [3, 4],
      ],
    ],
    ["an array mixing objects and null", [{ a: 1 }, null]],
    ["an array of class instances", [new Point(1)]],
    ["an array of Dates", [new Date(Date.UTC(2026, 0, 1))]],
    // eslint-disable-next-line no-sparse-arrays -- a hole is the case under test
    ["a sparse array", [, { a: 1 }]],
    ["{}", {}],
    ["a plain object of scalars", { a: 1, b: 2 }],
    ["an object mixing arrays and scalars", { a: [1], b: 2 }],
    ["a class instance", new Point(1)],
    ["a typed-array column", { a: new Float64Array(2) }],
  ])("returns null for %s", (_, value) => {
    expect(TableData.from(value)).toBeNull();
  });

  it("returns a TableData as it is", () => {
    const table = TableData.from([{ a: 1 }])!;
    expect(TableData.from(table)).toBe(table);
  });

  it("lists the built-in kinds, newest registration first", () => {
    expect(representationKinds()).toEqual(["columns", "rows"]);
  });
});
