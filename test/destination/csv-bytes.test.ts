// The CSV byte encoder (CsvBytes, CsvEncoder) against the text writer it replaced (csvField,
// numberText), on generated values and across chunk boundaries; its chunk reuse; and that
// CSVDestination encodes a partition before its first I/O wait.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, IOContext, type AssetRef } from "../../src/destination/index.js";
import { CHUNK_BYTES, recycleChunks } from "../../src/destination/byte-chunks.js";
import { CsvBytes } from "../../src/destination/format/csv-bytes.js";
import { CsvEncoder } from "../../src/destination/format/csv-encoder.js";
import { csvLine } from "../../src/destination/format/csv-text.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import { numberText } from "../../src/schema/index.js";
import { makeTempDir } from "../contract/temp-dir.js";

const text = (chunks: readonly Uint8Array[]) => Buffer.concat(chunks).toString("utf8");

/** What CsvBytes writes for one record of numbers. */
function numbersRecord(values: readonly number[]): string {
  const out = new CsvBytes();
  values.forEach((value, j) => out.number(value, j === 0));
  out.endRecord();
  return text(out.finish());
}

const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  9,
  10,
  11,
  99,
  100,
  101,
  10 ** 15 - 1,
  10 ** 15,
  10 ** 15 + 1,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  2 ** 53,
  2 ** 53 + 2,
  1e21,
  1e-7,
  0.1,
  0.5,
  NaN,
  Infinity,
  -Infinity,
  Number.MIN_VALUE,
  Number.MAX_VALUE,
  20250101 * 10_000_000 + 9_999,
];

describe("CsvBytes", () => {
  it("writes every number as numberText does, safe integers by its own digits", () => {
    expect(numbersRecord(EDGE_NUMBERS)).toBe(`${EDGE_NUMBERS.map(numberText).join(",")}\n`);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.maxSafeInteger(), fc.integer(), fc.double()), { minLength: 1, maxLength: 20 }), (values) => {
        expect(numbersRecord(values)).toBe(`${values.map(numberText).join(",")}\n`);
      }),
      { numRuns: 500 },
    );
  });

  it("numberText writes String(n) for every number but -0", () => {
    expect(numberText(-0)).toBe("-0");
    fc.assert(
      fc.property(fc.double(), (value) => {
        if (!Object.is(value, -0)) expect(numberText(value)).toBe(String(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes text fields as csvField does: ASCII, quotes, commas, line breaks, any code point, null and ""', () => {
    const field = fc.oneof(
      fc.constant(null),
      fc.constant(""),
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.stringMatching(/^[a-z",\r\n ]{0,12}$/),
    );
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 8 }), (fields) => {
        const out = new CsvBytes();
        out.record(fields);
        expect(text(out.finish())).toBe(csvLine(fields));
      }),
      { numRuns: 1_000 },
    );
  });

  it("spans chunks: records across chunk boundaries, and fields larger than a chunk", () => {
    const big = "é".repeat(CHUNK_BYTES); // 2 bytes each: twice a chunk
    const records: Array<Array<string | null>> = [];
    for (let i = 0; i < 40_000; i++)
      records.push([`row ${i}`, i % 7 === 0 ? null : `"quoted, ${i}"`, i === 20_000 ? big : "x".repeat(i % 50)]);
    const out = new CsvBytes();
    for (const record of records) out.record(record);
    const chunks = out.finish();
    expect(chunks.length).toBeGreaterThan(2);
    expect(text(chunks)).toBe(records.map(csvLine).join(""));
    // A chunk outgrows the standard size only to hold one field larger than it.
    expect(chunks.filter((chunk) => chunk.byteLength > CHUNK_BYTES)).toHaveLength(1);
  });

  it("reuses a recycled chunk, and never hands one chunk to two encoders", () => {
    const first = new CsvBytes();
    first.record(["a", "b"]);
    const chunks = first.finish();
    recycleChunks(chunks);
    recycleChunks(chunks);
    const second = new CsvBytes();
    const third = new CsvBytes();
    second.record(["second"]);
    third.record(["third"]);
    const [secondChunk] = second.finish();
    const [thirdChunk] = third.finish();
    expect(secondChunk!.buffer).not.toBe(thirdChunk!.buffer);
    expect(secondChunk!.buffer === chunks[0]!.buffer || thirdChunk!.buffer === chunks[0]!.buffer).toBe(true);
    expect([text([secondChunk!]), text([thirdChunk!])]).toEqual(["second\n", "third\n"]);
  });
});

describe("CsvEncoder", () => {
  const rows: Row[] = Array.from({ length: 5_000 }, (_, i) => ({
    id: i,
    name: i % 5 === 0 ? null : `n${i}`,
    price: i / 8,
    ok: i % 2 === 0,
    tags: i % 3 === 0 ? ["a", i] : null,
  }));
  const expected = [
    csvLine(["id", "name", "price", "ok", "tags"]),
    ...rows.map((row) =>
      csvLine([
        String(row.id),
        row.name as string | null,
        String(row.price),
        String(row.ok),
        row.tags === null ? null : JSON.stringify(row.tags),
      ]),
    ),
  ].join("");

  it("encodes rows whole, or up to a budget and then the rest as it goes, to the same bytes", () => {
    const whole = new CsvEncoder(Object.keys(rows[0]!), "t", null);
    expect(whole.encode(rows)).toBe(rows.length);
    expect(text(whole.bytes.finish())).toBe(expected);

    const part = new CsvEncoder(Object.keys(rows[0]!), "t", null);
    const next = part.encode(rows, 0, 0, 2_000);
    expect(next).toBeGreaterThan(0);
    expect(next).toBeLessThan(rows.length);
    expect(text([...part.rest(rows, next)])).toBe(expected);
  });

  it("numbers a refused row from the offset of its batch", () => {
    const encoder = new CsvEncoder(["id"], "shop.orders", null);
    expect(() => encoder.encode([{ id: 1 }, { id: 2, extra: true }], 0, 700)).toThrow(
      'asset "shop.orders": row 701 has the column "extra", which is not in the CSV header (id) taken from the first row',
    );
  });
});

describe("CSVDestination encodes a partition before its first I/O wait", () => {
  const daily = new TimePartitionConfig({ column: "date" });
  const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
  const jan1 = new TimePartitionWindow("2026-01-01", "2026-01-01");
  let base: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ path: base, remove } = await makeTempDir("interloper-csv-bytes-")));
  afterEach(() => remove());

  it("writes the rows as they were when write() was called, so it can let go of them at once", async () => {
    const csv = new CSVDestination({ basePath: base });
    const rows: Row[] = Array.from({ length: 1_000 }, (_, i) => ({ date: "2026-01-01", id: i }));
    const pending = csv.write(new IOContext({ asset: orders, window: jan1, schema: null, metadata: { runId: "r1" } }), rows);
    // Changed after the call returned, before any of its I/O completed: the file must not see it.
    for (const row of rows) row.id = -1;
    await pending;
    const written = await readFile(join(base, "shop", "orders", "date=2026-01-01", "data.csv"), "utf8");
    expect(written).toBe(`date,id\n${Array.from({ length: 1_000 }, (_, i) => `2026-01-01,${i}\n`).join("")}`);
  });
});
