import { describe, expect, it } from "vitest";
import { SchemaError } from "../../src/errors.js";
import { type FieldSpec, type FieldType, reconcileRows } from "../../src/schema/index.js";
import { errorOf } from "../support/assertions.js";

const spec = (type: FieldType, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name: "f", type, nullable: true, ...extra });

/** The value reconcileRows restores for a single field `f`. */
function restore(field: FieldSpec, value: unknown): unknown {
  return reconcileRows([{ f: value }], [field])[0]!["f"];
}

const DAY = Date.UTC(2026, 4, 20);

describe("reconcileRows: conversions", () => {
  it.each<[string, FieldSpec, unknown, unknown]>([
    ["string: as is", spec("string"), "abc", "abc"],
    ["string: from a number", spec("string"), 12.5, "12.5"],
    ["string: from a bigint", spec("string"), 12n, "12"],
    ["string: from a boolean", spec("string"), false, "false"],
    ["string: from a Date", spec("string"), new Date(DAY), "2026-05-20T00:00:00.000Z"],
    ["integer: from a number", spec("integer"), 42, 42],
    ["integer: from text", spec("integer"), "-17", -17],
    ["integer: from text with a sign", spec("integer"), "+17", 17],
    ["integer: from -0, as 0 (an integer has no negative zero)", spec("integer"), "-0", 0],
    ["integer: from 12.0", spec("integer"), "12.0", 12],
    ["integer: from 1e3", spec("integer"), "1e3", 1000],
    ["integer: past the safe range, from text", spec("integer"), "12345678901234567890", 12345678901234567890n],
    ["integer: below the safe range, from text", spec("integer"), "-9007199254740993", -9007199254740993n],
    ["integer: 16 digits but safe, from text", spec("integer"), "9007199254740991", 9007199254740991],
    ["integer: a safe bigint becomes a number", spec("integer"), 5n, 5],
    ["integer: an unsafe bigint stays", spec("integer"), 2n ** 60n, 2n ** 60n],
    ["integer: an unsafe integer number becomes a bigint", spec("integer"), 2 ** 60, 2n ** 60n],
    ["number: as is", spec("number"), 1.5, 1.5],
    ["number: from text", spec("number"), "-1.25e-3", -0.00125],
    ["number: from .5", spec("number"), ".5", 0.5],
    ["number: NaN from text", spec("number"), "NaN", Number.NaN],
    ["number: Infinity from text", spec("number"), "Infinity", Number.POSITIVE_INFINITY],
    ["number: -Infinity from text", spec("number"), "-Infinity", Number.NEGATIVE_INFINITY],
    ["number: -0 from text", spec("number"), "-0", -0],
    ["number: from a bigint", spec("number"), 3n, 3],
    ["boolean: as is", spec("boolean"), true, true],
    ["boolean: from 'true'", spec("boolean"), "true", true],
    ["boolean: from 'false'", spec("boolean"), "false", false],
    ["boolean: from 'TRUE'", spec("boolean"), "TRUE", true],
    ["boolean: from 'False'", spec("boolean"), "False", false],
    ["boolean: from '1'", spec("boolean"), "1", true],
    ["boolean: from '0'", spec("boolean"), "0", false],
    ["boolean: from 1", spec("boolean"), 1, true],
    ["boolean: from 0", spec("boolean"), 0, false],
    ["boolean: from 1n", spec("boolean"), 1n, true],
    ["date (string): as is", spec("date"), "2026-05-20", "2026-05-20"],
    ["date (string): from a Date at UTC midnight", spec("date"), new Date(DAY), "2026-05-20"],
    ["date (string): from a midnight datetime string", spec("date"), "2026-05-20T00:00:00.000Z", "2026-05-20"],
    ["date (Date): from text", spec("date", { asDate: true }), "2026-05-20", new Date(DAY)],
    ["date (Date): from a midnight datetime string", spec("date", { asDate: true }), "2026-05-20T00:00:00Z", new Date(DAY)],
    ["date (Date): as is", spec("date", { asDate: true }), new Date(DAY), new Date(DAY)],
    ["datetime (Date): from ISO text", spec("datetime"), "2026-05-20T13:00:00.000Z", new Date(DAY + 13 * 3_600_000)],
    ["datetime (Date): from an offset", spec("datetime"), "2026-05-20T13:00:00+01:00", new Date(DAY + 12 * 3_600_000)],
    ["datetime (Date): zoneless text is UTC", spec("datetime"), "2026-05-20T13:00:00", new Date(DAY + 13 * 3_600_000)],
    ["datetime (Date): from a bare date", spec("datetime"), "2026-05-20", new Date(DAY)],
    ["datetime (Date): as is", spec("datetime", { asDate: true }), new Date(DAY + 1), new Date(DAY + 1)],
    ["datetime (string): from a Date", spec("datetime", { asDate: false }), new Date(DAY), "2026-05-20T00:00:00.000Z"],
    [
      "datetime (string): zoned text kept verbatim",
      spec("datetime", { asDate: false }),
      "2026-05-20T13:00+05:30",
      "2026-05-20T13:00+05:30",
    ],
    ["datetime (string): zoneless text becomes UTC", spec("datetime", { asDate: false }), "2026-05-20 13:00", "2026-05-20T13:00:00.000Z"],
    ["json: object from JSON text", spec("json"), '{"a":[1,2]}', { a: [1, 2] }],
    ["json: array from JSON text", spec("json"), " [1]", [1]],
    ["json: number from JSON text", spec("json"), "12", 12],
    ["json: a JSON string from JSON text", spec("json"), '"x"', "x"],
    ["json: plain text is the string itself", spec("json"), "hello", "hello"],
    ["json: text that looks like JSON but is not", spec("json"), "{oops", "{oops"],
    ["json: an object as is", spec("json"), { a: 1 }, { a: 1 }],
    ["json: a number as is", spec("json"), 3, 3],
  ])("%s", (_label, field, value, expected) => {
    const restored = restore(field, value);
    if (expected instanceof Date) {
      expect(restored).toBeInstanceOf(Date);
      expect((restored as Date).getTime()).toBe(expected.getTime());
    } else if (typeof expected === "object") {
      expect(restored).toEqual(expected);
    } else {
      // Object.is tells -0 from 0, a bigint from a number, and matches NaN.
      expect(Object.is(restored, expected), `${String(restored)} is ${String(expected)}`).toBe(true);
    }
  });

  it.each(["string", "integer", "number", "boolean", "date", "datetime", "json"] as const)(
    '%s: "", null and undefined are null',
    (type) => {
      expect(restore(spec(type), "")).toBeNull();
      expect(restore(spec(type), null)).toBeNull();
      expect(restore(spec(type), undefined)).toBeNull();
    },
  );

  it('keeps "" in a non-nullable string field, which cannot have held null', () => {
    expect(restore(spec("string", { nullable: false }), "")).toBe("");
  });

  it("does not enforce nullability (conform does)", () => {
    expect(restore(spec("integer", { nullable: false }), "")).toBeNull();
  });
});

describe("reconcileRows: rows", () => {
  const schema: FieldSpec[] = [
    { name: "id", type: "integer", nullable: false },
    { name: "name", type: "string", nullable: true },
  ];

  it("puts schema fields first, in schema order, then extras unchanged", () => {
    const [row] = reconcileRows([{ extra: "1", name: "x", id: "7", more: { a: 1 } }], schema);
    expect(Object.keys(row!)).toEqual(["id", "name", "extra", "more"]);
    expect(row).toEqual({ id: 7, name: "x", extra: "1", more: { a: 1 } });
  });

  it("adds missing schema fields as null", () => {
    expect(reconcileRows([{ id: "1" }], schema)).toEqual([{ id: 1, name: null }]);
  });

  it("returns new objects and never mutates its input", () => {
    const input = [{ id: "1", name: "a" }];
    const frozen = input.map((row) => Object.freeze({ ...row }));
    const output = reconcileRows(frozen, schema);
    expect(output[0]).not.toBe(frozen[0]);
    expect(frozen[0]).toEqual({ id: "1", name: "a" });
  });

  it("handles rows of different key orders and shapes", () => {
    const rows = [{ id: "1", x: 1 }, { x: 2, id: "2" }, { id: "3" }, { id: "4", y: 3 }];
    expect(reconcileRows(rows, schema)).toEqual([
      { id: 1, name: null, x: 1 },
      { id: 2, name: null, x: 2 },
      { id: 3, name: null },
      { id: 4, name: null, y: 3 },
    ]);
  });

  it("keeps a field named __proto__ as a field", () => {
    const row = JSON.parse('{"__proto__": "1", "other": {"__proto__": 2}}') as Record<string, unknown>;
    const [out] = reconcileRows([row], [{ name: "__proto__", type: "integer", nullable: true }]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out!, "__proto__")).toBe(true);
    expect(out!["__proto__"]).toBe(1);
  });

  it("reconciles an empty table", () => {
    expect(reconcileRows([], schema)).toEqual([]);
  });
});

describe("reconcileRows: errors", () => {
  it.each<[string, FieldSpec, unknown, string]>([
    ["integer from a fraction", spec("integer"), "1.5", 'string "1.5"'],
    ["integer from a fractional number", spec("integer"), 1.5, "number 1.5"],
    ["integer from words", spec("integer"), "twelve", 'string "twelve"'],
    ["integer from hex", spec("integer"), "0x10", 'string "0x10"'],
    ["integer from padded text", spec("integer"), " 12", 'string " 12"'],
    ["integer from NaN", spec("integer"), Number.NaN, "number NaN"],
    ["integer from a boolean", spec("integer"), true, "boolean true"],
    ["number from words", spec("number"), "abc", 'string "abc"'],
    ["number from a boolean", spec("number"), false, "boolean false"],
    ["boolean from 'yes'", spec("boolean"), "yes", 'string "yes"'],
    ["boolean from 2", spec("boolean"), 2, "number 2"],
    ["date from an impossible date", spec("date"), "2026-02-30", 'string "2026-02-30"'],
    ["date from a non-midnight instant", spec("date"), "2026-05-20T13:00:00Z", 'string "2026-05-20T13:00:00Z"'],
    ["date from a non-midnight Date", spec("date", { asDate: true }), new Date(DAY + 1), "Date 2026-05-20T00:00:00.001Z"],
    ["date from a number", spec("date"), DAY, `number ${DAY}`],
    ["datetime from words", spec("datetime"), "yesterday", 'string "yesterday"'],
    ["datetime from an invalid Date", spec("datetime"), new Date(Number.NaN), "invalid Date"],
    ["datetime (string) from a number", spec("datetime", { asDate: false }), 5, "number 5"],
    ["string from an object", spec("string"), { a: 1 }, 'object {"a":1}'],
    ["json from a function", spec("json"), () => 1, "function"],
  ])("%s", (_label, field, value, shown) => {
    const rows = [{ f: null }, { f: value }];
    const error = errorOf(() => reconcileRows(rows, [field], { assetKey: "shop.orders" }));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toContain('asset "shop.orders"');
    expect(error.message).toContain('field "f"');
    expect(error.message).toContain("row 1");
    expect(error.message).toContain(shown);
    expect(error.message).toContain(`expected ${field.type}`);
  });

  it("leaves the asset out when none is named", () => {
    const error = errorOf(() => reconcileRows([{ f: "x" }], [spec("integer")]));
    expect(error.message).toMatch(/^cannot restore field "f" at row 0: expected integer/);
  });
});
