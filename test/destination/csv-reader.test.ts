// The reader of the CSV dialect our writer produces (readWrittenCsv) against csv-parse, the
// reference: on generated text, in and out of that dialect, a read gives what csv-parse's read
// gives (the same rows, or the same error), and the fast path takes every file our writer writes.
import fc from "fast-check";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { CsvEncoder } from "../../src/destination/format/csv-encoder.js";
import { readWrittenCsv } from "../../src/destination/format/csv-reader.js";
import { parseCsvRows, parseCsvRowsByCsvParse } from "../../src/destination/format/csv-text.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { anyDate, csvText, dayDate, dayText, FIELDS_OF_EVERY_TYPE } from "../support/field-specs.js";

const strings: FieldSpec[] = [
  { name: "a", type: "string", nullable: true },
  { name: "b", type: "string", nullable: false },
  { name: "c", type: "string", nullable: true },
];

// Every type, and a string field that is not nullable.
const typed: FieldSpec[] = [...FIELDS_OF_EVERY_TYPE, { name: "r", type: "string", nullable: false }];

/** The bytes our writer writes for rows. */
function written(rows: readonly Row[], header: readonly string[], schema: readonly FieldSpec[] | null = null): Buffer {
  return CsvEncoder.encodeAll(rows, header, "t", schema);
}

/** What a read gives: its rows, or its error's message. */
function outcome(read: () => unknown): unknown {
  try {
    return { rows: read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

// Text, the hard cases of CSV, the fixed ones most often.
const text = csvText(3);

describe("readWrittenCsv", () => {
  it("reads every field type our writer writes as csv-parse does, and gives the rows written", () => {
    const row = fc.record({
      s: fc.option(text, { nil: null }),
      r: text,
      i: fc.option(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constant(-0)), { nil: null }),
      n: fc.option(fc.double(), { nil: null }),
      b: fc.option(fc.boolean(), { nil: null }),
      d: fc.option(dayText, { nil: null }),
      o: fc.option(dayDate, { nil: null }),
      t: fc.option(anyDate, { nil: null }),
      // Through JSON text once: the writer refuses a json value holding -0 (it would read back
      // as 0), and fast-check's json values may hold one.
      j: fc.option(
        fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown),
        { nil: null },
      ),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 15 }), (rows) => {
        const bytes = written(
          rows,
          typed.map((spec) => spec.name),
          typed,
        );
        const fast = readWrittenCsv(bytes, typed);
        expect(fast).not.toBeNull();
        expect(fast).toEqual(parseCsvRowsByCsvParse(bytes, typed));
        // Decoded in chunks of any size, down to a line a chunk, the text reads the same.
        for (const chunkBytes of [1, 7, 64]) expect(readWrittenCsv(bytes, typed, { chunkBytes })).toEqual(fast);
        // The rows written, but for -0, which an integer field stores as 0.
        fast!.forEach((back, k) => {
          const { s, r, i, b, d, o, t } = rows[k]!;
          expect({ s: back.s, r: back.r, i: back.i, b: back.b, d: back.d, o: back.o, t: back.t }).toEqual({
            s,
            r,
            i: i === null ? null : i || 0,
            b,
            d,
            o,
            t,
          });
          expect(Object.is(back.n, rows[k]!.n) || (Object.is(back.n, 0) && Object.is(rows[k]!.n, -0))).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("reads text our writer writes under any header as csv-parse does, with a schema and without", () => {
    // Header names: a schema's own, empty, unicode, numeric (which objects order first), and
    // names the prototype has.
    const name = fc.constantFrom("a", "b", "c", "x", "", 'é,"', "1", "0", "constructor", "toString", "__proto__");
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(fc.option(text, { nil: null }), { minLength: 5, maxLength: 5 }), { maxLength: 10 }),
        (header, values) => {
          const rows = values.map((record) => Object.fromEntries(header.map((column, j) => [column, record[j]])));
          const bytes = written(rows, header);
          for (const schema of [strings, null]) {
            const expected = outcome(() => parseCsvRowsByCsvParse(bytes, schema));
            expect(outcome(() => parseCsvRows(bytes, schema))).toEqual(expected);
            if (!header.includes("__proto__")) expect(readWrittenCsv(bytes, schema)).not.toBeNull();
          }
          expect(outcome(() => parseCsvRows(bytes, null))).toEqual(outcome(() => parse(bytes, { bom: true, columns: true })));
        },
      ),
      { numRuns: 300 },
    );
  });

  // Text outside the dialect too: each field quoted or not (a stray quote where it cannot be),
  // one of the three record delimiters, a byte order mark (UTF-8 or UTF-16) or not, a final
  // delimiter or not, ragged records, repeated header names.
  const field = fc.record({ value: fc.option(text, { nil: null }), quoted: fc.boolean(), stray: fc.nat(30) });
  const anyText = fc.record({
    header: fc.array(fc.constantFrom("a", "b", "c", "d", "", "a"), { minLength: 1, maxLength: 4 }),
    records: fc.array(fc.array(field, { minLength: 0, maxLength: 5 }), { maxLength: 10 }),
    delimiter: fc.constantFrom("\n", "\n", "\r\n", "\r"),
    bom: fc.constantFrom("", "", "\uFEFF", "\uFFFE"),
    last: fc.boolean(),
  });
  const cell = ({ value, quoted, stray }: { value: string | null; quoted: boolean; stray: number }) => {
    if (value === null) return "";
    const text = quoted || /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
    // Now and then a quote or a character where the dialect has none.
    return stray === 0 ? `${text}"` : stray === 1 ? `x${text}` : stray === 2 ? `${text} ` : text;
  };

  it("reads any generated text as csv-parse does, or hands it to csv-parse", () => {
    fc.assert(
      fc.property(anyText, ({ header, records, delimiter, bom, last }) => {
        const lines = [header.join(","), ...records.map((record) => record.map(cell).join(","))];
        const source = `${lines.join(delimiter)}${last ? delimiter : ""}`;
        const bytes =
          bom === "\uFFFE" ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(source, "utf16le")]) : Buffer.from(`${bom}${source}`);
        // A header alone that no line break ends was cut inside it (issue 41.28): refused, where csv-parse reads no rows.
        const cut = bom !== "\uFFFE" && records.length === 0 && !last && source !== "";
        const refused = { error: "the file ends inside its header line (it was cut short)" };
        const csvParse = (read: () => unknown) => {
          const result = outcome(read);
          return cut && (result as { rows?: unknown[] }).rows?.length === 0 ? refused : result;
        };
        for (const schema of [strings, null]) {
          const expected = csvParse(() => parseCsvRowsByCsvParse(bytes, schema));
          expect(outcome(() => parseCsvRows(bytes, schema))).toEqual(expected);
          // Decoded in small chunks, text inside the dialect reads the same, and text outside it is still refused.
          for (const chunkBytes of [1, 5]) {
            const chunked = readWrittenCsv(bytes, schema, { chunkBytes });
            const whole = readWrittenCsv(bytes, schema);
            expect(chunked).toEqual(whole);
            if (whole !== null) expect(cut ? refused : { rows: whole }).toEqual(expected);
          }
        }
        expect(outcome(() => parseCsvRows(bytes, null))).toEqual(csvParse(() => parse(bytes, { bom: true, columns: true })));
      }),
      { numRuns: 1000 },
    );
  });

  it("hands csv-parse the text outside its dialect", () => {
    const outside = [
      "a\r\nx\r\n",
      "a\rx\r",
      'a\nx"y\n',
      'a\n"x"y\n',
      'a\n"x\n',
      "a,b\n1\n",
      "a,b\n1,2,3\n",
      "a,a\n1,2\n",
      "__proto__\nx\n",
    ];
    for (const source of outside) expect(readWrittenCsv(Buffer.from(source), strings), JSON.stringify(source)).toBeNull();
    expect(readWrittenCsv(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\nx\n", "utf16le")]), null)).toBeNull();
    // Within it: a UTF-8 byte order mark, quoted line breaks of either kind, no final line feed,
    // an empty line (a record of one empty field), an empty file.
    expect(readWrittenCsv(Buffer.from('\uFEFFa,b\n"x\r\ny",""\n,"\r"'), strings)).toEqual([
      { a: "x\r\ny", b: "", c: null },
      { a: null, b: "\r", c: null },
    ]);
    expect(readWrittenCsv(Buffer.from("a\n\nx\n"), null)).toEqual([{ a: "" }, { a: "x" }]);
    expect(readWrittenCsv(Buffer.from(""), strings)).toEqual([]);
  });

  it("reads a quoted field whose line breaks run over many chunks, and multi-byte text at their edges", () => {
    const long = Array.from({ length: 200 }, (_, k) => `é${k}\n"€`).join("");
    const source = `\uFEFFa,b\nx,"${long.replaceAll('"', '""')}"\n"${long.replaceAll('"', '""')}",é\n€,\n`;
    const expected = [
      { a: "x", b: long, c: null },
      { a: long, b: "é", c: null },
      { a: "€", b: "", c: null },
    ];
    expect(parseCsvRowsByCsvParse(Buffer.from(source), strings)).toEqual(expected);
    for (const chunkBytes of [1, 2, 3, 100, 1 << 16])
      expect(readWrittenCsv(Buffer.from(source), strings, { chunkBytes })).toEqual(expected);
    // Unclosed, the quote runs to the end of the bytes: outside the dialect, however it is decoded.
    for (const chunkBytes of [1, 100]) expect(readWrittenCsv(Buffer.from(`a\n"${long}`), strings, { chunkBytes })).toBeNull();
  });

  it("appends the rows to an array it is given, which text outside the dialect leaves as it was", () => {
    const into: Row[] = [{ a: "before" }];
    expect(readWrittenCsv(Buffer.from("a\nx\ny\n"), null, { into })).toBe(into);
    expect(into).toEqual([{ a: "before" }, { a: "x" }, { a: "y" }]);
    // Refused at its last record, after the first was read.
    for (const chunkBytes of [1, 1 << 16]) {
      expect(readWrittenCsv(Buffer.from("a,b\n1,2\n3\n"), null, { into, chunkBytes })).toBeNull();
      expect(into).toEqual([{ a: "before" }, { a: "x" }, { a: "y" }]);
    }
    // parseCsvRows appends what csv-parse reads of such text, and refusals count rows from the file's first.
    const bytes = Buffer.from("a,b\n1,2\r\n3,4\n");
    expect(parseCsvRows(bytes, null, into)).toBe(into);
    expect(into.slice(3)).toEqual(parseCsvRowsByCsvParse(bytes, null));
    const schema: FieldSpec[] = [{ name: "i", type: "integer", nullable: true }];
    expect(() => parseCsvRows(Buffer.from("i\n1\nx\n"), schema, into)).toThrow(/at row 1:/);
  });

  it("names the field, the row and the value it cannot restore, as csv-parse's read does", () => {
    const bytes = Buffer.from("i,n\n1,2\nx,3\n");
    const schema: FieldSpec[] = [
      { name: "i", type: "integer", nullable: true },
      { name: "n", type: "number", nullable: true },
    ];
    expect(() => readWrittenCsv(bytes, schema)).toThrow(/cannot restore field "i" at row 1: expected integer.*, got string "x"/);
    expect(outcome(() => readWrittenCsv(bytes, schema))).toEqual(outcome(() => parseCsvRowsByCsvParse(bytes, schema)));
  });
});
