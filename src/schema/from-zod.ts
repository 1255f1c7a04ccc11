import type { z } from "zod";
import { SchemaError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { FIELD_TYPES, type FieldSpec, type FieldType } from "./field-spec.js";

// Read through `_zod.def`, the core definition that zod classic and zod/mini share, so either
// flavour of schema works.
interface ZodNode {
  readonly _zod: { readonly def: ZodDef };
}
interface ZodDef {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** What a zod type maps to; `type` null for z.null() and z.undefined(), which hold no value. */
interface Mapped {
  readonly type: FieldType | null;
  readonly asDate?: boolean;
  readonly acceptsNull: boolean;
  readonly acceptsUndefined: boolean;
}

const INTEGER_FORMATS = new Set(["safeint", "int32", "uint32"]);
const JSON_COMPATIBLE = new Set<FieldType>(["string", "integer", "number", "boolean", "json"]);
const MAX_DEPTH = 64;

/** The field specs of a zod object schema, in its key order; SchemaError on an unmappable field. */
export function fieldSpecs(schema: z.core.$ZodObject): FieldSpec[] {
  const def = defOf(schema);
  if (def?.type !== "object") {
    const given = def === undefined ? describeValue(schema) : `zod ${def.type} schema`;
    throw new TypeError(`fieldSpecs expects a zod object schema (z.object({...})), got ${given}`);
  }
  const shape = def["shape"] as Readonly<Record<string, unknown>>;
  return Object.entries(shape).map(([name, node]) => toSpec(name, node));
}

function toSpec(name: string, node: unknown): FieldSpec {
  const mapped = map(node, name, 0);
  if (mapped.type === null) unmappable(name, defOf(node)?.type ?? "unknown");
  const nullable = mapped.acceptsNull || mapped.acceptsUndefined;
  return mapped.asDate === undefined ? { name, type: mapped.type, nullable } : { name, type: mapped.type, nullable, asDate: mapped.asDate };
}

function defOf(node: unknown): ZodDef | undefined {
  if (typeof node !== "object" || node === null || !("_zod" in node)) return undefined;
  const def = (node as ZodNode)._zod?.def;
  return typeof def?.type === "string" ? def : undefined;
}

function unmappable(field: string, zodType: string): never {
  throw new SchemaError(`field "${field}" has zod type "${zodType}", which maps to no field type (${FIELD_TYPES.join(", ")})`);
}

function plain(type: FieldType, asDate?: boolean): Mapped {
  return asDate === undefined
    ? { type, acceptsNull: false, acceptsUndefined: false }
    : { type, asDate, acceptsNull: false, acceptsUndefined: false };
}

/** The format a string or number schema declares, as `z.iso.date()` or as a check (`.date()`). */
function hasFormat(def: ZodDef, formats: ReadonlySet<string>): string | undefined {
  if (typeof def["format"] === "string" && formats.has(def["format"])) return def["format"];
  const checks = (def["checks"] ?? []) as readonly ZodNode[];
  for (const check of checks) {
    const format = check._zod.def["format"];
    if (typeof format === "string" && formats.has(format)) return format;
  }
  return undefined;
}

const DATE_FORMATS = new Set(["date", "datetime"]);

function map(node: unknown, field: string, depth: number): Mapped {
  const def = defOf(node);
  if (def === undefined) return unmappable(field, describeValue(node));
  if (depth > MAX_DEPTH) return unmappable(field, def.type);
  const inner = (key: string): Mapped => map(def[key], field, depth + 1);
  switch (def.type) {
    case "string": {
      const format = hasFormat(def, DATE_FORMATS);
      return format === undefined ? plain("string") : plain(format === "date" ? "date" : "datetime", false);
    }
    case "number":
      return plain(hasFormat(def, INTEGER_FORMATS) === undefined ? "number" : "integer");
    case "bigint":
      return plain("integer");
    case "boolean":
      return plain("boolean");
    case "date":
      return plain("datetime", true);
    case "nan":
      return plain("number");
    case "template_literal":
      return plain("string");
    case "object":
    case "array":
    case "record":
    case "tuple":
      return plain("json");
    case "enum":
      return fromValues(Object.values(def["entries"] as object), field, def.type);
    case "literal":
      return fromValues(def["values"] as readonly unknown[], field, def.type);
    case "null":
      return { type: null, acceptsNull: true, acceptsUndefined: false };
    case "undefined":
    case "void":
      return { type: null, acceptsNull: false, acceptsUndefined: true };
    case "nullable":
      return { ...inner("innerType"), acceptsNull: true };
    case "optional":
    case "default":
    case "prefault":
      return { ...inner("innerType"), acceptsUndefined: true };
    case "nonoptional":
      return { ...inner("innerType"), acceptsUndefined: false };
    case "readonly":
    case "catch":
      return inner("innerType");
    case "pipe":
      // Rows hold what the pipe produces: z.codec(z.iso.datetime(), z.date()) holds Dates.
      return inner("out");
    case "lazy":
      return map((def["getter"] as () => unknown)(), field, depth + 1);
    case "union":
      return combine(
        (def["options"] as readonly unknown[]).map((option) => map(option, field, depth + 1)),
        field,
        def.type,
      );
    case "intersection":
      return combine([inner("left"), inner("right")], field, def.type);
    default:
      return unmappable(field, def.type);
  }
}

/** The type of an enum's or a literal's values: z.enum(["a", "b"]) holds strings. */
function fromValues(values: readonly unknown[], field: string, zodType: string): Mapped {
  const mapped = values.map((value): Mapped => {
    switch (typeof value) {
      case "string":
        return plain("string");
      case "number":
        return plain(Number.isSafeInteger(value) ? "integer" : "number");
      case "bigint":
        return plain("integer");
      case "boolean":
        return plain("boolean");
      case "undefined":
        return { type: null, acceptsNull: false, acceptsUndefined: true };
      default:
        return value === null ? { type: null, acceptsNull: true, acceptsUndefined: false } : unmappable(field, zodType);
    }
  });
  return combine(mapped, field, zodType);
}

/** The one field type holding every alternative of a union, or SchemaError when none does. */
function combine(options: readonly Mapped[], field: string, zodType: string): Mapped {
  const acceptsNull = options.some((option) => option.acceptsNull);
  const acceptsUndefined = options.some((option) => option.acceptsUndefined);
  const typed = options.filter((option) => option.type !== null);
  const types = new Set(typed.map((option) => option.type));
  const first = typed[0];
  if (first === undefined) return { type: null, acceptsNull, acceptsUndefined };
  if (types.size === 1 && typed.every((option) => option.asDate === first.asDate)) {
    return { ...first, acceptsNull, acceptsUndefined };
  }
  const all = [...types] as FieldType[];
  if (all.every((type) => type === "integer" || type === "number")) {
    return { type: "number", acceptsNull, acceptsUndefined };
  }
  // A json field holds any JSON value, so it absorbs the primitive alternatives beside it.
  if (types.has("json") && all.every((type) => JSON_COMPATIBLE.has(type))) {
    return { type: "json", acceptsNull, acceptsUndefined };
  }
  return unmappable(field, zodType);
}
