// The CSV reader reads a number or integer field's plain text (an optional "-", digits with at
// most one ".", up to 15 digits) from its characters; these tests hold it to what the field's
// converter gives for the text, as csv-parse's read gives it: the same value (Object.is: -0 and 0
// apart), or the same error naming the same text, for plain text and for every other text.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readWrittenCsv } from "../../src/destination/format/csv-reader.js";
import { parseCsvRowsByCsvParse } from "../../src/destination/format/csv-text.js";
import { SchemaError } from "../../src/errors.js";
import type { FieldSpec } from "../../src/schema/index.js";

const integer: FieldSpec = { name: "i", type: "integer", nullable: true };
const number: FieldSpec = { name: "n", type: "number", nullable: true };

/** What a read gives: its rows, or its error's class and message. */
function outcome(read: () => unknown): unknown {
  try {
    return { rows: read() };
  } catch (error) {
    return { error: (error as Error).message, schemaError: error instanceof SchemaError };
  }
}

/** Whether two outcomes are the same, numbers compared with Object.is (so -0 is not 0). */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === "number" || typeof b === "number") return Object.is(a, b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a === b;
  const keys = Object.keys(a);
  if (keys.join() !== Object.keys(b).join()) return false;
  return keys.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Reads the text through the reader, whole and in small chunks, and through csv-parse; expects the same outcome. */
function expectAsCsvParse(source: string, schema: readonly FieldSpec[]): void {
  const bytes = Buffer.from(source);
  const expected = outcome(() => parseCsvRowsByCsvParse(bytes, schema));
  for (const chunkBytes of [undefined, 3]) {
    const got = outcome(() => readWrittenCsv(bytes, schema, chunkBytes === undefined ? {} : { chunkBytes }));
    if (!same(got, expected)) expect.fail(`${JSON.stringify(source)}: ${inspect(got)} !== ${inspect(expected)}`);
  }
}

/** JSON with -0 and bigints shown. */
const inspect = (value: unknown) =>
  JSON.stringify(value, (_, v: unknown) => (Object.is(v, -0) ? "-0" : typeof v === "bigint" ? `${v}n` : v));

const EDGES = [
  // Plain, read from the characters.
  "0",
  "-0",
  "00",
  "007",
  "-007",
  "1.50",
  ".5",
  "5.",
  "-.5",
  "-5.",
  "0.0",
  "-0.0",
  ".0",
  "-.0",
  "0.",
  "0.1",
  "0.3",
  "2.675",
  "123.456",
  "1888.935",
  "7531.325",
  "123456789012345",
  "-123456789012345",
  "999999999999999",
  "99999999999999.9",
  ".999999999999999",
  "12345678.9012345",
  "000000000000001",
  "0.00000000000001",
  // Plain but more than 15 digits: the converter's.
  "1234567890123456",
  "0000000000000001",
  "0.000000000000001",
  "1888.9350000000002",
  "1258.2350000000001",
  "9007199254740991",
  "-9007199254740991",
  "9007199254740992",
  "9007199254740993",
  "-9007199254740993",
  "12345678901234567890",
  "0.1000000000000000055511151231257827",
  // Not plain: the converter's, accepted or refused.
  "1e3",
  "1E3",
  "-1e-3",
  "1.5e2",
  "+1",
  "+0",
  "-+1",
  " 1",
  "1 ",
  "-",
  ".",
  "-.",
  "..5",
  "1.2.3",
  "--1",
  "1-",
  "NaN",
  "Infinity",
  "-Infinity",
  "+Infinity",
  "abc",
  "1a",
  "0x10",
  "1_000",
  "\u0661\u0662",
  "\uFF11",
  "1.7976931348623157e308",
  "5e-324",
];

describe("readWrittenCsv's numbers", () => {
  it("gives for every edge text what the field's converter gives, in an integer field and a number field", () => {
    for (const text of EDGES) {
      for (const spec of [integer, number]) {
        // Alone, and among other records (a refusal names its row); quoted, a field is always text.
        expectAsCsvParse(`${spec.name}\n${text}\n`, [spec]);
        expectAsCsvParse(`${spec.name},s\n1,x\n${text},y\n2,z`, [spec, { name: "s", type: "string", nullable: true }]);
        expectAsCsvParse(`${spec.name}\n"${text}"\n`, [spec]);
      }
    }
  });

  it("reads plain texts to the numbers Number() gives, -0 included", () => {
    const rows = readWrittenCsv(Buffer.from("i,n\n-0,-0\n007,1.50\n-5,-.5\n123456789012345,12345678.9012345\n"), [integer, number]);
    expect(rows).not.toBeNull();
    const values = rows!.map((row) => [row.i, row.n]);
    expect(
      same(values, [
        [0, -0],
        [7, 1.5],
        [-5, -0.5],
        [123456789012345, 12345678.9012345],
      ]),
    ).toBe(true);
  });

  it("names a fraction in an integer field as its text, as the converter does", () => {
    const bytes = Buffer.from("i\n1\n1.5\n");
    expect(() => readWrittenCsv(bytes, [integer])).toThrow(/cannot restore field "i" at row 1: expected integer.*, got string "1.5"/);
  });

  // Texts made of a sign, digits, a point and an exponent, mostly the plain shape, around the
  // 15-digit bound; and the texts of any double and of integers beyond 2 ** 53.
  const digits = (max: number) => fc.string({ unit: fc.constantFrom("0", "1", "5", "9"), maxLength: max });
  const numericText = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.constantFrom("", "", "", "-", "+", " "),
          digits(18),
          fc.constantFrom("", ".", ".", "."),
          digits(18),
          fc.constantFrom("", "", "", "", "e3", "E-2", "x"),
        )
        .map((parts) => parts.join("")),
    },
    { weight: 2, arbitrary: fc.double().map((value) => String(value)) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((value) => String(value)) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom("0", "7", ".", "-", "+", "e", " ", "a"), maxLength: 8 }) },
  );

  it("reads any numeric text as csv-parse's read does", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(numericText, numericText), { minLength: 1, maxLength: 8 }), (records) => {
        const source = `i,n\n${records.map(([i, n]) => `${i},${n}`).join("\n")}\n`;
        expectAsCsvParse(source, [integer, number]);
        // Each field on its own too, so that an integer refused first does not hide the number.
        expectAsCsvParse(`n\n${records.map(([, n]) => n).join("\n")}\n`, [number]);
        expectAsCsvParse(`i\n${records.map(([i]) => i).join("\n")}\n`, [integer]);
      }),
      { numRuns: 2000 },
    );
  });
});
