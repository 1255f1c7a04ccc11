import type { Row } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import { CsvEncoder } from "./csv-encoder.js";
import { parseCsvRows } from "./csv-text.js";
import type { FileFormat } from "./file-format.js";

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
    return CsvEncoder.encodeAll(
      rows,
      schema.map((spec) => spec.name),
      "CSV",
      schema,
      "ignore",
    );
  }

  deserialize(bytes: Uint8Array, schema: readonly FieldSpec[] | null): Row[] {
    return parseCsvRows(bytes, schema);
  }
}
