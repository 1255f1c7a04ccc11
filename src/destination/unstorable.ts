import { SchemaError } from "../errors.js";
import { stringifyJson } from "../schema/json-text.js";

// Values a destination refuses because its storage would hold a different value: one message
// shape for every encode loop (CSV, the object-store formats, SQL), and the one UTF-8 check.

/** The refusal of one value: which destination, field and (0-based) row, and why. */
export function unstorable(destination: string, field: string, row: number, reason: string, cause?: unknown): SchemaError {
  return new SchemaError(
    `${destination}: cannot write field ${JSON.stringify(field)} at row ${row}: ${reason}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * `text` itself when UTF-8 can hold it. A string that is not well-formed UTF-16 holds a lone
 * surrogate (half of a pair, as `slice` leaves when it cuts through an emoji); UTF-8 has no
 * form for it and encoders write U+FFFD instead, so a destination that stores UTF-8 text
 * refuses the string rather than store another one. Called once per string value, in the
 * destination's own encode loop.
 */
export function utf8Text(text: string, destination: string, field: string, row: number): string {
  if (text.isWellFormed()) return text;
  throw unstorable(destination, field, row, loneSurrogate(text));
}

/** Why UTF-8 text cannot hold a string that is not well-formed: where its first lone surrogate is. */
function loneSurrogate(text: string): string {
  let at = 0;
  for (; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = text.charCodeAt(at + 1);
    if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) break;
    at++;
  }
  const unit = text.charCodeAt(at).toString(16).toUpperCase();
  return (
    `the string holds a lone UTF-16 surrogate (\\u${unit} at index ${at}), which UTF-8 text cannot hold (it would read back as U+FFFD); ` +
    "expected well-formed Unicode (String.prototype.toWellFormed() replaces lone surrogates)"
  );
}

/**
 * A date or datetime value (a Date, or ISO text) given back when its year is one of `min..max`,
 * the years a destination's storage takes; refused otherwise, saying why (`why`) and what is
 * allowed. Text whose year cannot be read is given back as it is.
 */
export function withinYears(
  value: unknown,
  kind: "date" | "datetime",
  [min, max]: readonly [number, number],
  destination: string,
  field: string,
  row: number,
  why: string,
): unknown {
  const year = value instanceof Date ? value.getUTCFullYear() : typeof value === "string" ? isoYear(value) : Number.NaN;
  if (Number.isNaN(year) || (year >= min && year <= max)) return value;
  const text = value instanceof Date ? value.toISOString() : String(value);
  throw unstorable(
    destination,
    field,
    row,
    `the ${kind} ${text} is outside the years ${min}..${max}: ${why}; expected a ${kind} of the years ${min}..${max}`,
  );
}

/** The year of ISO text: four digits, or six with a sign (expanded years); NaN for other text. */
function isoYear(text: string): number {
  const match = /^([+-]\d{6}|\d{4})-/.exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

/** What a destination's JSON storage cannot hold besides what JSON text cannot. */
export interface JsonStorage {
  /** The database parses the text (jsonb, MySQL's JSON): strings must be well-formed Unicode. */
  readonly wellFormed?: boolean;
  /** PostgreSQL's jsonb has no NUL in a string. */
  readonly noNul?: boolean;
}

/**
 * A json field's value, given back when a destination that stores JSON text can hold it exactly.
 * JSON text writes -0 as 0, NaN and ±Infinity as null and a Map or a Set as {}, so a value
 * holding one, at any depth, is refused, naming where it is; with `storage.wellFormed` so is a
 * string or key holding a lone UTF-16 surrogate (JSON text escapes it, but a database that parses
 * JSON refuses the escape), and with `storage.noNul` one holding NUL. A walk of the value, for
 * json fields only.
 */
export function storableJson(value: unknown, destination: string, field: string, row: number, storage: JsonStorage = {}): unknown {
  const found = jsonProblem(value, storage, 0);
  if (found !== null)
    throw unstorable(destination, field, row, `the json value holds ${found.what} at ${jsonPath(found.at)}, ${found.why}`);
  return value;
}

/**
 * The JSON text of a json field's value (bigints as numbers with their exact digits), refused as
 * {@link storableJson} says: the one serialisation of json fields for every destination that
 * stores JSON text (CSV, the object-store formats, SQLite, PostgreSQL, MySQL).
 */
export function jsonText(value: unknown, destination: string, field: string, row: number, storage: JsonStorage = {}): string {
  // Text first: a cycle fails here (TypeError), before the walk would follow it.
  const text = stringifyJson(value);
  storableJson(value, destination, field, row, storage);
  return text;
}

interface JsonProblem {
  /** The keys and indexes from the value down to it (built on the way back up, only on failure). */
  readonly at: Array<string | number>;
  readonly what: string;
  readonly why: string;
}

/** Past this depth JSON.stringify has long run out of stack; the walk stops looking. */
const MAX_JSON_DEPTH = 5_000;

function jsonProblem(value: unknown, storage: JsonStorage, depth: number): JsonProblem | null {
  switch (typeof value) {
    case "number":
      if (value === 0 && 1 / value < 0)
        return { at: [], what: "-0", why: "which JSON text writes as 0 (it would read back as 0); expected a json value without -0" };
      if (!Number.isFinite(value))
        return { at: [], what: String(value), why: "which JSON has no number for (it would read back as null); expected finite numbers" };
      return null;
    case "string":
      return textProblem(value, "string", storage);
    case "object":
      break;
    default:
      return null;
  }
  if (value === null || depth > MAX_JSON_DEPTH) return null;
  if (value instanceof Map || value instanceof Set) {
    const kind = value instanceof Map ? "a Map" : "a Set";
    return { at: [], what: kind, why: `which JSON text writes as {} (its entries would be lost); expected plain objects and arrays` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = jsonProblem(value[i], storage, depth + 1);
      if (found !== null) return (found.at.unshift(i), found);
    }
    return null;
  }
  // What JSON.stringify writes of an object: its own enumerable string keys (a Date has none:
  // it writes its toJSON text).
  for (const key of Object.keys(value)) {
    const found = textProblem(key, "key", storage) ?? jsonProblem((value as Record<string, unknown>)[key], storage, depth + 1);
    if (found !== null) return (found.at.unshift(key), found);
  }
  return null;
}

/** A string value or an object's key (then `at` names the member it is the key of). */
function textProblem(text: string, what: "string" | "key", storage: JsonStorage): JsonProblem | null {
  if (storage.wellFormed && !text.isWellFormed()) {
    return {
      at: [],
      what: `a ${what} with a lone UTF-16 surrogate`,
      why: "which the database's JSON cannot hold; expected well-formed Unicode (String.prototype.toWellFormed() replaces lone surrogates)",
    };
  }
  if (storage.noNul && text.includes("\0"))
    return {
      at: [],
      what: `a ${what} with a NUL character (\\u0000)`,
      why: "which PostgreSQL's jsonb cannot hold; expected text without NUL",
    };
  return null;
}

/**
 * `$`, `$[2].name`, `$["a key"]`: where in a json value something is, on one line (a key is
 * JSON-quoted, with the line separators JSON leaves as they are escaped too) and short (a long
 * key is cut).
 */
function jsonPath(at: ReadonlyArray<string | number>): string {
  let path = "$";
  for (const step of at) {
    if (typeof step === "number") path += `[${step}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(step) && step.length <= MAX_KEY_SHOWN) path += `.${step}`;
    else
      path += `[${quoteKey(step.length > MAX_KEY_SHOWN ? step.slice(0, MAX_KEY_SHOWN) : step)}${step.length > MAX_KEY_SHOWN ? "..." : ""}]`;
  }
  return path;
}

const MAX_KEY_SHOWN = 40;
const quoteKey = (key: string): string => JSON.stringify(key).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
