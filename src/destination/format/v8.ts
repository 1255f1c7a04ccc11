import type { FileHandle } from "node:fs/promises";
import { deserialize, serialize } from "node:v8";
import { SchemaError } from "../../errors.js";
import type { Row } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { rowCountOf } from "../row-count.js";
import { type FileFormat, gatherBatches } from "./file-format.js";
import { checkStructured } from "./structured-check.js";

// Node's structured serialization (`v8.serialize`), FileDestination's format: any value the
// asset returns, not only rows, one value per file. Dates, Maps, BigInts and nested objects
// survive; what would not come back as it was (a class instance, a function) is refused before
// anything is written (structured-check.ts).

/** The bytes of one value; SchemaError naming where, for a value that would not read back as it is. */
export function encodeValue(value: unknown, owner: string, assetKey: string): Buffer {
  checkStructured(value, owner, assetKey);
  return serialize(value);
}

/** The value of one file's bytes. */
export function decodeValue(bytes: Uint8Array): unknown {
  return deserialize(bytes);
}

/** How many rows the value of an open file counts as (see `rowCountOf`); the caller closes it. */
export async function countValueRows(file: FileHandle): Promise<number> {
  return rowCountOf(deserialize(await file.readFile()));
}

/**
 * The v8 format as a `FileFormat` of rows: the rows as one array value. A file holding anything
 * but an array of objects is refused on read. Typed by nothing: the values come back as they
 * were written, Dates as Dates, bigints as bigints.
 */
export class V8Format implements FileFormat {
  readonly extension = "v8";
  readonly contentType = "application/octet-stream";

  serialize(rows: readonly Readonly<Row>[], _schema: readonly FieldSpec[]): Uint8Array {
    return encodeValue(rows, "v8", "rows");
  }

  /** A whole value is one serialization: the batches are gathered, then written. */
  async *encode(batches: AsyncIterable<readonly Readonly<Row>[]>, schema: readonly FieldSpec[]): AsyncGenerator<Uint8Array> {
    yield this.serialize(await gatherBatches(batches), schema);
  }

  deserialize(bytes: Uint8Array, _schema: readonly FieldSpec[] | null): Row[] {
    const value = decodeValue(bytes);
    if (!Array.isArray(value) || value.some((row) => typeof row !== "object" || row === null || Array.isArray(row)))
      throw new SchemaError("v8: the file holds no array of rows");
    return value as Row[];
  }
}
