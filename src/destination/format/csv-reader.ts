import type { Row } from "../../representation/index.js";
import { type FieldSpec, isDateObjectField } from "../../schema/index.js";
import { SchemaError } from "../../errors.js";
import type { Converter } from "../../schema/converters.js";
import { cannotReconcile, prepareFields } from "../../schema/reconcile.js";
import { compileShaper } from "../../schema/row-shaper.js";

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const MINUS = 0x2d;
const POINT = 0x2e;
const ZERO = 0x30;

/** How {@link Records} reads a column's unquoted fields: as text, or as a number where the text is a plain one. */
const TEXT = 0;
const NUMBER = 1;
const INTEGER = 2;
type FieldKind = typeof TEXT | typeof NUMBER | typeof INTEGER;

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
    /** How {@link Records} reads the column's unquoted fields: a number or integer field's as numbers where it can (see {@link plainNumber}). */
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

/** 10 ** k for k from 0 to 15, each exact (products of exact powers below 2 ** 53). */
const POWERS_OF_TEN: readonly number[] = Array.from({ length: 16 }, (_, k) => {
  let power = 1;
  for (let i = 0; i < k; i++) power *= 10;
  return power;
});

/**
 * The number a plain decimal text names, read from its characters without a substring: an
 * optional "-", then digits with at most one "." among them, at least one digit and at most 15 in
 * all (leading zeros included). NaN for any other text (a "+", an exponent, a space, more digits),
 * which is left to the field's converter. Equal to `Number(text)` for every text it reads, -0
 * included: the digits, as an integer below 10 ** 15, and 10 ** k for k <= 15 are exact doubles,
 * so their quotient is the correctly rounded value of the text, as `Number` gives it.
 */
function plainNumber(text: string, start: number, end: number): number {
  let pos = start;
  const negative = text.charCodeAt(pos) === MINUS;
  if (negative) pos++;
  // Beyond 15 digits and a point: not read here (a quick way out of long text).
  if (end - pos > 16) return Number.NaN;
  let digits = 0;
  let point = -1;
  for (let at = pos; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code >= ZERO && code <= ZERO + 9) digits = digits * 10 + (code - ZERO);
    else if (code === POINT && point < 0) point = at;
    else return Number.NaN;
  }
  const count = end - pos - (point < 0 ? 0 : 1);
  if (count === 0 || count > 15) return Number.NaN;
  const value = point < 0 ? digits : digits / POWERS_OF_TEN[end - point - 1]!;
  return negative ? -value : value;
}

/** {@link Records.scan}'s answer for a record that runs past the text decoded so far. */
const NEEDS_MORE = -2;

/**
 * The records of CSV text in the dialect above, one after another, decoded from UTF-8 a chunk
 * at a time. A chunk ends just after a line feed (or at the end of the bytes): a line feed is
 * never part of a multi-byte sequence, so the chunks' texts, one after another, are the whole
 * text (invalid sequences included: the decoder starts afresh after any ASCII byte), and a
 * record ends in the chunk where it starts unless a quoted field of it holds a line feed.
 */
class Records {
  /** How each column's unquoted fields are read (none given, as text: the header). */
  kinds: readonly FieldKind[] = [];
  private text: string;
  private pos: number;
  /** Where the bytes not yet decoded start. */
  private next = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly chunkBytes: number,
  ) {
    this.text = this.decode(chunkBytes);
    // A UTF-8 byte order mark is not part of the text, as csv-parse's `bom` reads it.
    this.pos = this.text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  get done(): boolean {
    if (this.pos < this.text.length) return false;
    if (this.next >= this.bytes.length) return true;
    this.text = this.decode(this.chunkBytes);
    this.pos = 0;
    return false;
  }

  /**
   * Reads the next record's fields into `into` (null for an empty unquoted field) and gives their
   * count, or -1 for text outside the dialect or a record wider than `limit`.
   */
  read(into: Array<string | number | null>, limit: number): number {
    for (;;) {
      const count = this.scan(into, limit);
      if (count !== NEEDS_MORE) return count;
      // A quoted field runs on past the chunk: the record is read again from its start, with
      // at least as much text again appended (so that a long field is read a few times, not
      // once a chunk).
      const rest = this.text.slice(this.pos);
      this.text = rest + this.decode(Math.max(this.chunkBytes, rest.length));
      this.pos = 0;
    }
  }

  /** The text of the next `size` bytes or more, to just after a line feed or the end. */
  private decode(size: number): string {
    const bytes = this.bytes;
    const from = this.next;
    const feed = from + size >= bytes.length ? -1 : bytes.indexOf(LF, from + size - 1);
    const to = feed === -1 ? bytes.length : feed + 1;
    this.next = to;
    return bytes.toString("utf8", from, to);
  }

  /**
   * An unquoted field's value: in a numeric column, the number of a plain text, else the text. The
   * field's converter restores the number to what it restores the text to (an integer's -0 to 0),
   * without the substring, the pattern test and `Number` (about 7% of W3's read). A fraction in an
   * integer column stays text, for its converter to refuse naming the text.
   */
  private unquoted(text: string, start: number, end: number, column: number): string | number {
    const kind = this.kinds[column];
    if (kind === NUMBER || kind === INTEGER) {
      const value = plainNumber(text, start, end);
      if (!Number.isNaN(value) && (kind === NUMBER || Number.isInteger(value))) return value;
    }
    return text.slice(start, end);
  }

  /** {@link read} within the text decoded so far: {@link NEEDS_MORE} for a record that runs past it. */
  private scan(into: Array<string | number | null>, limit: number): number {
    const text = this.text;
    const end = text.length;
    let pos = this.pos;
    let count = 0;
    for (;;) {
      if (count >= limit) return -1;
      if (text.charCodeAt(pos) === QUOTE) {
        // The closing quote is the first one not doubled.
        let close = text.indexOf('"', pos + 1);
        let doubled = false;
        while (close !== -1 && text.charCodeAt(close + 1) === QUOTE) {
          doubled = true;
          close = text.indexOf('"', close + 2);
        }
        // Text decoded so far ends with a line feed, never a quote: a quote not followed by
        // another within it is followed by one nowhere.
        if (close === -1) return this.next < this.bytes.length ? NEEDS_MORE : -1;
        const inner = text.slice(pos + 1, close);
        into[count++] = doubled ? inner.replaceAll('""', '"') : inner;
        pos = close + 1;
      } else {
        // Unquoted, a field ends within the text decoded so far: at the latest at its last
        // character, a line feed, unless that is the end of the bytes.
        const start = pos;
        for (; pos < end; pos++) {
          const code = text.charCodeAt(pos);
          if (code === COMMA || code === LF) break;
          if (code === QUOTE || code === CR) return -1;
        }
        into[count] = pos === start ? null : this.unquoted(text, start, pos, count);
        count++;
      }
      if (pos >= end) {
        this.pos = end;
        return count;
      }
      const next = text.charCodeAt(pos++);
      if (next === LF) {
        this.pos = pos;
        return count;
      }
      if (next !== COMMA) return -1;
    }
  }
}
