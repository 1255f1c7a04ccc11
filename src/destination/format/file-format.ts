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
}
