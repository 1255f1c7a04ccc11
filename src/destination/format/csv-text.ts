import { createRequire } from "node:module";
import type { Row } from "../../representation/index.js";
import { type FieldSpec, reconcileRows } from "../../schema/index.js";
import { readWrittenCsv } from "./csv-reader.js";

// csv-parse is loaded on first use, and as CommonJS (one file; its ES build is eleven modules):
// a command that reads no CSV, such as `list`, does not load it at all.
const load = createRequire(import.meta.url);
let syncModule: typeof import("csv-parse/sync") | undefined;
let streamModule: typeof import("csv-parse") | undefined;

/** csv-parse's synchronous API. */
const csvParseSync = () => (syncModule ??= load("csv-parse/sync") as typeof import("csv-parse/sync"));

/** csv-parse's streaming API. */
export const csvParseStream = () => (streamModule ??= load("csv-parse") as typeof import("csv-parse"));

// CSV holds text only, so null and the empty string need two spellings: null is an empty
// unquoted field, "" an empty quoted one (`""`), as PostgreSQL's COPY ... CSV writes and reads
// them. Files written before "" was quoted hold both as an empty unquoted field, and keep reading
// as they did: null in a nullable string field.

// A field that starts with U+FEFF is quoted too: heading a file (the first column's name), its
// bytes unquoted are a byte order mark, which readers (csv-parse's `bom`, spreadsheets) strip.
const NEEDS_QUOTES = /^\uFEFF|[",\r\n]/;

/**
 * One field of a record, as RFC 4180 (and csv-stringify) write it: text as it is, or quoted
 * with its quotes doubled when it holds a quote, a comma or a line break, or starts with U+FEFF;
 * besides, null is an empty field and "" an empty quoted one (`""`). Written here rather than by csv-stringify,
 * whose `quoted_empty` quotes null too, and whose per-field work costs three times this loop.
 */
export function csvField(text: string | null): string {
  if (text === null) return "";
  if (text === "") return '""';
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A record: its fields, each as {@link csvField} writes it, joined by commas and ended by "\n". */
export function csvLine(fields: ReadonlyArray<string | null>): string {
  let line = "";
  for (let j = 0; j < fields.length; j++) line += (j === 0 ? "" : ",") + csvField(fields[j]!);
  return `${line}\n`;
}

/**
 * The rows of CSV text (a header line, then records), each field restored to its declared type
 * when there is a schema (`reconcileRows`); without one, every value is the field's text. In a
 * nullable string field an empty unquoted field is null and an empty quoted one "". Given `into`,
 * the rows are appended to it, and it is given back.
 */
export function parseCsvRows(bytes: Uint8Array, schema: readonly FieldSpec[] | null, into?: Row[]): Row[] {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const before = into?.length ?? 0;
  const rows = readWrittenCsv(buffer, schema, into ? { into } : {}) ?? appendTo(into, parseCsvRowsByCsvParse(buffer, schema));
  if (rows.length === before) refuseCutHeader(buffer);
  return rows;
}

/** `rows` appended to `into` one by one (a spread of a large file's rows overflows the stack), or `rows` alone. */
function appendTo(into: Row[] | undefined, rows: Row[]): Row[] {
  if (!into) return rows;
  for (const row of rows) into.push(row);
  return into;
}

/**
 * Throws when text that held no record is a header no line break ends: every writer ends its
 * header with one, so such a file was cut inside its header, and reading it as no rows would
 * take a damaged partition for an empty one. (Text read as UTF-16 is left to its parser.)
 */
export function refuseCutHeader(bytes: Uint8Array): void {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (bytes.length <= start || (bytes[0] === 0xff && bytes[1] === 0xfe)) return;
  const last = bytes[bytes.length - 1];
  if (last !== 0x0a && last !== 0x0d) throw new Error("the file ends inside its header line (it was cut short)");
}

/** {@link parseCsvRows} through csv-parse: the reference {@link readWrittenCsv} is tested against, and what reads any text outside its dialect. */
export function parseCsvRowsByCsvParse(buffer: Buffer, schema: readonly FieldSpec[] | null): Row[] {
  let header: string[] = [];
  const rows = csvParseSync().parse(buffer, {
    bom: true,
    columns: (names: string[]) => (header = names),
  }) as Row[];
  if (!schema) return rows;
  const nullable = nullableStringColumns(header, schema);
  // A quoted empty field holds `""`, which a file without that pair of bytes cannot: the common
  // case (and every file written before "" was quoted) reads as it always did.
  if (nullable.size === 0 || buffer.indexOf('""') === -1) return reconcileRows(rows, schema);
  // One flag per record and nullable string column: whether its field was an empty quoted one.
  const columns = [...nullable];
  const slots = new Int32Array(header.length).fill(-1);
  columns.forEach(([, column], slot) => (slots[column] = slot));
  const quoted = new Uint8Array((rows.length + 1) * columns.length);
  if (markQuotedEmpty(buffer, slots, columns.length, quoted) !== rows.length + 1) return parseCsvRowsByCast(buffer, schema);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const flags = (i + 1) * columns.length;
    for (let slot = 0; slot < columns.length; slot++) {
      const name = columns[slot]![0];
      if (row[name] === "" && quoted[flags + slot] === 0) row[name] = null;
    }
  }
  // Every empty field left in a nullable string column is a quoted one: an empty string.
  return reconcileRows(rows, schema, { typed: true });
}

/** The nullable string fields of the schema the header holds, by name, with their position. */
function nullableStringColumns(header: readonly string[], schema: readonly FieldSpec[]): Map<string, number> {
  const names = new Set(schema.filter((spec) => spec.type === "string" && spec.nullable).map((spec) => spec.name));
  const out = new Map<string, number>();
  // A name the header repeats holds its last column's value, as csv-parse builds the row.
  header.forEach((name, column) => {
    if (names.has(name)) out.set(name, column);
  });
  return out;
}

/**
 * What {@link parseCsvRows} gives, through csv-parse's per-field `cast`, which tells whether a
 * field was quoted (at several times the cost of a plain parse): the reference the scan below is
 * tested against, and what reads text the scan does not read as csv-parse did.
 */
export function parseCsvRowsByCast(bytes: Uint8Array, schema: readonly FieldSpec[]): Row[] {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let nullable: ReadonlyMap<string, number> = new Map();
  const rows = csvParseSync().parse(buffer, {
    bom: true,
    columns: (names: string[]) => ((nullable = nullableStringColumns(names, schema)), names),
    cast: (value, context) => (value === "" && !context.quoting && nullable.has(String(context.column)) ? null : value),
  }) as Row[];
  return reconcileRows(rows, schema, { typed: true });
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Marks the empty quoted fields of CSV text that csv-parse accepted, reading it as csv-parse does
 * with its defaults: `,` between fields, `"` quotes (doubled inside a quoted field), a record
 * delimiter fixed by the first one met outside quotes ("\r\n", "\n" or "\r"), a leading byte
 * order mark skipped. Only the columns `slots` gives a slot count (their flag is
 * `quoted[record * count + slot]`, the header being record 0). One pass over the bytes, far
 * cheaper than the parse itself. Gives the number of records, or -1 for text read otherwise than
 * `quoted` was sized for (more records, or a record wider than the header).
 */
function markQuotedEmpty(bytes: Buffer, slots: Int32Array, count: number, quoted: Uint8Array): number {
  const end = bytes.length;
  const width = slots.length;
  const records = quoted.length / count;
  let pos = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  // The record delimiter: 0 until one is met, then "\n" (1), "\r\n" (2) or "\r" (3).
  let delimiter = 0;
  let record = 0;
  let column = 0;
  let recordStart = pos;
  while (pos < end) {
    // At the start of a field.
    if (bytes[pos] === QUOTE) {
      if (bytes[pos + 1] === QUOTE && slots[column]! >= 0) {
        const next = bytes[pos + 2];
        if (next === undefined || next === COMMA || next === LF || next === CR) {
          if (record >= records) return -1;
          quoted[record * count + slots[column]!] = 1;
        }
      }
      // Past the closing quote: the first quote not doubled.
      pos++;
      for (;;) {
        const at = bytes.indexOf(QUOTE, pos);
        if (at === -1) return -1;
        if (bytes[at + 1] === QUOTE) pos = at + 2;
        else {
          pos = at + 1;
          break;
        }
      }
    }
    // To the end of the field: a comma, the record delimiter, or the end of the text.
    while (pos < end) {
      const byte = bytes[pos]!;
      // Every byte above the comma (digits, letters, most text) is field content.
      if (byte > COMMA) {
        pos++;
        continue;
      }
      if (byte === COMMA) {
        pos++;
        column++;
        if (column >= width) return -1;
        break;
      }
      if (byte === LF || byte === CR) {
        if (delimiter === 0) delimiter = byte === LF ? 1 : bytes[pos + 1] === LF ? 2 : 3;
        const length =
          delimiter === 1 ? (byte === LF ? 1 : 0) : delimiter === 2 ? (byte === CR && bytes[pos + 1] === LF ? 2 : 0) : byte === CR ? 1 : 0;
        if (length > 0) {
          pos += length;
          record++;
          column = 0;
          recordStart = pos;
          break;
        }
      }
      pos++;
    }
  }
  return pos > recordStart ? record + 1 : record;
}
