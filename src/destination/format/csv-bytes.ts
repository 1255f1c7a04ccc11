import { ByteChunks } from "../byte-chunks.js";
import { csvField } from "./csv-text.js";

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * CSV records as bytes. Fields are written as {@link csvField} writes them: null is an empty
 * field, "" an empty quoted one, and text holding a quote, a comma or a line break is quoted
 * with its quotes doubled. Text must be well-formed UTF-16 (callers refuse lone surrogates
 * first, naming the field).
 */
export class CsvBytes extends ByteChunks {
  /** Appends a text field, after a comma unless it is the first of its record. */
  field(text: string | null, first: boolean): void {
    if (!first) this.appendByte(COMMA);
    if (text === null) return;
    const length = text.length;
    if (length === 0) {
      this.appendText('""');
      return;
    }
    // The most a field can take: 3 bytes per UTF-16 unit (a doubled quote takes 2) and its quotes.
    this.reserve(length * 3 + 2);
    const buffer = this.buffer;
    const start = this.at;
    let at = start;
    // The common case, ASCII text needing no quotes, byte by byte; anything else through csvField
    // and Buffer's UTF-8 encoder.
    for (let k = 0; k < length; k++) {
      const code = text.charCodeAt(k);
      if (code >= 0x80 || code === QUOTE || code === COMMA || code === LF || code === CR) {
        this.at = start + buffer.write(csvField(text), start, "utf8");
        return;
      }
      buffer[at++] = code;
    }
    this.at = at;
  }

  /** Appends a number field as `numberText` writes it, after a comma unless it is the first of its record. */
  number(value: number, first: boolean): void {
    if (!first) this.appendByte(COMMA);
    this.appendNumber(value);
  }

  /** Ends the current record. */
  endRecord(): void {
    this.appendByte(LF);
  }

  /** Appends a whole record of text fields. */
  record(fields: ReadonlyArray<string | null>): void {
    for (let j = 0; j < fields.length; j++) this.field(fields[j]!, j === 0);
    this.endRecord();
  }
}
