// Every file format streams: a file encoded from batches as they come holds the same bytes as
// the file serialized from all the rows at once, and reads back as the rows written.
import { describe, expect, it } from "vitest";
import { CSVFormat, JSONLFormat, ParquetFormat, type FileFormat } from "../../src/destination/formats/index.js";
import { encodeBatches } from "../../src/destination/format/file-format.js";
import { encodeValue, V8Format } from "../../src/destination/format/v8.js";
import { SchemaError } from "../../src/errors.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";

const schema: FieldSpec[] = [
  { name: "id", type: "integer", nullable: false },
  { name: "note", type: "string", nullable: true },
  { name: "tags", type: "json", nullable: true },
];
const rows: Row[] = Array.from({ length: 2_500 }, (_, i) => ({
  id: i,
  note: i % 3 === 0 ? null : i % 3 === 1 ? "" : `note, "${i}"\nend`,
  tags: i % 2 === 0 ? { n: i } : null,
}));

async function* batchesOf(all: readonly Row[], size: number): AsyncGenerator<Row[]> {
  yield [];
  for (let at = 0; at < all.length; at += size) yield all.slice(at, at + size);
}

async function streamed(format: FileFormat, all: readonly Row[], size: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of encodeBatches(format, batchesOf(all, size), schema)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const formats: Array<[string, FileFormat]> = [
  ["CSV", new CSVFormat()],
  ["JSONL", new JSONLFormat()],
  ["Parquet", new ParquetFormat()],
  ["v8", new V8Format()],
];

describe.each(formats)("the %s format", (_name, format) => {
  it("streams from batches the bytes it serializes from all the rows", async () => {
    expect(typeof format.encode).toBe("function");
    const whole = Buffer.from(await format.serialize(rows, schema));
    expect(await streamed(format, rows, 700)).toEqual(whole);
  });

  it("reads back what it streamed, an empty stream included", async () => {
    expect(await format.deserialize(await streamed(format, rows, 999), schema)).toEqual(rows);
    expect(await format.deserialize(await streamed(format, [], 10), schema)).toEqual([]);
  });
});

describe("encodeBatches", () => {
  it("gathers the batches of a format without encode, and serializes them once", async () => {
    const calls: number[] = [];
    const json: FileFormat = {
      extension: "json",
      contentType: "application/json",
      serialize: (all) => (calls.push(all.length), Buffer.from(JSON.stringify(all))),
      deserialize: (bytes) => JSON.parse(Buffer.from(bytes).toString("utf8")) as Row[],
    };
    expect(JSON.parse((await streamed(json, rows, 1_000)).toString("utf8"))).toEqual(rows);
    expect(calls).toEqual([rows.length]);
  });

  it("numbers a row JSONL refuses across batches, as a whole write would", async () => {
    const bad = rows.map((row, i) => (i === 1_234 ? { ...row, tags: { n: Number.NaN } } : row));
    const refusal = await streamed(new JSONLFormat(), bad, 500).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SchemaError);
    expect((refusal as Error).message).toContain("1234");
  });
});

describe("the v8 format", () => {
  it("keeps what structured serialization keeps, and refuses a file that holds no rows", async () => {
    const v8 = new V8Format();
    const typed = [{ when: new Date(0), big: 10n ** 20n, map: new Map([["k", 1]]) }];
    expect(v8.deserialize(await v8.serialize(typed, []), null)).toEqual(typed);
    expect(() => v8.deserialize(encodeValue({ not: "rows" }, "FileDestination", "a"), null)).toThrow(SchemaError);
    expect(() => v8.serialize([{ at: new URL("https://example.com") }], [])).toThrow(SchemaError);
  });
});
