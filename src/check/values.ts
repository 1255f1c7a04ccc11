// How checks read and show cell values: the one place that says what counts as null, which
// values are equal (-0 is 0, NaN is NaN, a Date is its instant) and how an example is written.
import type { Row } from "../representation/index.js";
import { MAX_EXAMPLES } from "./check.js";

const MAX_SHOWN = 60;

/** A cell as a check's example shows it: strings quoted, Dates as ISO instants, -0 as 0. */
export function showValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "string") return clip(JSON.stringify(value));
  if (typeof value === "bigint") return `${value}`;
  if (typeof value === "number") return Object.is(value, -0) ? "0" : String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (typeof value === "object") {
    try {
      return clip(JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? `${item}` : item)));
    } catch {
      return "an object";
    }
  }
  return String(value);
}

function clip(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}

/** The cell of `column`: null, undefined and a missing field all read as absent (undefined). */
export function cell(row: Row, column: string): unknown {
  return Object.hasOwn(row, column) ? row[column] : undefined;
}

/**
 * Whether `row[column]` reads only the row's own field: true unless Object.prototype has a
 * member of that name ("constructor", "toString", ...), which a row lacking the field would
 * read instead. Checks read safe columns directly, the others through `cell` (a call per cell).
 */
export function readsOwn(column: string): boolean {
  return !(column in Object.prototype);
}

/** Whether a cell is absent: null, undefined, or a field the row lacks. NaN is a value. */
export function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * A key under which equal values meet in a Set: primitives as they are (a Set already treats
 * -0 as 0 and NaN as NaN), a Date by its instant, anything else by its JSON. Types stay apart:
 * the number 1 and the string "1" are different keys.
 */
export function equalityKey(value: unknown): unknown {
  if (value instanceof Date) return `\u0000date:${value.getTime()}`;
  if (typeof value === "object" && value !== null) return `\u0000json:${showValue(value)}`;
  return value;
}

/** Up to MAX_EXAMPLES distinct examples, in the order they were first met. */
export class Examples {
  private readonly seen = new Set<unknown>();
  private readonly shown: string[] = [];

  /** Adds the example of a value (`key` decides what counts as the same one). */
  add(key: unknown, show: () => string): void {
    if (this.shown.length >= MAX_EXAMPLES || this.seen.has(key)) return;
    this.seen.add(key);
    this.shown.push(show());
  }

  get list(): readonly string[] {
    return this.shown;
  }
}
