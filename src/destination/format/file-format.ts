import type { Row } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import type { MaybePromise } from "../../maybe-promise.js";

/** The names of the built-in formats, as `ObjectStoreDestination.format` takes them. */
export type FormatName = "parquet" | "jsonl" | "csv";

/**
 * How a table becomes the bytes of one object and back. `schema` lists the file's columns in
 * order; every row is written with every one of them (a missing value is null). `deserialize`
 * returns rows in the schema's canonical types when it is given one, or the format's own
 * reading of the bytes when it is null (a file written by another tool).
 */
export interface FileFormat {
  /** The file extension, without the dot: `data.{extension}`. */
  readonly extension: string;
  /** The MIME type objects are stored with. */
  readonly contentType: string;
  /** The bytes of one file holding `rows`, with the columns of `schema`. */
  serialize(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[]): MaybePromise<Uint8Array>;
  /** The rows of one file's bytes, typed by `schema` when there is one. */
  deserialize(bytes: Uint8Array, schema: readonly FieldSpec[] | null): MaybePromise<Row[]>;
  /**
   * Optional: the bytes of one file holding every row of `batches`, given as they are encoded,
   * so that a file larger than memory can be written. A format without it is streamed by
   * gathering the batches and serializing them once they are all in (see `encodeBatches`).
   */
  encode?(batches: AsyncIterable<readonly Readonly<Row>[]>, schema: readonly FieldSpec[]): AsyncIterable<Uint8Array>;
  /**
   * Optional: imports every optional package the format reads and writes with, connecting to
   * nothing (ConfigError naming the install command when one is missing). A destination's
   * `loadDrivers` calls it, so that `interloper check` and the start of a run report it.
   */
  loadPackages?(): Promise<void>;
}

/** The rows of every batch in one array: for a format whose file is only written whole. */
export async function gatherBatches(batches: AsyncIterable<readonly Readonly<Row>[]>): Promise<Readonly<Row>[]> {
  const rows: Readonly<Row>[] = [];
  for await (const batch of batches) for (const row of batch) rows.push(row);
  return rows;
}

/** The bytes of one file holding every row of `batches`, streamed when the format can (`encode`). */
export async function* encodeBatches(
  format: FileFormat,
  batches: AsyncIterable<readonly Readonly<Row>[]>,
  schema: readonly FieldSpec[],
): AsyncGenerator<Uint8Array> {
  if (format.encode) yield* format.encode(batches, schema);
  else yield await format.serialize(await gatherBatches(batches), schema);
}
