import { describe, expect, it } from "vitest";
import { type FieldType, inferFieldSpecs } from "../../src/schema/index.js";

/** The type inferred for a column `f` holding the given values, one row each. */
function typeOf(...values: unknown[]): FieldType {
  const [spec] = inferFieldSpecs(values.map((f) => ({ f })));
  return spec!.type;
}

describe("inferFieldSpecs: one kind of value", () => {
  it.each([
    ["strings", ["a", "b"], "string"],
    ["ISO date strings stay strings", ["2026-05-20", "2026-05-21"], "string"],
    ["ISO datetime strings stay strings", ["2026-05-20T13:00:00Z"], "string"],
    ["numeric strings stay strings", ["12", "13"], "string"],
    ["safe integers", [1, -2, 0], "integer"],
    ["bigints", [1n, 2n ** 70n], "integer"],
    ["fractions", [1.5, 2.25], "number"],
    ["NaN and infinities", [Number.NaN, Number.POSITIVE_INFINITY], "number"],
    ["integers past 2^53 (already rounded)", [2 ** 60], "number"],
    ["booleans", [true, false], "boolean"],
    ["Dates", [new Date(Date.UTC(2026, 4, 20))], "datetime"],
    ["plain objects", [{ a: 1 }], "json"],
    ["arrays", [[1, 2]], "json"],
    ["null everywhere", [null, null], "string"],
    ["undefined everywhere", [undefined], "string"],
  ] as const)("%s", (_label, values, type) => {
    expect(typeOf(...values)).toBe(type);
  });

  it("marks Date columns asDate and every column nullable", () => {
    expect(inferFieldSpecs([{ at: new Date(0), n: 1 }])).toEqual([
      { name: "at", type: "datetime", nullable: true, asDate: true },
      { name: "n", type: "integer", nullable: true },
    ]);
  });
});

describe("inferFieldSpecs: widening across rows", () => {
  it.each([
    ["integer with number is number", [1, 2.5], "number"],
    ["number with integer is number", [2.5, 1], "number"],
    ["bigint with integer is integer", [1n, 2], "integer"],
    ["bigint with number is number", [1n, 0.5], "number"],
    ["nulls do not widen", [null, 1, undefined, 2], "integer"],
    ["integer with string is string", [1, "a"], "string"],
    ["boolean with integer is string", [true, 1], "string"],
    ["Date with string is string", [new Date(0), "2026-01-01"], "string"],
    ["json with string is string", [{ a: 1 }, "x"], "string"],
    ["object with array is json", [{ a: 1 }, [1]], "json"],
    ["Date with number is string", [new Date(0), 1.5], "string"],
  ] as const)("%s", (_label, values, type) => {
    expect(typeOf(...values)).toBe(type);
  });
});

describe("inferFieldSpecs: columns", () => {
  it("lists fields in order of first appearance, across rows of different shapes", () => {
    const specs = inferFieldSpecs([
      { b: 1, a: "x" },
      { c: true, a: "y" },
      { d: null, b: 2 },
    ]);
    expect(specs.map((spec) => spec.name)).toEqual(["b", "a", "c", "d"]);
    expect(specs.map((spec) => spec.type)).toEqual(["integer", "string", "boolean", "string"]);
  });

  it("handles rows whose keys come in a different order", () => {
    const specs = inferFieldSpecs([
      { a: 1, b: "x" },
      { b: "y", a: 2.5 },
    ]);
    expect(specs).toEqual([
      { name: "a", type: "number", nullable: true },
      { name: "b", type: "string", nullable: true },
    ]);
  });

  it("gives an empty schema for no rows", () => {
    expect(inferFieldSpecs([])).toEqual([]);
  });

  it("ignores inherited properties", () => {
    const row = Object.create({ inherited: 1 }) as Record<string, unknown>;
    row["own"] = "x";
    expect(inferFieldSpecs([row]).map((spec) => spec.name)).toEqual(["own"]);
  });

  it("is a single pass that keeps up with a million rows", () => {
    const rows = Array.from({ length: 1_000_000 }, (_, i) => ({ id: i, name: "n", price: i / 2, at: null }));
    const started = performance.now();
    const specs = inferFieldSpecs(rows);
    const elapsed = performance.now() - started;
    expect(specs.map((spec) => spec.type)).toEqual(["integer", "string", "number", "string"]);
    // Generous for slow CI machines; a per-row allocation or a second pass shows well above it.
    expect(elapsed).toBeLessThan(5_000);
  });
});
