import { SchemaError } from "../../errors.js";
import type { Row } from "../../representation/index.js";
import { type FieldSpec, formatIsoDate } from "../../schema/index.js";
import { stringifyJson } from "../../schema/json-text.js";
import { jsonText } from "../unstorable.js";
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
    return encoder.encode(linesOf(rows, schema, writersOf(schema), 0));
  }

  /** One chunk of lines per batch: a line stands alone, so each batch is written as it comes. */
  async *encode(batches: AsyncIterable<readonly Readonly<Row>[]>, schema: readonly FieldSpec[]): AsyncGenerator<Uint8Array> {
    const writers = writersOf(schema);
    let offset = 0;
    for await (const batch of batches) {
      if (batch.length > 0) yield encoder.encode(linesOf(batch, schema, writers, offset));
      offset += batch.length;
    }
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
    if (!schema) return rows;
    // The parser makes an unsafe integer at a row's top level a bigint, for integer fields; a
    // json field's numbers are numbers at every depth.
    const json = schema.filter((spec) => spec.type === "json").map((spec) => spec.name);
    if (json.length > 0) for (const row of rows) for (const name of json) if (typeof row[name] === "bigint") row[name] = Number(row[name]);
    return restoreTypedRows(rows, schema, "JSONL");
  }
}

type Writers = ReadonlyArray<readonly [string, ValueWriter]>;

/** Each field's JSON key and the writer of its values, chosen once per file. */
function writersOf(schema: readonly FieldSpec[]): Writers {
  return schema.map((spec) => [JSON.stringify(spec.name), valueWriter(spec)] as const);
}

/** The lines of `rows`, the first numbered `offset` in refusals (the rows of earlier batches). */
function linesOf(rows: readonly Readonly<Row>[], schema: readonly FieldSpec[], writers: Writers, offset: number): string {
  const lines: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const parts = writers.map(([key, write], j) => `${key}:${write(cell(row, schema[j]!.name), offset + i)}`);
    lines.push(`{${parts.join(",")}}\n`);
  }
  return lines.join("");
}

function cell(row: Readonly<Row>, name: string): unknown {
  return Object.hasOwn(row, name) ? row[name] : null;
}

/** The JSON text of one value; `row` (from 0) names it in a refusal. */
type ValueWriter = (value: unknown, row: number) => string;

/** The JSON text of one field's values, chosen once per field. */
function valueWriter(spec: FieldSpec): ValueWriter {
  const nullable =
    (write: ValueWriter): ValueWriter =>
    (value, row) =>
      value === null || value === undefined ? "null" : write(value, row);
  switch (spec.type) {
    case "number":
      return nullable((v) =>
        typeof v !== "number" ? JSON.stringify(String(v)) : Object.is(v, -0) ? "-0" : Number.isFinite(v) ? String(v) : `"${v}"`,
      );
    case "date":
      return nullable((v) => JSON.stringify(v instanceof Date ? formatIsoDate(v) : v));
    case "datetime":
      return nullable((v) => JSON.stringify(v instanceof Date ? v.toISOString() : v));
    case "integer":
      return nullable((v) => (typeof v === "bigint" ? v.toString() : JSON.stringify(v)));
    case "json":
      // Nested as JSON, refused where its text would change it (-0, NaN, ±Infinity inside).
      return nullable((v, row) => jsonText(v, "JSONL", spec.name, row));
    default:
      // Strings, booleans and json values: their JSON text, bigints inside with exact digits.
      return nullable((v) => stringifyJson(v));
  }
}
