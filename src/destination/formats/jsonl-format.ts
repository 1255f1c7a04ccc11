import { SchemaError } from "../../errors.js";
import type { Row } from "../../representation/index.js";
import { type FieldSpec, formatIsoDate } from "../../schema/index.js";
import { stringifyJson } from "../../schema/json-text.js";
import type { FileFormat } from "./file-format.js";
import { parseJsonLine } from "./json-parse.js";
import { restoreTypedRows } from "./typed-rows.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Newline-delimited JSON, one object per row with every schema field. Integers are JSON numbers
 * with their exact digits (a bigint too); a number JSON cannot hold (NaN, ±Infinity, -0) is
 * written as its text; dates are "YYYY-MM-DD", datetimes ISO strings, json values nested.
 */
export class JSONLFormat implements FileFormat {
  readonly extension = "jsonl";
  readonly contentType = "application/x-ndjson";

  serialize(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[]): Uint8Array {
    const writers = schema.map((spec) => [JSON.stringify(spec.name), valueWriter(spec)] as const);
    const lines: string[] = [];
    for (const row of rows) {
      const parts = writers.map(([key, write], j) => `${key}:${write(cell(row, schema[j]!.name))}`);
      lines.push(`{${parts.join(",")}}\n`);
    }
    return encoder.encode(lines.join(""));
  }

  deserialize(bytes: Uint8Array, schema: readonly FieldSpec[] | null): Row[] {
    const rows: Row[] = [];
    const lines = decoder.decode(bytes).split("\n");
    lines.forEach((line, index) => {
      if (line.trim() === "") return;
      const value = parseJsonLine(line);
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new SchemaError(`JSONL line ${index + 1} is not a JSON object`);
      }
      rows.push(value as Row);
    });
    return schema ? restoreTypedRows(rows, schema, "JSONL") : rows;
  }
}

function cell(row: Readonly<Row>, name: string): unknown {
  return Object.hasOwn(row, name) ? row[name] : null;
}

type ValueWriter = (value: unknown) => string;

/** The JSON text of one field's values, chosen once per field. */
function valueWriter(spec: FieldSpec): ValueWriter {
  const nullable = (write: ValueWriter): ValueWriter => (value) => (value === null || value === undefined ? "null" : write(value));
  switch (spec.type) {
    case "number":
      return nullable((v) => (typeof v !== "number" ? JSON.stringify(String(v)) : Object.is(v, -0) ? "-0" : Number.isFinite(v) ? String(v) : `"${v}"`));
    case "date":
      return nullable((v) => JSON.stringify(v instanceof Date ? formatIsoDate(v) : v));
    case "datetime":
      return nullable((v) => JSON.stringify(v instanceof Date ? v.toISOString() : v));
    case "integer":
      return nullable((v) => (typeof v === "bigint" ? v.toString() : JSON.stringify(v)));
    default:
      // Strings, booleans and json values: their JSON text, bigints inside with exact digits.
      return nullable((v) => stringifyJson(v));
  }
}
