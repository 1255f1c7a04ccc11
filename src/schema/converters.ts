import { type FieldSpec, isDateObjectField } from "./field-spec.js";
import { formatIsoDate, isIsoDate, isUtcMidnight, parseIsoDate, parseIsoDateTime } from "./iso.js";
import { toText } from "./text.js";

/** What a converter returns for a value it cannot restore (null is a legitimate result). */
export const INVALID: unique symbol = Symbol("interloper.schema.invalid");

/** Restores one field's canonical value from whatever form it was stored or returned in. */
export type Converter = (value: unknown) => unknown;

/**
 * "stored": values read back from storage, where "" is how text formats hold null and a json
 * field's string is JSON text. "output": values an asset returned, where "" and a JSON string
 * are real values of string and json fields and are kept as they are. "typed": values read back
 * from a store that keeps "" apart from null (SQL): as "stored", but a string field's "" stays "".
 */
export type ConvertMode = "stored" | "output" | "typed";

const DIGITS = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_NUMBERS = new Set(["NaN", "Infinity", "+Infinity", "-Infinity"]);
const BOOLEAN_TEXT = new Map<string, boolean>([
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
]);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Builds the converter for one field, once, so the row loop only calls closures. */
export function converterFor(spec: FieldSpec, mode: ConvertMode): Converter {
  const convert = typed(spec, mode);
  // A non-nullable string field cannot hold null, so its "" can only ever have been "".
  const emptyIsNull =
    mode === "stored"
      ? spec.type !== "string" || spec.nullable
      : mode === "typed"
        ? spec.type !== "string"
        : spec.type !== "string" && spec.type !== "json";
  return (value) => {
    if (value === null || value === undefined || (value === "" && emptyIsNull)) return null;
    return convert(value);
  };
}

function typed(spec: FieldSpec, mode: ConvertMode): Converter {
  switch (spec.type) {
    case "string":
      return toStringValue;
    case "integer":
      return toInteger;
    case "number":
      return toNumber;
    case "boolean":
      return toBoolean;
    case "date":
      return isDateObjectField(spec) ? toDateObject : toDateText;
    case "datetime":
      return isDateObjectField(spec) ? toDateTimeObject : toDateTimeText;
    case "json":
      return mode === "output" ? toJsonValue : toJsonFromStored;
  }
}

const isValidDate = (value: unknown): value is Date => value instanceof Date && !Number.isNaN(value.getTime());

function toStringValue(value: unknown): unknown {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return toText(value);
  return isValidDate(value) ? value.toISOString() : INVALID;
}

/** A bigint only where a number would lose digits. */
function fromBigInt(value: bigint): number | bigint {
  return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value;
}

// An integer has no negative zero: -0 (or the text "-0") is 0, which every store can hold.
function toInteger(value: unknown): unknown {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value)) return value === 0 ? 0 : value;
    return Number.isInteger(value) ? BigInt(value) : INVALID;
  }
  if (typeof value === "bigint") return fromBigInt(value);
  if (typeof value !== "string") return INVALID;
  if (DIGITS.test(value)) {
    // Up to 15 digits always fits a double exactly; longer text goes through BigInt.
    return value.length <= 15 ? Number(value) || 0 : fromBigInt(BigInt(value));
  }
  if (!DECIMAL.test(value)) return INVALID;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number || 0 : INVALID;
}

function toNumber(value: unknown): unknown {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (typeof value !== "string") return INVALID;
  return DECIMAL.test(value) || SPECIAL_NUMBERS.has(value) ? Number(value) : INVALID;
}

function toBoolean(value: unknown): unknown {
  if (typeof value === "boolean") return value;
  // SQLite and MySQL store booleans as 0 and 1.
  if (typeof value === "number" || typeof value === "bigint") {
    return value == 1 ? true : value == 0 ? false : INVALID;
  }
  if (typeof value !== "string") return INVALID;
  const exact = BOOLEAN_TEXT.get(value);
  if (exact !== undefined) return exact;
  // "True" and "FALSE" come from pandas and spreadsheets.
  return value.length === 4 || value.length === 5 ? (BOOLEAN_TEXT.get(value.toLowerCase()) ?? INVALID) : INVALID;
}

/** The epoch time a date or datetime value names, or NaN. */
function timeOf(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== "string") return Number.NaN;
  const date = parseIsoDate(value);
  return Number.isNaN(date) ? (parseIsoDateTime(value)?.time ?? Number.NaN) : date;
}

// A calendar date accepts an instant only at UTC midnight: truncating any other one would
// silently move rows to the previous or next day depending on where they were written.
function toDateObject(value: unknown): unknown {
  if (isValidDate(value)) return isUtcMidnight(value.getTime()) ? value : INVALID;
  const time = timeOf(value);
  return isUtcMidnight(time) ? new Date(time) : INVALID;
}

function toDateText(value: unknown): unknown {
  if (typeof value === "string" && isIsoDate(value)) return value;
  const time = timeOf(value);
  return isUtcMidnight(time) ? formatIsoDate(new Date(time)) : INVALID;
}

function toDateTimeObject(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? INVALID : value;
  const time = timeOf(value);
  return Number.isNaN(time) ? INVALID : new Date(time);
}

function toDateTimeText(value: unknown): unknown {
  if (typeof value === "string") {
    const parsed = parseIsoDateTime(value);
    if (parsed === null) return INVALID;
    // A zoned string is kept verbatim (its offset is information); a zoneless one is UTC.
    return parsed.zoned ? value : new Date(parsed.time).toISOString();
  }
  return isValidDate(value) ? value.toISOString() : INVALID;
}

function toJsonValue(value: unknown): unknown {
  return typeof value === "function" || typeof value === "symbol" ? INVALID : value;
}

// Characters JSON text can start with: { [ " - digits t f n and leading whitespace.
const JSON_START = /^[\s{["\-\dtfn]/;

function toJsonFromStored(value: unknown): unknown {
  if (typeof value !== "string") return toJsonValue(value);
  if (!JSON_START.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    // Plain text that is not JSON is the string value itself.
    return value;
  }
}
