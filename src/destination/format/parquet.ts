import type { SchemaElement } from "hyparquet-writer";
import { SchemaError } from "../../errors.js";
import { type Row, setOwn } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { type FileFormat, gatherBatches } from "./file-format.js";
import { importOptional, PARQUET_INSTALL } from "../optional-import.js";
import { unstorable } from "../unstorable.js";
import { exactNamesMetadata, restoreExactNames } from "./parquet-names.js";
import { type ElementInfo, fieldOfElement, parquetColumn } from "./parquet-schema.js";
import { restoreTypedRows } from "./typed-rows.js";
import { count } from "../../text/english.js";

type Writer = typeof import("hyparquet-writer");
type Reader = typeof import("hyparquet");
type FileMetaData = import("hyparquet").FileMetaData;

// hyparquet's own decoder drops a leading U+FEFF (a byte order mark, to TextDecoder) from every
// string: this one keeps it, so a string that starts with one reads back as it was written.
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });
const stringFromBytes = (bytes: Uint8Array | undefined): string | undefined => bytes && utf8.decode(bytes);

/**
 * Apache Parquet through hyparquet / hyparquet-writer, optional peer dependencies imported on
 * first use. Columns follow the schema's fields: integer INT64, number DOUBLE, boolean BOOLEAN,
 * string UTF8, date INT32 DATE, datetime TIMESTAMP (UTC, millis), json JSON text.
 */
export class ParquetFormat implements FileFormat {
  readonly extension = "parquet";
  readonly contentType = "application/vnd.apache.parquet";

  async loadPackages(): Promise<void> {
    await importOptional<Reader>("hyparquet", PARQUET_INSTALL, "the Parquet format");
    await importOptional<Writer>("hyparquet-writer", PARQUET_INSTALL, "the Parquet format");
  }

  async serialize(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[]): Promise<Uint8Array> {
    const { parquetWriteBuffer } = await importOptional<Writer>("hyparquet-writer", PARQUET_INSTALL, "the Parquet format");
    const columns = schema.map(parquetColumn);
    const columnData = columns.map(({ element, toCell, plain }) => {
      const data = rows.map((row, index) => {
        try {
          return toCell(Object.hasOwn(row, element.name) ? row[element.name] : null, index);
        } catch (error) {
          if (error instanceof SchemaError) throw error;
          throw unstorable("Parquet", element.name, index, (error as Error).message, error);
        }
      });
      return plain ? { name: element.name, data, encoding: "PLAIN" as const } : { name: element.name, data };
    });
    const root: SchemaElement = { name: "root", num_children: columns.length };
    try {
      const kvMetadata = exactNamesMetadata(schema.map((spec) => spec.name));
      return new Uint8Array(
        parquetWriteBuffer({ columnData, schema: [root, ...columns.map((c) => c.element)], ...(kvMetadata && { kvMetadata }) }),
      );
    } catch (error) {
      throw new SchemaError(`Parquet: cannot write ${count(rows.length, "row")}: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * A stream of batches, written once they are all in: a Parquet file is column chunks and a
   * footer describing them, which hyparquet-writer builds from whole columns.
   */
  async *encode(batches: AsyncIterable<readonly Readonly<Row>[]>, schema: readonly FieldSpec[]): AsyncGenerator<Uint8Array> {
    yield await this.serialize(await gatherBatches(batches), schema);
  }

  async deserialize(bytes: Uint8Array, schema: readonly FieldSpec[] | null): Promise<Row[]> {
    const hyparquet = await importOptional<Reader>("hyparquet", PARQUET_INSTALL, "the Parquet format");
    // hyparquet reads from an ArrayBuffer; a Buffer may be a view into a larger shared pool.
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const metadata = hyparquet.parquetMetadata(file);
    restoreExactNames(metadata);
    const elements = metadata.schema.slice(1).filter((element) => element.num_children === undefined);
    const rows = await readRows(hyparquet, file, metadata);
    const fields = schema ?? elements.map(fieldOfElement).filter((spec): spec is FieldSpec => spec !== null);
    parseJsonText(rows, fields, elements);
    return restoreTypedRows(rows, fields, "Parquet");
  }
}

/**
 * The file's rows as objects. hyparquet builds each row object by assigning its column names,
 * which for a "__proto__" column sets the row's prototype instead of making a field: a file
 * with such a column is read as arrays and its rows built here (slower, so only then).
 */
async function readRows(hyparquet: Reader, file: ArrayBuffer, metadata: FileMetaData): Promise<Row[]> {
  const columns = hyparquet.parquetSchema(metadata).children.map((child) => child.element.name);
  if (!columns.includes("__proto__"))
    return (await hyparquet.parquetReadObjects({ file, metadata, parsers: { stringFromBytes } })) as Row[];
  const values = await new Promise<unknown[][]>((resolve, reject) => {
    hyparquet.parquetRead({ file, metadata, columns, parsers: { stringFromBytes }, rowFormat: "array", onComplete: resolve }).catch(reject);
  });
  return values.map((cells) => {
    const row: Row = {};
    for (let c = 0; c < columns.length; c++) setOwn(row, columns[c]!, cells[c]);
    return row;
  });
}

/** JSON columns stored as text (only the JSON logical type, or a plain string) are parsed here. */
function parseJsonText(rows: Row[], fields: readonly FieldSpec[], elements: readonly ElementInfo[]): void {
  const parsedByReader = new Set(elements.filter((e) => e.converted_type === "JSON").map((e) => e.name));
  const names = fields.filter((spec) => spec.type === "json" && !parsedByReader.has(spec.name)).map((spec) => spec.name);
  if (names.length === 0) return;
  for (const row of rows) {
    for (const name of names) {
      const value = row[name];
      if (typeof value !== "string") continue;
      try {
        row[name] = JSON.parse(value) as unknown;
      } catch {
        // Text that is not JSON is kept as the string value it is.
      }
    }
  }
}
