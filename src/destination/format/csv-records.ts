// The scanner of csv-reader.ts: the records of CSV text in the dialect CsvBytes writes, each
// field as text, null (empty, unquoted) or, in a numeric column, the number of a plain text.
// Apart from the reader so that each file stays short; the reader is its one user.

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const MINUS = 0x2d;
const POINT = 0x2e;
const ZERO = 0x30;

/** How {@link Records} reads a column's unquoted fields: as text, or as a number where the text is a plain one. */
export const TEXT = 0;
export const NUMBER = 1;
export const INTEGER = 2;
export type FieldKind = typeof TEXT | typeof NUMBER | typeof INTEGER;

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
 * The records of CSV text in the dialect of readWrittenCsv, one after another, decoded from
 * UTF-8 a chunk at a time. A chunk ends just after a line feed (or at the end of the bytes): a
 * line feed is never part of a multi-byte sequence, so the chunks' texts, one after another, are
 * the whole text (invalid sequences included: the decoder starts afresh after any ASCII byte),
 * and a record ends in the chunk where it starts unless a quoted field of it holds a line feed.
 */
export class Records {
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
