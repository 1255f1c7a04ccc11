import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import type { Row } from "../../representation/index.js";
import { type FieldSpec, reconcileRows, toText } from "../../schema/index.js";
import type { FileFormat } from "./file-format.js";

const encoder = new TextEncoder();

/**
 * CSV with a header of the schema's fields, each value in its text form (`toText`). CSV holds
 * only text: null is written "" and, in a nullable field, "" reads back as null.
 */
export class CSVFormat implements FileFormat {
  readonly extension = "csv";
  readonly contentType = "text/csv";

  serialize(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[]): Uint8Array {
    if (schema.length === 0) return new Uint8Array();
    const names = schema.map((spec) => spec.name);
    const records: string[][] = [names];
    for (const row of rows) {
      records.push(schema.map((spec) => (Object.hasOwn(row, spec.name) ? toText(row[spec.name], spec) : "")));
    }
    return encoder.encode(stringify(records));
  }

  deserialize(bytes: Uint8Array, schema: readonly FieldSpec[] | null): Row[] {
    const rows = parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { columns: true, bom: true }) as Row[];
    return schema ? reconcileRows(rows, schema) : rows;
  }
}
