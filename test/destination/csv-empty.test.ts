// CSV's two empty fields: null is an empty unquoted field, "" an empty quoted one (`""`), in
// CSVDestination and the object store's CSV format; files written before "" was quoted (both
// unquoted) read as they did. The writer is checked against csv-stringify and csv-parse, and
// the scan that finds quoted empty fields against csv-parse's own per-field quoting, on
// generated text.
import { readFile, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, IOContext, type AssetRef } from "../../src/destination/index.js";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { csvField, csvLine, parseCsvRows, parseCsvRowsByCast } from "../../src/destination/format/csv-text.js";
import { CSVFormat } from "../../src/destination/format/index.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { makeTempDir } from "../contract/temp-dir.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const notes: AssetRef = { key: "shop.notes", table: "notes", dataset: "shop", partitioning: null };
const jan1 = new TimePartitionWindow("2026-01-01", "2026-01-01");

const schema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "s", type: "string", nullable: true },
  { name: "r", type: "string", nullable: false },
  { name: "n", type: "integer", nullable: true },
  { name: "j", type: "json", nullable: true },
];
const ctx = (asset: AssetRef, window: TimePartitionWindow | null, fields: FieldSpec[] | null) =>
  new IOContext({ asset, window, schema: fields, metadata: { runId: "r1" } });
const encode = (text: string) => new TextEncoder().encode(text);

describe("CSVDestination: null and the empty string", () => {
  let base: string;
  let remove: () => Promise<void>;
  let csv: CSVDestination;
  const partitionDir = () => join(base, "shop", "orders", "date=2026-01-01");

  beforeEach(async () => {
    const dir = await makeTempDir("interloper-csv-empty-");
    base = dir.path;
    remove = dir.remove;
    csv = new CSVDestination({ basePath: base });
  });
  afterEach(() => remove());

  /** Removes the partition's row-count sidecar and the table's index, so counts parse the file. */
  async function forgetCounts(): Promise<void> {
    for (const name of await readdir(partitionDir())) if (name.startsWith(".")) await rm(join(partitionDir(), name));
    for (const name of await readdir(join(partitionDir(), "..")))
      if (name.startsWith(".")) await rm(join(partitionDir(), "..", name), { recursive: true });
  }

  it('writes null as an empty field and "" as an empty quoted one, and reads each back as itself', async () => {
    const rows: Row[] = [
      { date: "2026-01-01", s: "", r: "", n: null, j: null },
      { date: "2026-01-01", s: null, r: "x", n: 1, j: [""] },
      // Text holding the two quotes of an empty quoted field, and a field boundary around them.
      { date: "2026-01-01", s: 'a,"",b', r: '""', n: null, j: { k: ',"",' } },
      { date: "2026-01-01", s: "", r: "two\r\nlines,\n", n: 2, j: null },
      { date: "2026-01-01", s: '"', r: ",", n: null, j: null },
    ];
    await csv.write(ctx(orders, jan1, schema), rows);
    const text = await readFile(join(partitionDir(), "data.csv"), "utf8");
    expect(text.split("\n").slice(0, 3)).toEqual(["date,s,r,n,j", '2026-01-01,"","",,', '2026-01-01,,x,1,"[""""]"']);
    expect(await csv.read(ctx(orders, jan1, schema))).toEqual(rows);
    await forgetCounts();
    expect(await csv.partitionRowCounts(ctx(orders, null, null))).toEqual({ "2026-01-01": rows.length });
  });

  it('tells them apart only with a schema: read without one, every field is text and both are ""', async () => {
    const rows: Row[] = [{ s: null, r: "" }];
    const fields: FieldSpec[] = [
      { name: "s", type: "string", nullable: true },
      { name: "r", type: "string", nullable: true },
    ];
    await csv.write(ctx(notes, null, fields), rows);
    expect(await readFile(join(base, "shop", "notes", "data.csv"), "utf8")).toBe('s,r\n,""\n');
    expect(await csv.read(ctx(notes, null, fields))).toEqual(rows);
    expect(await csv.read(ctx(notes, null, null))).toEqual([{ s: "", r: "" }]);
  });

  it("keeps them apart in a streamed write, across batches", async () => {
    const rows: Row[] = Array.from({ length: 2_500 }, (_, i) => ({
      date: "2026-01-01",
      s: i % 3 === 0 ? null : i % 3 === 1 ? "" : `v${i}`,
      r: i % 2 === 0 ? "" : "r",
      n: i,
      j: null,
    }));
    async function* batches(): AsyncGenerator<Row[]> {
      for (let start = 0; start < rows.length; start += 700) yield rows.slice(start, start + 700);
    }
    await csv.writePartitionStream(ctx(orders, jan1, schema), jan1.partitions[0]!, batches());
    expect(await csv.read(ctx(orders, jan1, schema))).toEqual(rows);
  });

  it("reads a one-column table whose null rows are empty lines", async () => {
    const fields: FieldSpec[] = [{ name: "s", type: "string", nullable: true }];
    const rows: Row[] = [{ s: null }, { s: "" }, { s: null }, { s: "x" }, { s: null }];
    await csv.write(ctx(notes, null, fields), rows);
    const dir = join(base, "shop", "notes");
    expect(await readFile(join(dir, "data.csv"), "utf8")).toBe('s\n\n""\n\nx\n\n');
    expect(await csv.read(ctx(notes, null, fields))).toEqual(rows);
  });

  it('reads a file written before "" was quoted as it did: an empty field is null in a nullable string field, "" in a required one', async () => {
    await mkdir(partitionDir(), { recursive: true });
    await writeFile(join(partitionDir(), "data.csv"), 'date,s,r,n,j\n2026-01-01,,,,\n2026-01-01,"a ""b""",x,1,"{""k"":1}"\n');
    expect(await csv.read(ctx(orders, jan1, schema))).toEqual([
      { date: "2026-01-01", s: null, r: "", n: null, j: null },
      { date: "2026-01-01", s: 'a "b"', r: "x", n: 1, j: { k: 1 } },
    ]);
    // Without a schema every field is its text, as before.
    expect(await csv.read(ctx(orders, jan1, null))).toEqual([
      { date: "2026-01-01", s: "", r: "", n: "", j: "" },
      { date: "2026-01-01", s: 'a "b"', r: "x", n: "1", j: '{"k":1}' },
    ]);
  });
});

describe("CSV text: quoted and unquoted empty fields", () => {
  const fields: FieldSpec[] = [
    { name: "a", type: "string", nullable: true },
    { name: "b", type: "string", nullable: false },
    { name: "c", type: "string", nullable: true },
  ];

  it.each([
    ["\\r\\n records", 'a,b,c\r\n"",,\r\n,"",""\r\n'],
    ["\\r records", 'a,b,c\r"",,\r,"",""\r'],
    ["a byte order mark, no final newline", '\uFEFFa,b,c\n"",,\n,"",""'],
  ])("reads %s", (_label, text) => {
    const want = [
      { a: "", b: "", c: null },
      { a: null, b: "", c: "" },
    ];
    expect(parseCsvRows(encode(text), fields)).toEqual(want);
    expect(parseCsvRowsByCast(encode(text), fields)).toEqual(want);
  });

  it("takes a carriage return inside a field of a \\n file, or a line feed inside one of a \\r\\n file, as text", () => {
    const lf = 'a,b,c\nx\ry,"",\n"",,""\n';
    expect(parseCsvRows(encode(lf), fields)).toEqual([
      { a: "x\ry", b: "", c: null },
      { a: "", b: "", c: "" },
    ]);
    const crlf = 'a,b,c\r\nx\ny,,""\r\n,"",\r\n';
    expect(parseCsvRows(encode(crlf), fields)).toEqual([
      { a: "x\ny", b: "", c: "" },
      { a: null, b: "", c: null },
    ]);
  });

  // Generated text: each value quoted or not (when it can be), one of the three record
  // delimiters, a byte order mark or not, a final delimiter or not; what the scan finds must be
  // what csv-parse tells field by field.
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom("", '""', '","', ",", '"', "\r", "\n", "\r\n", "x") },
    { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('"', ",", "\r", "\n", "a", " ") }) },
  );
  const field = fc.record({ value, quoted: fc.boolean() });
  const text = fc.record({
    records: fc.array(fc.tuple(field, field, field), { maxLength: 12 }),
    delimiter: fc.constantFrom("\n", "\r\n", "\r"),
    bom: fc.boolean(),
    last: fc.boolean(),
  });
  const cell = ({ value: v, quoted }: { value: string; quoted: boolean }) =>
    quoted || /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;

  it("finds the quoted empty fields of generated text as csv-parse's own quoting does", () => {
    fc.assert(
      fc.property(text, ({ records, delimiter, bom, last }) => {
        const lines = ["a,b,c", ...records.map((record) => record.map(cell).join(","))];
        const bytes = encode(`${bom ? "\uFEFF" : ""}${lines.join(delimiter)}${last ? delimiter : ""}`);
        // The header alone, no line break ending it: a file cut inside its header (issue 41.28).
        if (records.length === 0 && !last) return void expect(() => parseCsvRows(bytes, fields)).toThrow("inside its header line");
        const rows = parseCsvRows(bytes, fields);
        expect(rows).toEqual(parseCsvRowsByCast(bytes, fields));
        // An empty value is null only where it was written unquoted in a nullable field.
        rows.forEach((row, i) => {
          records[i]!.forEach((f, j) => {
            const name = fields[j]!.name;
            expect(row[name]).toBe(f.value === "" && !f.quoted && fields[j]!.nullable ? null : f.value);
          });
        });
      }),
      { numRuns: 300 },
    );
  });

  it("writes a record as csv-stringify does, but for its empty fields, and csv-parse reads each field back, quoted where it was empty text", () => {
    fc.assert(
      fc.property(fc.array(fc.option(value, { nil: null }), { minLength: 1, maxLength: 6 }), (fields) => {
        const line = csvLine(fields);
        if (fields.every((f) => f !== null && f !== "")) expect(line).toBe(stringify([fields]));
        const [back] = parse(line, { cast: (v, context) => (v === "" && !context.quoting ? null : v) }) as unknown[][];
        // A record of one empty field is an empty line, which csv-parse reads as one empty field.
        expect(back).toEqual(fields);
      }),
      { numRuns: 500 },
    );
    expect([csvField(null), csvField(""), csvField("a"), csvField('a"b'), csvField("a,b"), csvField("a\rb"), csvField("a\nb")]).toEqual([
      "",
      '""',
      "a",
      '"a""b"',
      '"a,b"',
      '"a\rb"',
      '"a\nb"',
    ]);
  });

  it("round trips generated rows through the object store's CSV format", () => {
    const row = fc.record({ a: fc.option(value, { nil: null }), b: value, c: fc.option(value, { nil: null }) });
    const format = new CSVFormat();
    fc.assert(
      fc.property(fc.array(row, { maxLength: 20 }), (rows) => {
        expect(format.deserialize(format.serialize(rows, fields), fields)).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  });
});
