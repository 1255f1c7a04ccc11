import { afterEach, describe, expect, it, vi } from "vitest";
import { SchemaError } from "../../src/errors.js";
import { conform, FIELD_TYPES, type FieldSpec, isDateObjectField, isFieldValue, reconcileRows } from "../../src/schema/index.js";

describe("isDateObjectField", () => {
  it.each<[Partial<FieldSpec>, boolean]>([
    [{ type: "date" }, false],
    [{ type: "date", asDate: false }, false],
    [{ type: "date", asDate: true }, true],
    [{ type: "datetime" }, true],
    [{ type: "datetime", asDate: true }, true],
    [{ type: "datetime", asDate: false }, false],
    [{ type: "string", asDate: true }, false],
  ])("%j -> %s", (partial, expected) => {
    expect(isDateObjectField({ name: "f", type: "string", nullable: true, ...partial })).toBe(expected);
  });
});

describe("isFieldValue", () => {
  it("accepts null only in nullable fields", () => {
    for (const type of FIELD_TYPES) {
      expect(isFieldValue({ name: "f", type, nullable: true }, null)).toBe(true);
      expect(isFieldValue({ name: "f", type, nullable: false }, null)).toBe(false);
      expect(isFieldValue({ name: "f", type, nullable: false }, undefined)).toBe(false);
    }
  });

  it.each<[FieldSpec["type"], unknown, boolean]>([
    ["string", "", true],
    ["string", 1, false],
    ["integer", -0, true],
    ["integer", 2n ** 80n, true],
    ["integer", 2 ** 80, false],
    ["integer", 0.5, false],
    ["number", Number.NEGATIVE_INFINITY, true],
    ["number", "1", false],
    ["boolean", false, true],
    ["boolean", 0, false],
    ["date", "2026-05-20", true],
    ["date", "2026-5-20", false],
    ["datetime", new Date(0), true],
    ["json", { a: [1, { b: null }] }, true],
    ["json", Object.create(null) as object, true],
    ["json", 1n, false],
  ])("%s holding %s: %s", (type, value, expected) => {
    expect(isFieldValue({ name: "f", type, nullable: false }, value)).toBe(expected);
  });
});

describe("row building", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  const awkward = ['quote"d', "back\\slash", "new\nline", "`${x}`", "*/ end", "", "constructor", "\u2028"];

  it("takes any field name", () => {
    const schema = awkward.map((name): FieldSpec => ({ name, type: "integer", nullable: false }));
    const row = Object.fromEntries(awkward.map((name, i) => [name, String(i)]));
    const [out] = reconcileRows([row], schema);
    expect(Object.keys(out!)).toEqual(awkward);
    expect(Object.values(out!)).toEqual(awkward.map((_, i) => i));
  });

  it("still works where code generation from strings is disabled", () => {
    vi.stubGlobal("Function", function refuse(): never {
      throw new EvalError("Code generation from strings disallowed for this context");
    });
    const schema: FieldSpec[] = [
      { name: "a", type: "integer", nullable: false },
      { name: "__proto__", type: "string", nullable: true },
    ];
    expect(reconcileRows([{ a: "1", b: 2 }], schema)).toEqual([{ a: 1, ["__proto__"]: null, b: 2 }]);
    expect(() => reconcileRows([{ a: "x" }], schema)).toThrow(SchemaError);
    expect(() => conform([{ a: null }], { strategy: "reconcile", schema })).toThrow(/"a" is not nullable/);
  });
});

describe("fields named like Object.prototype members", () => {
  const schema: FieldSpec[] = [
    { name: "constructor", type: "string", nullable: true },
    { name: "toString", type: "integer", nullable: true },
    { name: "__proto__", type: "json", nullable: true },
  ];

  it("are read as the row's own fields, missing when the row lacks them", () => {
    expect(reconcileRows([{}], schema)).toEqual([{ constructor: null, toString: null, ["__proto__"]: null }]);
    const row = JSON.parse('{"constructor": "c", "toString": "2", "__proto__": "[1]"}') as Record<string, unknown>;
    const [out] = reconcileRows([row], schema);
    expect(out!["constructor"]).toBe("c");
    expect(out!["toString"]).toBe(2);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual([1]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it("are missing under strict when the row lacks them", () => {
    const required: FieldSpec[] = [{ name: "constructor", type: "string", nullable: false }];
    expect(() => conform([{}], { strategy: "strict", schema: required })).toThrow('"constructor" is not nullable but is missing');
    expect(() => conform([{}], { strategy: "auto", schema: required })).toThrow('"constructor" is not nullable but is missing');
  });
});
