import { numberText } from "../../schema/index.js";
import { csvField } from "./csv-text.js";

// CSV records are encoded straight into UTF-8 bytes. Building the text first (a string per
// field, a rope per record, a flat copy per chunk, then the UTF-8 copy at the write) allocated
// twice as much, and in a long backfill that garbage is what keeps V8's young generation
// collecting while the rows of partitions in flight are alive, pushing them into the old one.

const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;
const LF = 0x0a;
const CR = 0x0d;

/** The size of a chunk: large enough that writing one is a single cheap system call. */
export const CSV_CHUNK_BYTES = 1 << 20;

// Chunks whose bytes have been written are reused: a backfill then touches the same few
// megabytes for every partition, where fresh buffers would each cost a malloc that the C
// allocator keeps after the garbage collector frees it. At most this many wait here.
const SPARE_LIMIT = 8;
const spare: Buffer[] = [];

function newChunk(bytes: number): Buffer {
  if (bytes <= CSV_CHUNK_BYTES && spare.length > 0) return spare.pop()!;
  return Buffer.allocUnsafeSlow(Math.max(CSV_CHUNK_BYTES, bytes));
}

/** Gives back chunks of {@link CsvBytes.finish} once nothing reads them any more (their write completed or failed). */
export function recycleChunks(chunks: readonly Uint8Array[]): void {
  for (const chunk of chunks) {
    if (spare.length >= SPARE_LIMIT) return;
    // Given back twice, a chunk would be handed to two encoders at once.
    if (chunk.buffer.byteLength !== CSV_CHUNK_BYTES || spare.some((known) => known.buffer === chunk.buffer)) continue;
    spare.push(Buffer.from(chunk.buffer));
  }
}

/**
 * Encodes CSV records into byte chunks. Fields are written as {@link csvField} writes them: null
 * is an empty field, "" an empty quoted one, and text holding a quote, a comma or a line break is
 * quoted with its quotes doubled. Text must be well-formed UTF-16 (callers refuse lone surrogates
 * first, naming the field).
 */
export class CsvBytes {
  private buffer: Buffer = newChunk(0);
  private at = 0;
  private full: Uint8Array[] = [];
  private fullBytes = 0;

  /** The bytes encoded so far. */
  get size(): number {
    return this.fullBytes + this.at;
  }

  /** Appends a text field, after a comma unless it is the first of its record. */
  field(text: string | null, first: boolean): void {
    const length = text === null ? 0 : text.length;
    // The most a field can take: 3 bytes per UTF-16 unit (a doubled quote takes 2), its two
    // quotes and the comma before it.
    this.reserve(length * 3 + 3);
    const buffer = this.buffer;
    let at = this.at;
    if (!first) buffer[at++] = COMMA;
    if (text === null) {
      this.at = at;
      return;
    }
    if (length === 0) {
      buffer[at++] = QUOTE;
      buffer[at++] = QUOTE;
      this.at = at;
      return;
    }
    const start = at;
    // The common case, ASCII text needing no quotes, byte by byte; anything else through csvField
    // and Buffer's UTF-8 encoder.
    for (let k = 0; k < length; k++) {
      const code = text!.charCodeAt(k);
      if (code >= 0x80 || code === QUOTE || code === COMMA || code === LF || code === CR) {
        this.at = start + buffer.write(csvField(text), start, "utf8");
        return;
      }
      buffer[at++] = code;
    }
    this.at = at;
  }

  /**
   * Appends a number as `numberText` writes it. A safe integer's digits are written here: no
   * string at all, where String(n) would make one in V8's old generation (its number-to-string
   * cache lives there) for every value.
   */
  number(value: number, first: boolean): void {
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) {
      this.field(numberText(value), first);
      return;
    }
    // A comma, a sign and at most 16 digits.
    this.reserve(18);
    const buffer = this.buffer;
    let at = this.at;
    if (!first) buffer[at++] = COMMA;
    if (value < 0) {
      buffer[at++] = MINUS;
      value = -value;
    }
    let digits = 1;
    for (let power = 10; power <= value; power *= 10) digits++;
    const end = at + digits;
    // Below 2^53 these divisions are exact enough: a tenth's rounding never reaches the next integer.
    for (let i = end - 1; i >= at; i--) {
      const rest = Math.floor(value / 10);
      buffer[i] = ZERO + (value - rest * 10);
      value = rest;
    }
    this.at = end;
  }

  /** Ends the current record. */
  endRecord(): void {
    this.reserve(1);
    this.buffer[this.at++] = LF;
  }

  /** Appends a whole record of text fields. */
  record(fields: ReadonlyArray<string | null>): void {
    for (let j = 0; j < fields.length; j++) this.field(fields[j]!, j === 0);
    this.endRecord();
  }

  /** The chunks that are full, which the encoder no longer touches. */
  takeFullChunks(): Uint8Array[] {
    const chunks = this.full;
    this.full = [];
    this.fullBytes = 0;
    return chunks;
  }

  /** Every chunk, the last one partly filled; the encoder starts afresh. */
  finish(): Uint8Array[] {
    if (this.at > 0) this.full.push(this.buffer.subarray(0, this.at));
    else recycleChunks([this.buffer]);
    this.buffer = Buffer.alloc(0);
    this.at = 0;
    return this.takeFullChunks();
  }

  /** Makes room for `bytes` more, closing the current chunk when they would not fit. */
  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    if (this.at > 0) {
      this.full.push(this.buffer.subarray(0, this.at));
      this.fullBytes += this.at;
    }
    this.buffer = newChunk(bytes);
    this.at = 0;
  }
}
