import type { FieldSpec, FieldType } from "./field-spec.js";

// Each column keeps a bit set of the kinds of value seen in it, so the pass over the rows only
// ORs small integers; the types are resolved once at the end.
const STRING = 1;
const INTEGER = 2;
const NUMBER = 4;
const BOOLEAN = 8;
const DATETIME = 16;
const JSON_VALUE = 32;

function kindOf(value: unknown): number {
  switch (typeof value) {
    case "string":
      return STRING;
    case "number":
      // An integer past 2^53 has already lost digits; it is a float, not an integer column.
      return Number.isSafeInteger(value) ? INTEGER : NUMBER;
    case "bigint":
      return INTEGER;
    case "boolean":
      return BOOLEAN;
    case "undefined":
      return 0;
    case "object":
      if (value === null) return 0;
      return value instanceof Date ? DATETIME : JSON_VALUE;
    default:
      // Functions and symbols have no column type; text is the form that shows them least badly.
      return STRING;
  }
}

function resolve(name: string, kinds: number): FieldSpec {
  let type: FieldType;
  switch (kinds) {
    case INTEGER:
      type = "integer";
      break;
    case NUMBER:
    case INTEGER | NUMBER:
      type = "number";
      break;
    case BOOLEAN:
      type = "boolean";
      break;
    case DATETIME:
      return { name, type: "datetime", nullable: true, asDate: true };
    case JSON_VALUE:
      type = "json";
      break;
    default:
      // Strings, columns that are null everywhere, and every other mix: text holds them all.
      type = "string";
  }
  return { name, type, nullable: true };
}

/**
 * Infers an effective schema from rows when none is declared: every field nullable, fields in
 * order of first appearance, types widened across rows (integer with number is number, any other
 * mix is string). Strings stay strings, ISO dates included; Dates are datetimes, bigints
 * integers, plain objects and arrays json; a column that is never set is string. One pass.
 */
export function inferFieldSpecs(rows: readonly Readonly<Record<string, unknown>>[]): FieldSpec[] {
  const names: string[] = [];
  const kinds: number[] = [];
  const index = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    // Rows nearly always share one key order, so the i-th key is checked against the i-th
    // known column before falling back to the map.
    let position = 0;
    for (const key in row) {
      if (!Object.hasOwn(row, key)) continue;
      let column = names[position] === key ? position : index.get(key);
      if (column === undefined) {
        column = names.length;
        names.push(key);
        kinds.push(0);
        index.set(key, column);
      }
      kinds[column] = kinds[column]! | kindOf(row[key]);
      position++;
    }
  }
  return names.map((name, column) => resolve(name, kinds[column]!));
}

/**
 * The schema of an asset's partitions so far, given the one just inferred (`next`): each
 * partition is inferred alone, so a whole-number day is integer beside fractional days that
 * are number. Integer beside number is number, read exactly either way; any other field takes
 * `next`'s spec, and fields new in `next` are added. A window read then restores every
 * partition, whichever ran last. Null when `next` is null (untyped data), `next` when there is
 * nothing before it.
 */
export function mergeInferred(
  previous: readonly FieldSpec[] | null | undefined,
  next: readonly FieldSpec[] | null,
): readonly FieldSpec[] | null {
  if (!next || !previous) return next;
  const latest = new Map(next.map((spec) => [spec.name, spec]));
  const merged = previous.map((before) => {
    const now = latest.get(before.name);
    if (!now) return before;
    latest.delete(before.name);
    const numbers = (before.type === "number" && now.type === "integer") || (before.type === "integer" && now.type === "number");
    return numbers ? { ...now, type: "number" as const, nullable: before.nullable || now.nullable } : now;
  });
  return [...merged, ...latest.values()];
}
