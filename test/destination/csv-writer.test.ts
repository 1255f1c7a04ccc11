// The one CSV writer (CsvEncoder, behind CSVDestination and CSVFormat) against csv-stringify,
// the reference: for generated rows of every field type, our bytes parse back through csv-parse
// to exactly what csv-stringify's output of the same values parses back to, and they keep null
// (an empty field) apart from "" (an empty quoted one), which csv-stringify cannot.
import fc from "fast-check";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { describe, expect, it } from "vitest";
import { CsvEncoder } from "../../src/destination/format/csv-encoder.js";
import { CSVFormat } from "../../src/destination/format/index.js";
import { jsonText } from "../../src/destination/unstorable.js";
import type { Row } from "../../src/representation/index.js";
import { type FieldSpec, toText } from "../../src/schema/index.js";
import { anyDate, csvText, dayDate, dayText, FIELDS_OF_EVERY_TYPE } from "../support/field-specs.js";

const schema: FieldSpec[] = [
  ...FIELDS_OF_EVERY_TYPE,
  // An integer field for bigints.
  { name: "g", type: "integer", nullable: true },
  // A name that needs quoting, and one that starts with a byte order mark.
  { name: 'x,"y"\n', type: "string", nullable: true },
  { name: "\uFEFFz", type: "string", nullable: true },
];
const header = schema.map((spec) => spec.name);

// Text with every character CSV treats specially, unicode beyond the BMP, and empty text.
const text = csvText(2);
const row = fc.record({
  s: fc.option(text, { nil: null }),
  i: fc.option(fc.oneof(fc.integer(), fc.maxSafeInteger()), { nil: null }),
  n: fc.option(fc.double(), { nil: null }),
  g: fc.option(fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), { nil: null }),
  b: fc.option(fc.boolean(), { nil: null }),
  d: fc.option(dayText, { nil: null }),
  o: fc.option(dayDate, { nil: null }),
  t: fc.option(anyDate, { nil: null }),
  // Through JSON text once: the writer refuses a json value holding -0 (it would read back as 0).
  j: fc.option(
    fc.oneof(
      fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown),
      text,
    ),
    { nil: null },
  ),
  'x,"y"\n': fc.option(text, { nil: null }),
  "\uFEFFz": fc.option(text, { nil: null }),
});

/** A value's text form: `toText`, but JSON text for every value of a json field (where -0 is 0). */
const textOf = (value: unknown, spec: FieldSpec, row: number) =>
  value === null ? null : spec.type === "json" ? jsonText(value, "CSV", spec.name, row) : toText(value, spec);

/** csv-stringify's CSV of the same rows: each value's text form, null an empty field. */
function referenceCsv(rows: readonly Row[]): string {
  return stringify([header, ...rows.map((r, k) => schema.map((spec) => textOf(r[spec.name], spec, k)))]);
}

/** csv-parse's records, each field with whether it was quoted when it is empty. */
function fieldsOf(bytes: Uint8Array | string): Array<Array<string | null>> {
  return parse(Buffer.from(bytes), { cast: (value, context) => (value === "" && !context.quoting ? null : value) }) as Array<
    Array<string | null>
  >;
}

describe("the CSV writer against csv-stringify", () => {
  it("writes bytes that csv-parse reads back as it reads csv-stringify's, for every field type", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), (rows) => {
        const ours = CsvEncoder.encodeAll(rows, header, "t", schema);
        const reference = referenceCsv(rows);
        // Plain csv-parse, which reads an empty field as "" however it is written.
        expect(parse(ours)).toEqual(parse(reference));
        // Told apart by quoting, only ours keeps null and "" apart.
        const fields = fieldsOf(ours);
        rows.forEach((r: Row, k) => schema.forEach((spec, j) => expect(fields[k + 1]![j]).toBe(textOf(r[spec.name], spec, k))));
        // The object stores' CSV format is the same writer.
        expect(Buffer.from(new CSVFormat().serialize(rows, schema))).toEqual(ours);
      }),
      { numRuns: 300 },
    );
  });

  it("writes the same bytes as csv-stringify where no field is empty", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(
            text.filter((value) => value !== "" && !value.startsWith("\uFEFF")),
            { minLength: 3, maxLength: 3 },
          ),
          { maxLength: 10 },
        ),
        (records) => {
          const rows = records.map(([a, b, c]) => ({ a, b, c }));
          expect(CsvEncoder.encodeAll(rows, ["a", "b", "c"], "t", null).toString()).toBe(stringify([["a", "b", "c"], ...records]));
        },
      ),
      { numRuns: 300 },
    );
  });
});
