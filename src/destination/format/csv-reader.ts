import type { Row } from "../../representation/index.js";
import { type FieldSpec, isDateObjectField } from "../../schema/index.js";
import { SchemaError } from "../../errors.js";
import type { Converter } from "../../schema/converters.js";
import { cannotReconcile, prepareFields } from "../../schema/reconcile.js";
import { compileShaper } from "../../schema/row-shaper.js";
import { type FieldKind, INTEGER, NUMBER, Records, TEXT } from "./csv-records.js";

/**
 * The text is decoded a chunk of about this many bytes at a time (cut after a line feed). A
 * string of a whole file (hundreds of kilobytes) goes to V8's large-object space, and allocating
 * one costs about as much as reading its records: 365 files of 500 kB took a second to decode
 * whole, 30 ms in chunks of this size, which stay in the young generation and die there.
 */
const CHUNK_BYTES = 64 * 1024;

/** Options of {@link readWrittenCsv}. */
export interface ReadOptions {
  /** How many bytes are decoded at a time, at least (tests make it small). */
  readonly chunkBytes?: number;
  /** The array the rows are appended to, and given back (left as it was when the read gives null). */
  readonly into?: Row[];
}

/**
 * Reads CSV text in the dialect `CsvBytes` writes, as fast as a single pass allows, and exactly
 * as `parseCsvRows` reads it through csv-parse: the rows of a header line and its records, each
 * field restored to its declared type when there is a schema (in a nullable string field an
 * empty unquoted field is null, an empty quoted one ""), every value the field's text without.
 *
 * The dialect: `,` between fields, `"` quoting a field whole (its quotes doubled inside), "\n"
 * ending each record (the last may lack it), an optional UTF-8 byte order mark, every record as
 * wide as the header, header names distinct. Gives null for any text outside it (a carriage
 * return outside quotes, a stray quote, a ragged record, a UTF-16 byte order mark, a header
 * naming `__proto__` or one column twice), which the caller hands to csv-parse: whatever
 * csv-parse makes of such text, rows or an error, stays what a read gives.
 */
export function readWrittenCsv(bytes: Buffer, schema: readonly FieldSpec[] | null, options: ReadOptions = {}): Row[] | null {
  // csv-parse decodes text that starts with a UTF-16 byte order mark as UTF-16.
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return null;
  const records = new Records(bytes, options.chunkBytes ?? CHUNK_BYTES);
  const rows = options.into ?? [];
  if (records.done) return rows;
  const header: Array<string | null> = [];
  if (records.read(header, Infinity) < 0) return null;
  const names = header.map((name) => name ?? "");
  if (names.includes("__proto__") || new Set(names).size !== names.length) return null;
  const columns = names.map((name) => columnReading(name, schema));
  records.kinds = columns.map((column) => column.kind);
  const width = names.length;
  const values = new Array<string | number | null>(width);
  const build = schema ? typedRecords(names, schema, columns) : textRecords(names);
  const first = rows.length;
  while (!records.done) {
    if (records.read(values, width) !== width) {
      rows.length = first;
      return null;
    }
    for (let j = 0; j < width; j++) values[j] = columns[j]!.value(values[j]!);
    rows.push(build(values, rows.length - first));
  }
  return rows;
}

/** Builds a row from a record's values (after {@link ColumnReading}); `index` is its number in refusals. */
type RecordBuilder = (values: ReadonlyArray<string | number | null>, index: number) => Row;

/**
 * The rows csv-parse gives (the header's names as keys, in its order) restored as
 * `reconcileRows` restores them, built straight from each record's values: the schema's fields
 * in schema order, then the header's other columns as text.
 */
function typedRecords(names: readonly string[], schema: readonly FieldSpec[], columns: readonly ColumnReading[]): RecordBuilder {
  const positions = schema.map((spec) => {
    const at = names.indexOf(spec.name);
    return at < 0 ? null : at;
  });
  // A column whose text repeats the previous record's converts it once for both.
  const fields = prepareFields(schema, "typed").map((field, j) => {
    const at = positions[j];
    return typeof at === "number" && columns[at]!.repeats ? { ...field, convert: convertingRepeatsOnce(field.convert) } : field;
  });
  const shape = compileShaper(
    fields,
    (j, values, index) => {
      const at = positions[j];
      throw new SchemaError(cannotReconcile(schema[j]!, at === null ? undefined : (values as unknown as unknown[])[at!], index));
    },
    false,
    positions,
  );
  const declared = new Set(schema.map((spec) => spec.name));
  const others = names.flatMap((name, at) => (declared.has(name) ? [] : [at]));
  if (others.length === 0) return shape as unknown as RecordBuilder;
  return (values, index) => {
    const row = shape(values as unknown as Row, index);
    for (const at of others) row[names[at]!] = values[at];
    return row;
  };
}

/** Rows of text, as csv-parse gives them without a schema. */
function textRecords(names: readonly string[]): RecordBuilder {
  return (values) => {
    const row: Row = {};
    for (let j = 0; j < names.length; j++) row[names[j]!] = values[j];
    return row;
  };
}

/** A converter that gives its last result again for the same text. Only for converters whose results are primitives (text). */
function convertingRepeatsOnce(convert: Converter): Converter {
  let input: unknown = undefined;
  let output: unknown = undefined;
  return (value) => {
    if (value === input && value !== undefined) return output;
    output = convert(value);
    input = value;
    return output;
  };
}

/** How one column's fields become the values a row holds before it is restored. */
class ColumnReading {
  private last: string | null = null;

  /**
   * `emptyIsNull`: an empty unquoted field reads as null (a nullable string field, or one whose
   * type reads "" as null anyway); elsewhere it is "", as csv-parse gives it. `share`: the text is
   * kept as it is read (not converted to a number, a boolean, a Date, JSON).
   */
  constructor(
    private readonly emptyIsNull: boolean,
    private readonly share: boolean,
    /** How {@link Records} reads the column's unquoted fields: a number or integer field's as numbers where it can (see plainNumber, csv-records.ts). */
    readonly kind: FieldKind = TEXT,
  ) {}

  /** Whether a repeated text is given as the same string (so that a converter may see it is a repeat). */
  get repeats(): boolean {
    return this.share;
  }

  value(field: string | number | null): string | number | null {
    if (field === null) return this.emptyIsNull ? null : "";
    // A number (read as one by Records) is in a numeric column, which shares nothing.
    if (!this.share || typeof field === "number") return field;
    // A text that repeats the previous record's (a partition's own column does in every record)
    // is kept once: millions of rows then hold one string instead of one each.
    if (field === this.last) return this.last;
    return (this.last = field);
  }
}

function columnReading(name: string, schema: readonly FieldSpec[] | null): ColumnReading {
  const spec = schema?.find((field) => field.name === name);
  if (!spec) return new ColumnReading(false, true);
  const text = spec.type === "string" || (spec.type === "date" && !isDateObjectField(spec));
  const kind = spec.type === "number" ? NUMBER : spec.type === "integer" ? INTEGER : TEXT;
  return new ColumnReading(spec.type !== "string" || spec.nullable, text, kind);
}
