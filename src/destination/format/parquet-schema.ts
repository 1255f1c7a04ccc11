import type { SchemaElement } from "hyparquet-writer";
import type { FieldSpec } from "../../schema/index.js";
import { isJsonContainer } from "../../schema/field-spec.js";
import { parseIsoDate, parseIsoDateTime } from "../../schema/iso.js";
import { toText } from "../../schema/text.js";
import { storableJson, utf8Text } from "../unstorable.js";

const DAY_MS = 86_400_000;

/** A field's Parquet column: its schema element and how a canonical value (of a row) becomes a cell. */
export interface ParquetColumn {
  readonly element: SchemaElement;
  readonly toCell: (value: unknown, row: number) => unknown;
  /** Dictionary encoding would merge -0 into 0 (map keys cannot tell them apart). */
  readonly plain?: boolean;
}

const orNull =
  (convert: (value: unknown, row: number) => unknown) =>
  (value: unknown, row: number): unknown =>
    value === null || value === undefined ? null : convert(value, row);

/** Milliseconds since the epoch of a Date or an ISO string (NaN when it is neither). */
function timeOf(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== "string") return Number.NaN;
  const date = parseIsoDate(value);
  return Number.isNaN(date) ? (parseIsoDateTime(value)?.time ?? Number.NaN) : date;
}

function finiteTime(value: unknown): number {
  const time = timeOf(value);
  if (Number.isNaN(time)) throw new TypeError(`expected a date or an ISO-8601 string, got ${String(value)}`);
  return time;
}

/** The Parquet column of one field (nullable fields are OPTIONAL, others REQUIRED). */
export function parquetColumn(spec: FieldSpec): ParquetColumn {
  const base = { name: spec.name, repetition_type: spec.nullable ? "OPTIONAL" : "REQUIRED" } as const;
  switch (spec.type) {
    case "integer":
      return { element: { ...base, type: "INT64" }, toCell: orNull((v) => BigInt(v as number | bigint)) };
    case "number":
      return { element: { ...base, type: "DOUBLE" }, toCell: orNull(Number), plain: true };
    case "boolean":
      return { element: { ...base, type: "BOOLEAN" }, toCell: orNull(Boolean) };
    case "date":
      return {
        element: { ...base, type: "INT32", converted_type: "DATE", logical_type: { type: "DATE" } },
        toCell: orNull((v) => Math.floor(finiteTime(v) / DAY_MS)),
      };
    case "datetime":
      // A datetime held as text keeps its own offset, which TIMESTAMP (one instant in UTC)
      // cannot store: such a field is written as its text so that it reads back unchanged.
      if (spec.asDate === false) return stringColumn(base, spec);
      return {
        element: {
          ...base,
          type: "INT64",
          converted_type: "TIMESTAMP_MILLIS",
          logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" },
        },
        toCell: orNull((v) => BigInt(finiteTime(v))),
      };
    case "json":
      // The writer serializes the values itself (the converted type is what DuckDB and Spark
      // read as JSON). A value its JSON text would change (-0, NaN, ±Infinity inside) is refused.
      return {
        element: { ...base, type: "BYTE_ARRAY", converted_type: "JSON", logical_type: { type: "JSON" } },
        toCell: orNull((v, row) => forJsonWriter(storableJson(v, "Parquet", spec.name, row))),
      };
    case "string":
      return stringColumn(base, spec);
  }
}

/**
 * A json value as hyparquet-writer serializes it exactly. The writer rebuilds every ordinary
 * object by assignment, which drops a "__proto__" key, but hands an object without a prototype
 * to JSON.stringify as it is: plain objects are copied without one. A bigint becomes a number,
 * as the writer makes it (JSON.stringify has no form for it).
 */
function forJsonWriter(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(forJsonWriter);
  if (!isJsonContainer(value)) return value;
  const out = Object.create(null) as Record<string, unknown>;
  // Without a prototype there is no "__proto__" setter: every key is an own field.
  for (const key of Object.keys(value)) out[key] = forJsonWriter((value as Record<string, unknown>)[key]);
  return out;
}

/** UTF8 text: a string holding a lone UTF-16 surrogate is refused (UTF-8 has no form for it). */
function stringColumn(base: Pick<SchemaElement, "name" | "repetition_type">, spec: FieldSpec): ParquetColumn {
  return {
    element: { ...base, type: "BYTE_ARRAY", converted_type: "UTF8", logical_type: { type: "STRING" } },
    toCell: orNull((v, row) => (typeof v === "string" ? utf8Text(v, "Parquet", spec.name, row) : toText(v, spec))),
  };
}

/** What the reader tells of a column (the reader's and the writer's SchemaElement types differ). */
export interface ElementInfo {
  readonly name: string;
  readonly type?: string | undefined;
  readonly converted_type?: string | undefined;
  readonly logical_type?: { readonly type: string } | undefined;
  readonly repetition_type?: string | undefined;
  readonly num_children?: number | undefined;
}

/**
 * The field a Parquet column holds, for a file read without a schema (written by another
 * tool, say); null for a column type interloper has no field type for.
 */
export function fieldOfElement(element: ElementInfo): FieldSpec | null {
  const { name, type, converted_type: converted, logical_type: logical } = element;
  const nullable = element.repetition_type !== "REQUIRED";
  const spec = (t: FieldSpec["type"], asDate?: boolean): FieldSpec =>
    asDate === undefined ? { name, type: t, nullable } : { name, type: t, nullable, asDate };
  if (converted === "JSON" || logical?.type === "JSON") return spec("json");
  if (converted === "DATE" || logical?.type === "DATE") return spec("date");
  if (converted === "TIMESTAMP_MILLIS" || converted === "TIMESTAMP_MICROS" || logical?.type === "TIMESTAMP" || type === "INT96") {
    return spec("datetime", true);
  }
  switch (type) {
    case "BOOLEAN":
      return spec("boolean");
    case "INT32":
    case "INT64":
      return converted === "DECIMAL" ? spec("number") : spec("integer");
    case "FLOAT":
    case "DOUBLE":
      return spec("number");
    case "BYTE_ARRAY":
      return spec("string");
    default:
      return null;
  }
}
