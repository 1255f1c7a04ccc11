import { describe, expect, it } from "vitest";
import { ConfigError, SchemaError } from "../../src/errors.js";
import { type ConformStrategy, conform, type FieldSpec } from "../../src/schema/index.js";
import { errorOf } from "../support/assertions.js";

const schema: FieldSpec[] = [
  { name: "id", type: "integer", nullable: false },
  { name: "amount", type: "number", nullable: false },
  { name: "note", type: "string", nullable: true },
  { name: "day", type: "date", nullable: true },
];

function schemaError(fn: () => unknown, ...mentions: string[]): string {
  const error = errorOf(fn);
  expect(error).toBeInstanceOf(SchemaError);
  for (const mention of mentions) expect(error.message).toContain(mention);
  return error.message;
}

describe("conform: auto", () => {
  it("without a schema, infers one and passes the rows through", () => {
    const rows = [
      { id: 1, at: new Date(0) },
      { id: 2.5, at: null },
    ];
    const result = conform(rows, { strategy: "auto", schema: null });
    expect(result.schema).toEqual([
      { name: "id", type: "number", nullable: true },
      { name: "at", type: "datetime", nullable: true, asDate: true },
    ]);
    expect(result.rows).not.toBe(rows);
    expect(result.rows[0]).toBe(rows[0]);
    expect(result.warnings).toEqual([]);
  });

  it("with a schema, coerces stored forms and keeps extra fields after the schema's", () => {
    const rows = [{ extra: true, amount: "12.5", id: "3", day: new Date(Date.UTC(2026, 0, 2)) }];
    const result = conform(rows, { strategy: "auto", schema });
    expect(result.rows).toEqual([{ id: 3, amount: 12.5, note: null, day: "2026-01-02", extra: true }]);
    expect(Object.keys(result.rows[0]!)).toEqual(["id", "amount", "note", "day", "extra"]);
    expect(result.schema).toEqual(schema);
    expect(result.warnings).toEqual([]);
    expect(rows[0]!.amount).toBe("12.5");
  });

  it('keeps "" in string fields and JSON strings in json fields: they are values, not stored forms', () => {
    const fields: FieldSpec[] = [
      { name: "s", type: "string", nullable: true },
      { name: "j", type: "json", nullable: true },
    ];
    const result = conform([{ s: "", j: '{"a":1}' }], { strategy: "auto", schema: fields });
    expect(result.rows).toEqual([{ s: "", j: '{"a":1}' }]);
  });

  it("refuses a null in a non-nullable field, naming field, row and asset", () => {
    const rows = [
      { id: 1, amount: 1 },
      { id: 2, amount: null },
    ];
    schemaError(() => conform(rows, { strategy: "auto", schema, assetKey: "orders" }), 'asset "orders"', '"amount"', "row 1", "null");
  });

  it("refuses a missing non-nullable field", () => {
    schemaError(() => conform([{ amount: 1 }], { strategy: "auto", schema }), '"id" is not nullable but is missing (row 0)');
  });

  it("refuses a value that cannot be coerced", () => {
    const message = schemaError(
      () =>
        conform(
          [
            { id: 1, amount: 1 },
            { id: "x", amount: 1 },
          ],
          { strategy: "auto", schema, assetKey: "orders" },
        ),
      'asset "orders"',
      '"id" expected integer',
      'got string "x" (row 1)',
    );
    expect(message).toMatch(/^asset "orders": 1 field cannot be conformed to the schema: /);
  });
});

describe("conform: strict", () => {
  it("passes rows that match exactly, unchanged", () => {
    const rows = [
      { id: 1, amount: 2.5, note: null, day: "2026-01-01" },
      { id: 2n ** 64n, amount: Number.NaN },
    ];
    const result = conform(rows, { strategy: "strict", schema });
    expect(result.rows).toEqual(rows);
    expect(result.rows[1]).toBe(rows[1]);
    expect(result.schema).toEqual(schema);
    expect(result.warnings).toEqual([]);
  });

  it("requires a schema", () => {
    schemaError(() => conform([], { strategy: "strict", schema: null, assetKey: "orders" }), 'asset "orders"', "strict", "schema");
  });

  it("lists every offending field in one error, each with a sample row", () => {
    const rows = [
      { id: 1, amount: 1, extra: 1 },
      { id: 2, amount: 2 },
      { id: 3, amount: 3 },
      { id: 4, amount: "12", other: "x" },
      { id: 5, amount: "13" },
    ];
    const message = schemaError(() => conform(rows, { strategy: "strict", schema, assetKey: "orders" }));
    expect(message).toBe(
      'asset "orders": 3 fields do not match the schema: "amount" expected number, got string "12" (row 3); ' +
        '"extra" is not in the schema (row 0); "other" is not in the schema (row 3)',
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a missing non-nullable field", { amount: 1 }, '"id" is not nullable but is missing (row 0)'],
    ["a null in a non-nullable field", { id: null, amount: 1 }, '"id" is not nullable but is null (row 0)'],
    ["a numeric string for an integer (no coercion)", { id: "1", amount: 1 }, '"id" expected integer'],
    ["a fraction for an integer", { id: 1.5, amount: 1 }, "got number 1.5"],
    ["an unsafe integer number", { id: 2 ** 60, amount: 1 }, '"id" expected integer (safe integer number or bigint)'],
    ["a bigint for a number", { id: 1, amount: 1n }, "got bigint 1n"],
    ["a Date for a string date", { id: 1, amount: 1, day: new Date(0) }, '"day" expected date (YYYY-MM-DD string)'],
    ["an impossible date", { id: 1, amount: 1, day: "2026-02-30" }, 'got string "2026-02-30"'],
    ["a number for a string", { id: 1, amount: 1, note: 5 }, '"note" expected string, got number 5'],
  ])("refuses %s", (_label, row, mention) => {
    schemaError(() => conform([row], { strategy: "strict", schema, assetKey: "orders" }), 'asset "orders"', mention);
  });

  it.each<[FieldSpec, unknown, boolean]>([
    [{ name: "f", type: "boolean", nullable: false }, true, true],
    [{ name: "f", type: "boolean", nullable: false }, "true", false],
    [{ name: "f", type: "date", nullable: false, asDate: true }, new Date(Date.UTC(2026, 0, 1)), true],
    [{ name: "f", type: "date", nullable: false, asDate: true }, new Date(Date.UTC(2026, 0, 1, 1)), false],
    [{ name: "f", type: "datetime", nullable: false }, new Date(1), true],
    [{ name: "f", type: "datetime", nullable: false }, new Date(Number.NaN), false],
    [{ name: "f", type: "datetime", nullable: false }, "2026-01-01T00:00:00Z", false],
    [{ name: "f", type: "datetime", nullable: false, asDate: false }, "2026-01-01T00:00:00Z", true],
    [{ name: "f", type: "datetime", nullable: false, asDate: false }, "2026-01-01T00:00:00", false],
    [{ name: "f", type: "json", nullable: false }, { a: [1] }, true],
    [{ name: "f", type: "json", nullable: false }, [1], true],
    [{ name: "f", type: "json", nullable: false }, "text", true],
    [{ name: "f", type: "json", nullable: false }, new Map(), false],
    [{ name: "f", type: "json", nullable: false }, Number.NaN, false],
  ])("checks %j holding %s: %s", (field, value, ok) => {
    const run = (): unknown => conform([{ f: value }], { strategy: "strict", schema: [field] });
    if (ok) expect(run).not.toThrow();
    else expect(run).toThrow(SchemaError);
  });
});

describe("conform: reconcile", () => {
  it("drops extra fields with one warning per field, adds missing nullable ones, coerces", () => {
    const rows = [
      { id: "1", amount: "2", x: 1 },
      { id: 2, amount: 3, x: 2, y: 3 },
    ];
    const result = conform(rows, { strategy: "reconcile", schema, assetKey: "orders" });
    expect(result.rows).toEqual([
      { id: 1, amount: 2, note: null, day: null },
      { id: 2, amount: 3, note: null, day: null },
    ]);
    expect(result.warnings).toEqual([
      'asset "orders": dropped field "x", which is not in the schema (first in row 0)',
      'asset "orders": dropped field "y", which is not in the schema (first in row 1)',
    ]);
  });

  it("requires a schema", () => {
    schemaError(() => conform([], { strategy: "reconcile", schema: null, assetKey: "orders" }), 'asset "orders"', "reconcile");
  });

  it("refuses nulls in non-nullable fields and values it cannot coerce, all in one error", () => {
    const rows = [
      { id: 1, amount: 1, day: "2026-13-01" },
      { id: null, amount: "lots" },
    ];
    const message = schemaError(() => conform(rows, { strategy: "reconcile", schema, assetKey: "orders" }));
    expect(message).toBe(
      'asset "orders": 3 fields cannot be conformed to the schema: "id" is not nullable but is null (row 1); ' +
        '"amount" expected number, got string "lots" (row 1); ' +
        '"day" expected date (YYYY-MM-DD string), got string "2026-13-01" (row 0)',
    );
  });

  it("treats an empty string in a non-nullable number field as null", () => {
    schemaError(() => conform([{ id: 1, amount: "" }], { strategy: "reconcile", schema }), '"amount" is not nullable but is string ""');
  });
});

describe("conform: options", () => {
  it("refuses an unknown strategy", () => {
    const error = errorOf(() => conform([], { strategy: "lenient" as ConformStrategy, schema, assetKey: "orders" }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('asset "orders"');
    expect(error.message).toContain('"lenient"');
  });

  it("conforms an empty table under every strategy", () => {
    for (const strategy of ["auto", "strict", "reconcile"] as const) {
      expect(conform([], { strategy, schema })).toEqual({ rows: [], schema, warnings: [] });
    }
    expect(conform([], { strategy: "auto", schema: null })).toEqual({ rows: [], schema: [], warnings: [] });
  });

  it("leaves the asset out of messages when none is named", () => {
    const message = schemaError(() => conform([{ amount: 1 }], { strategy: "strict", schema }));
    expect(message).toMatch(/^1 field does not match the schema: "id"/);
  });
});
