import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { SchemaError } from "../../src/errors.js";
import { type FieldSpec, fieldSpecs } from "../../src/schema/index.js";
import { errorOf } from "../support/assertions.js";

/** The spec fieldSpecs derives for a single field `f` of the given zod type. */
function specOf(type: z.ZodType): FieldSpec {
  const [spec] = fieldSpecs(z.object({ f: type }));
  return spec!;
}

describe("fieldSpecs: one zod type per field type", () => {
  it.each([
    ["z.string()", z.string(), { type: "string" }],
    ["z.email()", z.email(), { type: "string" }],
    ["z.string().min(2)", z.string().min(2), { type: "string" }],
    ["z.iso.time()", z.iso.time(), { type: "string" }],
    ["z.templateLiteral", z.templateLiteral(["id-", z.number()]), { type: "string" }],
    ["z.enum([...])", z.enum(["a", "b"]), { type: "string" }],
    ["z.literal('x')", z.literal("x"), { type: "string" }],
    ["z.literal(['a', 'b'])", z.literal(["a", "b"]), { type: "string" }],
    ["z.number().int()", z.number().int(), { type: "integer" }],
    ["z.int()", z.int(), { type: "integer" }],
    ["z.int32()", z.int32(), { type: "integer" }],
    ["z.uint32()", z.uint32(), { type: "integer" }],
    ["z.bigint()", z.bigint(), { type: "integer" }],
    ["z.int64()", z.int64(), { type: "integer" }],
    ["z.enum({A: 1, B: 2})", z.enum({ A: 1, B: 2 }), { type: "integer" }],
    ["z.literal(3)", z.literal(3), { type: "integer" }],
    ["z.literal(3n)", z.literal(3n), { type: "integer" }],
    ["z.number()", z.number(), { type: "number" }],
    ["z.number().min(0)", z.number().min(0), { type: "number" }],
    ["z.float64()", z.float64(), { type: "number" }],
    ["z.nan()", z.nan(), { type: "number" }],
    ["z.coerce.number()", z.coerce.number(), { type: "number" }],
    ["z.literal(1.5)", z.literal(1.5), { type: "number" }],
    ["z.boolean()", z.boolean(), { type: "boolean" }],
    ["z.literal(true)", z.literal(true), { type: "boolean" }],
    ["z.stringbool()", z.stringbool(), { type: "boolean" }],
    ["z.iso.date()", z.iso.date(), { type: "date", asDate: false }],
    ["z.string().date()", z.string().date(), { type: "date", asDate: false }],
    ["z.date()", z.date(), { type: "datetime", asDate: true }],
    ["z.coerce.date()", z.coerce.date(), { type: "datetime", asDate: true }],
    ["z.iso.datetime()", z.iso.datetime(), { type: "datetime", asDate: false }],
    ["z.iso.datetime({ offset: true })", z.iso.datetime({ offset: true }), { type: "datetime", asDate: false }],
    ["z.string().datetime()", z.string().datetime(), { type: "datetime", asDate: false }],
    ["z.object", z.object({ a: z.string() }), { type: "json" }],
    ["z.array", z.array(z.number()), { type: "json" }],
    ["z.record", z.record(z.string(), z.number()), { type: "json" }],
    ["z.tuple", z.tuple([z.string(), z.number()]), { type: "json" }],
  ] as const)("%s", (_label, type, expected) => {
    expect(specOf(type)).toEqual({ name: "f", nullable: false, ...expected });
  });
});

describe("fieldSpecs: wrappers", () => {
  it.each([
    ["nullable", z.number().nullable(), "number", true],
    ["optional", z.string().optional(), "string", true],
    ["nullish", z.string().nullish(), "string", true],
    ["default", z.boolean().default(false), "boolean", true],
    ["prefault", z.string().prefault("x"), "string", true],
    ["readonly", z.array(z.string()).readonly(), "json", false],
    ["catch", z.number().int().catch(0), "integer", false],
    ["brand", z.string().brand("Id"), "string", false],
    ["nonoptional", z.string().optional().nonoptional(), "string", false],
    ["nullable then optional then nonoptional", z.string().nullable().optional().nonoptional(), "string", true],
    ["lazy", z.lazy(() => z.bigint()), "integer", false],
    ["union of a type and null", z.union([z.number(), z.null()]), "number", true],
    ["union of integer and number", z.union([z.int(), z.number()]), "number", false],
    ["union of string literals", z.union([z.literal("a"), z.enum(["b", "c"])]), "string", false],
    ["union with a json alternative", z.union([z.object({ a: z.string() }), z.string()]), "json", false],
    ["discriminated union", z.discriminatedUnion("k", [z.object({ k: z.literal("a") }), z.object({ k: z.literal("b") })]), "json", false],
    ["literal with null", z.literal(["a", null]), "string", true],
    ["z.json()", z.json(), "json", true],
    ["intersection of objects", z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })), "json", false],
    ["preprocess", z.preprocess((v) => v, z.number()), "number", false],
  ] as const)("%s", (_label, type, expectedType, nullable) => {
    expect(specOf(type)).toMatchObject({ type: expectedType, nullable });
  });

  it("maps a codec by what it produces", () => {
    const codec = z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() });
    expect(specOf(codec)).toEqual({ name: "f", type: "datetime", nullable: false, asDate: true });
  });

  it("keeps asDate through wrappers", () => {
    expect(specOf(z.iso.date().optional())).toEqual({ name: "f", type: "date", nullable: true, asDate: false });
    expect(specOf(z.date().nullable())).toEqual({ name: "f", type: "datetime", nullable: true, asDate: true });
  });
});

describe("fieldSpecs: schemas", () => {
  it("keeps the object's key order", () => {
    const schema = z.object({ b: z.string(), a: z.number(), c: z.date() });
    expect(fieldSpecs(schema).map((spec) => spec.name)).toEqual(["b", "a", "c"]);
  });

  it("reads strict, loose and zod/mini objects alike", () => {
    expect(fieldSpecs(z.strictObject({ a: z.string() }))).toEqual([{ name: "a", type: "string", nullable: false }]);
    expect(fieldSpecs(z.looseObject({ a: z.int() }))).toEqual([{ name: "a", type: "integer", nullable: false }]);
    expect(fieldSpecs(zm.object({ a: zm.optional(zm.boolean()) }))).toEqual([{ name: "a", type: "boolean", nullable: true }]);
  });

  it("gives an empty schema for an empty object", () => {
    expect(fieldSpecs(z.object({}))).toEqual([]);
  });
});

describe("fieldSpecs: errors", () => {
  it.each([
    ["z.map", z.map(z.string(), z.string()), "map"],
    ["z.set", z.set(z.string()), "set"],
    ["z.any", z.any(), "any"],
    ["z.unknown", z.unknown(), "unknown"],
    ["z.symbol", z.symbol(), "symbol"],
    ["z.null", z.null(), "null"],
    ["z.undefined", z.undefined(), "undefined"],
    ["a transform", z.string().transform((s) => s.length), "transform"],
    ["a union of string and number", z.union([z.string(), z.number()]), "union"],
    ["a union of date and json", z.union([z.date(), z.object({})]), "union"],
    ["an enum of strings and numbers", z.literal(["a", 1]), "literal"],
  ] as const)("%s is a SchemaError naming the field and the zod type", (_label, type, zodType) => {
    const error = errorOf(() => fieldSpecs(z.object({ ok: z.string(), bad: type })));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toContain('"bad"');
    expect(error.message).toContain(`"${zodType}"`);
  });

  it.each([
    ["a zod string", z.string(), "zod string schema"],
    ["a zod array", z.array(z.string()), "zod array schema"],
    ["a number", 5, "number 5"],
    ["undefined", undefined, "undefined"],
    ["a plain object", { a: 1 }, "object"],
  ])("%s is a TypeError naming what was given", (_label, given, named) => {
    const error = errorOf(() => fieldSpecs(given as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain("zod object schema");
    expect(error.message).toContain(named);
  });
});
