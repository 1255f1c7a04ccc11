// Schemas of every field type, and the values and text a generated row gives them, for the tests
// that write and read every type (the CSV writer against csv-stringify, the reader against csv-parse).
import fc from "fast-check";
import type { FieldSpec } from "../../src/schema/index.js";

/**
 * One nullable field of every type a schema declares, named by a letter: s string, i integer,
 * n number, b boolean, d date (an ISO day), o date given as a Date (asDate), t datetime, j json.
 */
export const FIELDS_OF_EVERY_TYPE: readonly FieldSpec[] = [
  { name: "s", type: "string", nullable: true },
  { name: "i", type: "integer", nullable: true },
  { name: "n", type: "number", nullable: true },
  { name: "b", type: "boolean", nullable: true },
  { name: "d", type: "date", nullable: true },
  { name: "o", type: "date", nullable: true, asDate: true },
  { name: "t", type: "datetime", nullable: true },
  { name: "j", type: "json", nullable: true },
];

/** Any instant of the years 1 to 9999 (what a date or datetime field holds). */
export const anyDate = fc.date({ min: new Date("0001-01-01"), max: new Date("9999-12-31"), noInvalidDate: true });
/** A day as the d field holds it: its ISO text. */
export const dayText = anyDate.map((date) => date.toISOString().slice(0, 10));
/** A day as the o field (asDate) holds it: a Date at its midnight UTC. */
export const dayDate = anyDate.map((date) => new Date(date.toISOString().slice(0, 10)));

/**
 * Text with the hard cases of CSV: quotes, separators, both line breaks, unicode beyond the BMP,
 * a byte order mark inside a field, empty text. `fixedWeight` is how often one of a fixed list of
 * them comes, against 2 for strings of those characters and 1 for any graphemes.
 */
export function csvText(fixedWeight: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: fixedWeight, arbitrary: fc.constantFrom("", '""', '","', ",", '"', "\r", "\n", "\r\n", "x", "\uFEFFx", "é", "😀", " a ") },
    { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('"', ",", "\r", "\n", "a", " ", "ß", "\u2028", "🎉") }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme" }) },
  );
}
