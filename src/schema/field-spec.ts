import { isIsoDate, isUtcMidnight, parseIsoDateTime } from "./iso.js";

/** The column types every destination understands. */
export type FieldType = "string" | "integer" | "number" | "boolean" | "date" | "datetime" | "json";

/** Every field type, in a stable order (for messages and exhaustive tests). */
export const FIELD_TYPES: readonly FieldType[] = ["string", "integer", "number", "boolean", "date", "datetime", "json"];

/**
 * One column of an effective schema. `asDate` only matters for "date" and "datetime": whether
 * values are `Date` objects (true) or ISO strings (false); see {@link isDateObjectField}.
 */
export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  readonly nullable: boolean;
  readonly asDate?: boolean;
}

/**
 * Whether a field's values are `Date` objects: a "datetime" unless `asDate` is false, a "date"
 * only when `asDate` is true (a calendar date reads best as "YYYY-MM-DD").
 */
export function isDateObjectField(spec: FieldSpec): boolean {
  if (spec.type === "datetime") return spec.asDate !== false;
  if (spec.type === "date") return spec.asDate === true;
  return false;
}

/** How a field type's canonical value is named in messages ("date (YYYY-MM-DD string)"). */
export function describeFieldType(spec: FieldSpec): string {
  switch (spec.type) {
    case "date":
      return isDateObjectField(spec) ? "date (Date at UTC midnight)" : "date (YYYY-MM-DD string)";
    case "datetime":
      return isDateObjectField(spec) ? "datetime (Date)" : "datetime (ISO-8601 string with a zone)";
    case "integer":
      return "integer (safe integer number or bigint)";
    default:
      return spec.type;
  }
}

/** A test of whether a non-null value already has a field's canonical shape. */
export type ValueCheck = (value: unknown) => boolean;

const isValidDate = (value: unknown): value is Date => value instanceof Date && !Number.isNaN(value.getTime());

/** Plain objects and arrays, the containers JSON can hold; class instances and Maps are not. */
export function isJsonContainer(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The check for one field, built once so a loop over rows calls a closure and never switches. */
export function valueCheck(spec: FieldSpec): ValueCheck {
  const asDate = isDateObjectField(spec);
  switch (spec.type) {
    case "string":
      return (v) => typeof v === "string";
    case "integer":
      // Numbers past 2^53 have already lost digits: the canonical form there is bigint.
      return (v) => typeof v === "bigint" || Number.isSafeInteger(v);
    case "number":
      return (v) => typeof v === "number";
    case "boolean":
      return (v) => typeof v === "boolean";
    case "date":
      return asDate ? (v) => isValidDate(v) && isUtcMidnight(v.getTime()) : (v) => typeof v === "string" && isIsoDate(v);
    case "datetime":
      return asDate ? isValidDate : (v) => typeof v === "string" && parseIsoDateTime(v)?.zoned === true;
    case "json":
      // Shallow on purpose: a deep walk per cell would dominate conform on large tables.
      return (v) => typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) || isJsonContainer(v);
  }
}

/** Whether a value fits a field exactly as declared, with no coercion (null only when nullable). */
export function isFieldValue(spec: FieldSpec, value: unknown): boolean {
  if (value === null || value === undefined) return spec.nullable;
  return valueCheck(spec)(value);
}
