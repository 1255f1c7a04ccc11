import type { FileHandle } from "node:fs/promises";
import type { Row } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { CsvEncoder } from "./csv-encoder.js";
import { csvParseStream, parseCsvRows, refuseCutHeader } from "./csv-text.js";
import type { FileFormat } from "./file-format.js";

// The CSV format: one writer (csv-encoder.ts, over csv-bytes.ts) and one reader (csv-text.ts, with
// the fast path of csv-reader.ts) for CSVDestination's files and the object stores' CSV objects
// alike. CSVDestination takes its header from the first row and refuses a row with a column the
// header lacks, and rows whose first has no columns (no CSV reader gives back a record of no
// fields); the object stores' CSVFormat takes it from the schema and leaves other columns
// out: each makes its own CsvEncoder, and both stream through `encodeCsv`.

/**
 * CSV with a header of the schema's fields, each value in its text form (`toText`), written by
 * CSVDestination's own encoder. CSV holds only text: null is written as an empty field and the
 * empty string as an empty quoted one (`""`), so each reads back as itself. The text is UTF-8: a
 * string holding a lone UTF-16 surrogate is refused (SchemaError). A row's columns outside the
 * schema are not written.
 */
export class CSVFormat implements FileFormat {
  readonly extension = "csv";
  readonly contentType = "text/csv";

  serialize(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[]): Uint8Array {
    return CsvEncoder.encodeAll(rows, headerOf(schema), "CSV", schema, "ignore");
  }

  encode(batches: AsyncIterable<readonly Readonly<Row>[]>, schema: readonly FieldSpec[]): AsyncIterable<Uint8Array> {
    return encodeCsv(batches, () => new CsvEncoder(headerOf(schema), "CSV", schema, "ignore")).chunks;
  }

  deserialize(bytes: Uint8Array, schema: readonly FieldSpec[] | null): Row[] {
    return parseCsvRows(bytes, schema);
  }
}

const headerOf = (schema: readonly FieldSpec[]): string[] => schema.map((spec) => spec.name);

/** A CSV file being encoded from a stream of batches: its chunks, and how many rows they held. */
export interface CsvStream {
  /** The file's bytes, a chunk as soon as it is full; consumed once. */
  readonly chunks: AsyncIterable<Uint8Array>;
  /** The rows encoded so far: all of them once `chunks` is consumed. */
  rows(): number;
}

/**
 * Encodes batches as they come, memory flat however many rows arrive. `encoderFor` makes the
 * file's encoder from its first batch with rows (the header may come from it), or from no rows
 * at all when every batch is empty.
 */
export function encodeCsv(
  batches: AsyncIterable<readonly Readonly<Row>[]>,
  encoderFor: (first: readonly Readonly<Row>[]) => CsvEncoder,
): CsvStream {
  let rows = 0;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    let encoder: CsvEncoder | null = null;
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      encoder ??= encoderFor(batch);
      yield* encoder.chunks(batch, 0, rows);
      rows += batch.length;
    }
    yield* (encoder ?? encoderFor([])).bytes.finish();
  }
  return { chunks: chunks(), rows: () => rows };
}

/** Counts a CSV file's records without keeping them (quoted newlines are part of one record). */
export async function countCsvRecords(file: FileHandle): Promise<number> {
  let records = 0;
  // The caller holds the file open until the count is recorded: the stream must not close it,
  // and is stopped before the caller closes it, however the count ends.
  const source = file.createReadStream({ start: 0, autoClose: false });
  // The file's first bytes and its last, seen as it streams: a header alone must end its line.
  let head: Buffer | null = null;
  let last: number | undefined;
  source.on("data", (data: string | Buffer) => {
    const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data);
    head ??= Buffer.from(chunk.subarray(0, 3));
    if (chunk.length > 0) last = chunk[chunk.length - 1];
  });
  try {
    for await (const _record of source.pipe(csvParseStream().parse({ bom: true }))) records++;
  } finally {
    source.destroy();
  }
  if (records === 1 && head !== null && last !== undefined) refuseCutHeader(Buffer.concat([head, Buffer.from([last])]));
  return Math.max(0, records - 1);
}
