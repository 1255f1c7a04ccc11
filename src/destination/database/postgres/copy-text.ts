import { type FieldSpec, formatIsoDate, numberText } from "../../../schema/index.js";
import { type Row, RowsTable, type TableData } from "../../../representation/index.js";
import { ByteChunks } from "../../byte-chunks.js";
import { jsonText, utf8Text, withinYears } from "../../unstorable.js";
import { storageKind, type StorageKind } from "../sql-dialect.js";

/*
 * PostgreSQL's COPY text format, the whole of it: how each storage kind's value is written as a
 * field (copyFieldWriter) and how rows become the bytes COPY FROM STDIN reads (copyChunks).
 */

// COPY's text format: backslash escapes for the characters that delimit fields and rows.
const SPECIAL = /[\\\n\r\t]/;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const escapeText = (text: string): string => (SPECIAL.test(text) ? text.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!) : text);

/** Writes one value of a row (numbered from 0, for a refusal) as a COPY field. */
type Field = (value: unknown, row: number) => string;
const asText = (value: unknown): string => escapeText(typeof value === "string" ? value : String(value));

/**
 * Dates and timestamps go as ISO text, which PostgreSQL reads for the years 1..9999 only (the
 * year 0 and expanded years such as +010000 are refused with errors that name no field): a
 * value of another year is refused here, naming its field and row.
 */
const YEARS = [1, 9999] as const;
const WHY = "PostgreSQL reads dates and timestamps as ISO text, which has no other years";
function datedWriter(kind: "date" | "datetime", field: string, write: (value: unknown) => string): Field {
  return (value, row) => write(withinYears(value, kind, YEARS, "PostgreSQL", field, row, WHY));
}

/**
 * The writer of COPY text-format fields for a storage kind, chosen once per column so the row
 * loop calls a closure and never switches. Null is written by the caller ("\\N"). A string
 * field's value holding a lone UTF-16 surrogate is refused (the database's text is UTF-8);
 * -0 is written "-0", which double precision keeps; a date or instant outside the years
 * 1..9999 is refused.
 */
export function copyFieldWriter(kind: StorageKind, field: string): Field {
  switch (kind) {
    case "integer":
    case "number":
      // numberText rather than String: the same text, without a string in the old generation per value.
      return (value) => (typeof value === "number" ? numberText(value) : String(value));
    case "string":
      return (value, row) => escapeText(typeof value === "string" ? utf8Text(value, "PostgreSQL", field, row) : String(value));
    case "boolean":
      return (value) => (value ? "t" : "f");
    case "date":
      return datedWriter("date", field, (value) => (value instanceof Date ? formatIsoDate(value) : asText(value)));
    case "instant":
      return datedWriter("datetime", field, (value) => (value instanceof Date ? value.toISOString() : asText(value)));
    case "zoned":
      // Kept as its text (a text column), whatever its year.
      return (value) => (value instanceof Date ? value.toISOString() : asText(value));
    case "json":
      // jsonb parses the text: no lone surrogate and no NUL in a string, besides JSON's limits.
      return (value, row) => escapeText(jsonText(value, "PostgreSQL", field, row, { wellFormed: true, noNul: true }));
    default:
      return asText;
  }
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const BACKSLASH = 0x5c;
const NULL_FIELD = "\\N";
// A column's distinct date and instant strings keep their checked text up to this many; past
// it, new values are checked each time (a column of unique instants gains nothing from a memo).
const MEMO_LIMIT = 4096;

/** COPY text bytes, with the common string field (ASCII) escaped as it is copied. */
class CopyBytes extends ByteChunks {
  /**
   * Appends ASCII text as a COPY field, its backslashes, tabs and line breaks escaped; false,
   * having appended nothing, for text with any other character (the caller writes it through
   * its column's writer, which checks it is well-formed and lets Buffer encode it). One pass
   * over the characters instead of a regular expression's test and then the copy.
   */
  appendAscii(text: string): boolean {
    const length = text.length;
    // At most 2 bytes per character (an escape).
    this.reserve(length * 2);
    const buffer = this.buffer;
    let at = this.at;
    for (let k = 0; k < length; k++) {
      const code = text.charCodeAt(k);
      if (code >= 0x80) return false;
      if (code === BACKSLASH || code === LF || code === CR || code === TAB) {
        buffer[at++] = BACKSLASH;
        buffer[at++] = code === BACKSLASH ? BACKSLASH : code === LF ? 0x6e : code === CR ? 0x72 : 0x74;
      } else buffer[at++] = code;
    }
    this.at = at;
    return true;
  }
}

/** A row's own value of a column, null when absent (as RowsTable.values reads it). */
function ownValue(row: Row, name: string, inherited: boolean): unknown {
  return inherited && !Object.hasOwn(row, name) ? null : row[name];
}

/**
 * The rows as COPY text, encoded straight into chunks of bytes (see ByteChunks): numbers by
 * their digits, ASCII strings escaped as they are copied, every other value by its column's
 * writer, null as \N. An array of rows is read row by row: a column array per field (four
 * arrays of a million values for a million rows) cost more than the encoding of the numbers.
 */
export function* copyChunks(fields: readonly FieldSpec[], data: TableData): Generator<Uint8Array> {
  const kinds = fields.map((field) => storageKind(field));
  const writers = fields.map((field, j) => copyFieldWriter(kinds[j]!, field.name));
  const numeric = kinds.map((kind) => kind === "integer" || kind === "number");
  const strings = kinds.map((kind) => kind === "string");
  // Date and instant strings repeat (a partition column holds a few), and their check parses
  // the year: each distinct one is checked once.
  const memos = kinds.map((kind) => (kind === "date" || kind === "instant" ? new Map<string, string>() : null));
  const names = fields.map((field) => field.name);
  const inherited = names.map((name) => name in Object.prototype);
  const rows = data instanceof RowsTable ? data.rows : null;
  const columns = rows ? [] : names.map((name) => data.values(name));
  const width = fields.length;
  const out = new CopyBytes();
  for (let i = 0; i < data.length; i++) {
    const row = rows?.[i];
    for (let j = 0; j < width; j++) {
      if (j > 0) out.appendByte(TAB);
      const value = row ? ownValue(row, names[j]!, inherited[j]!) : columns[j]![i];
      if (value === null || value === undefined) out.appendText(NULL_FIELD);
      else if (numeric[j] && typeof value === "number") out.appendNumber(value);
      else if (strings[j] && typeof value === "string" && out.appendAscii(value)) continue;
      else if (memos[j] && typeof value === "string") {
        const memo = memos[j]!;
        let text = memo.get(value);
        if (text === undefined) {
          text = writers[j]!(value, i);
          if (memo.size < MEMO_LIMIT) memo.set(value, text);
        }
        out.appendText(text);
      } else out.appendText(writers[j]!(value, i));
    }
    out.appendByte(LF);
    if (out.hasFullChunks) yield* out.takeFullChunks();
  }
  yield* out.finish();
}
