import type { Row } from "../../representation/index.js";
import { type FieldSpec, toText } from "../../schema/index.js";
import { csvLine, parseCsvRows } from "../csv/csv-text.js";
import { jsonText, utf8Text } from "../unstorable.js";
import type { FileFormat } from "./file-format.js";

const encoder = new TextEncoder();

/**
 * CSV with a header of the schema's fields, each value in its text form (`toText`). CSV holds
 * only text: null is written as an empty field and the empty string as an empty quoted one
 * (`""`), so each reads back as itself. The text is UTF-8: a string holding a lone UTF-16
 * surrogate is refused (SchemaError).
 */
export class CSVFormat implements FileFormat {
  readonly extension = "csv";
  readonly contentType = "text/csv";

  serialize(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[]): Uint8Array {
    if (schema.length === 0) return new Uint8Array();
    const lines = new Array<string>(rows.length + 1);
    lines[0] = csvLine(schema.map((spec) => spec.name));
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      lines[i + 1] = csvLine(schema.map((spec) => (Object.hasOwn(row, spec.name) ? cellText(row[spec.name], spec, i) : null)));
    }
    return encoder.encode(lines.join(""));
  }

  deserialize(bytes: Uint8Array, schema: readonly FieldSpec[] | null): Row[] {
    return parseCsvRows(bytes, schema);
  }
}

/** A value's text, or null (an empty unquoted field) for null and undefined. */
function cellText(value: unknown, spec: FieldSpec, row: number): string | null {
  if (value === null || value === undefined) return null;
  return spec.type === "json" ? jsonText(value, "CSV", spec.name, row) : utf8Text(toText(value, spec), "CSV", spec.name, row);
}
