import { SchemaError } from "../errors.js";
import type { FieldSpec } from "./field-spec.js";
import { formatIsoDate } from "./iso.js";
import { stringifyJson } from "./json-text.js";

/**
 * The text a CSV cell (or any text format) stores for a value; `reconcileRows` reads it back.
 *
 * - null and undefined: "" (so CSV cannot tell an empty string from null)
 * - number: `String(n)` ("NaN", "Infinity", "1e+21"), except -0, written "-0" so it survives
 * - bigint: its decimal digits; boolean: "true" / "false"; Date: `toISOString()`
 * - plain objects and arrays: JSON text, a bigint inside written as a JSON number (exact digits)
 *
 * Given the field's spec, a "date" held as a Date is written "YYYY-MM-DD", and a string in a
 * "json" field is written as JSON text ("\"123\""), which keeps it apart from the number 123
 * and the empty string apart from null.
 */
export function toText(value: unknown, spec?: FieldSpec): string {
  if (value === null || value === undefined) return "";
  // Only a string needs quoting: every other JSON value's text below is already JSON.
  if (spec?.type === "json" && typeof value === "string") return JSON.stringify(value);
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      return numberText(value);
    case "bigint":
      return value.toString();
    case "boolean":
      return value ? "true" : "false";
    case "object":
      return objectText(value, spec);
    default:
      throw new SchemaError(`cannot write a ${typeof value} as text${spec ? ` (field "${spec.name}")` : ""}`);
  }
}

/** A number's text: `String(n)`, except -0, which String writes "0": it is written "-0". */
export function numberText(value: number): string {
  if (value === 0) return 1 / value < 0 ? "-0" : "0";
  // JSON.stringify writes a finite number as String does (the language defines it so), in less
  // time and into a young string. String's result is also put in V8's number-to-string cache,
  // which lives in the old generation: a backfill writing millions of numbers would fill the
  // old generation with text that is garbage at once, and V8 then lets that generation grow.
  return Number.isFinite(value) ? JSON.stringify(value) : String(value);
}

function objectText(value: object, spec: FieldSpec | undefined): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) {
      throw new SchemaError(`cannot write an invalid Date as text${spec ? ` (field "${spec.name}")` : ""}`);
    }
    return spec?.type === "date" ? formatIsoDate(value) : value.toISOString();
  }
  // JSON.stringify would write a Map or a Set as "{}", losing every entry without a word.
  if (value instanceof Map || value instanceof Set) {
    const kind = value instanceof Map ? "Map" : "Set";
    throw new SchemaError(`cannot write a ${kind} as text${spec ? ` (field "${spec.name}")` : ""}: convert it to an object or array`);
  }
  return stringifyJson(value);
}
