// An integer has no negative zero: conform makes an integer field's -0 0 under every strategy
// and path (rows that already conform, coercion, strict, an inferred schema, a stream), so every
// destination stores the same value; a number field's -0 is left alone.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { conform, type FieldSpec, reconcileRows } from "../../src/schema/index.js";

const schema: FieldSpec[] = [
  { name: "i", type: "integer", nullable: true },
  { name: "n", type: "number", nullable: true },
];
const isNegativeZero = (value: unknown) => Object.is(value, -0);

describe("conform: an integer field's -0 is 0", () => {
  it("auto, rows that already conform: the rows with a -0 are copied with 0, the others passed as they are", () => {
    const rows = [
      { i: 1, n: -0 },
      { i: -0, n: -0 },
      { i: 2n ** 64n, n: 1 },
    ];
    const result = conform(rows, { strategy: "auto", schema });
    expect(result.rows).toEqual([
      { i: 1, n: -0 },
      { i: 0, n: -0 },
      { i: 2n ** 64n, n: 1 },
    ]);
    expect(isNegativeZero(result.rows[1]!["i"])).toBe(false);
    expect(isNegativeZero(result.rows[1]!["n"])).toBe(true);
    // The asset's rows are not changed.
    expect(isNegativeZero(rows[1]!.i)).toBe(true);
  });

  it("auto, rows without a -0 that already conform are passed through untouched", () => {
    const rows = [
      { i: 0, n: -0 },
      { i: null, n: null },
    ];
    expect(conform(rows, { strategy: "auto", schema }).rows).toBe(rows);
  });

  it.each(["auto", "reconcile"] as const)('%s, coerced: -0, the text "-0" and -0.0 become 0', (strategy) => {
    const rows = [
      { i: -0, n: "1" },
      { i: "-0", n: null },
      { i: "-0.0", n: null },
      { i: "-00", n: null },
    ];
    const result = conform(rows, { strategy, schema });
    expect(result.rows.map((row) => row["i"])).toEqual([0, 0, 0, 0]);
    expect(result.rows.some((row) => isNegativeZero(row["i"]))).toBe(false);
  });

  it("strict: -0 matches an integer field and is stored as 0; rows without one are passed as they are", () => {
    const rows = [
      { i: 5, n: -0 },
      { i: -0, n: 2.5 },
    ];
    const result = conform(rows, { strategy: "strict", schema });
    expect(result.rows[0]).toBe(rows[0]);
    expect(result.rows[1]).toEqual({ i: 0, n: 2.5 });
    expect(isNegativeZero(result.rows[1]!["i"])).toBe(false);
    expect(isNegativeZero(result.rows[0]!["n"])).toBe(true);
    expect(isNegativeZero(rows[1]!.i)).toBe(true);
  });

  it("auto without a schema: a field inferred as integer gets 0, one inferred as number keeps -0", () => {
    const rows = [
      { i: -0, n: -0, __proto__: -0 },
      { i: 3, n: 0.5 },
    ];
    // A field named "__proto__" is an own field: built with defineProperty as conform reads it.
    Object.defineProperty(rows[0], "__proto__", { value: -0, enumerable: true, writable: true, configurable: true });
    const result = conform(rows, { strategy: "auto", schema: null });
    expect(result.schema.map((spec) => spec.type)).toEqual(["integer", "number", "integer"]);
    expect(isNegativeZero(result.rows[0]!["i"])).toBe(false);
    expect(isNegativeZero(result.rows[0]!["n"])).toBe(true);
    expect(Object.hasOwn(result.rows[0]!, "__proto__")).toBe(true);
    expect(isNegativeZero(Object.getOwnPropertyDescriptor(result.rows[0]!, "__proto__")!.value)).toBe(false);
    expect(Object.getPrototypeOf(result.rows[0]!)).toBe(Object.prototype);
    expect(result.rows[1]).toBe(rows[1]);
  });

  it('reading stored text: "-0" in an integer column is 0 (CSV files written before the change)', () => {
    const [row] = reconcileRows([{ i: "-0", n: "-0" }], schema);
    expect(isNegativeZero(row!["i"])).toBe(false);
    expect(row!["i"]).toBe(0);
    expect(isNegativeZero(row!["n"])).toBe(true);
  });
});

describe("every destination gets 0 for an integer field's -0", () => {
  afterEach(() => il.MemoryDestination.clear());

  const partitioning = () => new il.TimePartitionConfig({ column: "date", start: "2025-01-01" });
  const day = il.TimePartition.fromKey("2025-01-02");

  it.each([
    ["a table, declared schema", true, false],
    ["a table, inferred schema", false, false],
    ["a stream, declared schema", true, true],
    ["a stream, inferred schema", false, true],
  ])("%s: reads back 0 from memory (which keeps any value)", async (_label, declared, stream) => {
    const rows = [
      { date: "2025-01-02", i: -0, n: -0 },
      { date: "2025-01-02", i: 7, n: 1.5 },
    ];
    const a = il.asset({
      key: "zeros",
      partitioning: partitioning(),
      ...(declared ? { schema: z.object({ date: z.iso.date(), i: z.number().int(), n: z.number() }) } : {}),
      run: () =>
        stream
          ? (async function* () {
              yield rows.slice(0, 1);
              yield rows.slice(1);
            })()
          : rows,
    });
    const bound = il.source({ key: "zero", assets: [a] })({ destinations: new il.MemoryDestination() });
    await bound.assets["zeros"]!.materialize(day);
    const back = il.TableData.from(await bound.assets["zeros"]!.read(day))!.rows;
    expect(back).toEqual([
      { date: "2025-01-02", i: 0, n: -0 },
      { date: "2025-01-02", i: 7, n: 1.5 },
    ]);
    expect(isNegativeZero(back[0]!["i"])).toBe(false);
    expect(isNegativeZero(back[0]!["n"])).toBe(true);
    expect(isNegativeZero(rows[0]!.i)).toBe(true);
  });
});
