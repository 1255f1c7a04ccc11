import { numberText } from "../schema/index.js";

// Text formats (CSV files, PostgreSQL's COPY) are encoded straight into UTF-8 bytes. Building
// the text first (a string per field, a rope per record, a flat copy per chunk, then the UTF-8
// copy at the write) allocated twice as much, and in a long backfill that garbage is what keeps
// V8's young generation collecting while the rows of partitions in flight are alive, pushing
// them into the old one.

const MINUS = 0x2d;
const ZERO = 0x30;

/** The size of a chunk: large enough that writing one is a single cheap system call. */
export const CHUNK_BYTES = 1 << 20;

// Chunks whose bytes have been written are reused: a backfill then touches the same few
// megabytes for every partition, where fresh buffers would each cost a malloc that the C
// allocator keeps after the garbage collector frees it. At most this many wait here.
const SPARE_LIMIT = 8;
const spare: Buffer[] = [];

function newChunk(bytes: number): Buffer {
  if (bytes <= CHUNK_BYTES && spare.length > 0) return spare.pop()!;
  return Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, bytes));
}

/** Gives back chunks of {@link ByteChunks.finish} once nothing reads them any more (their write completed or failed). */
export function recycleChunks(chunks: readonly Uint8Array[]): void {
  for (const chunk of chunks) {
    if (spare.length >= SPARE_LIMIT) return;
    // Given back twice, a chunk would be handed to two encoders at once.
    if (chunk.buffer.byteLength !== CHUNK_BYTES || spare.some((known) => known.buffer === chunk.buffer)) continue;
    spare.push(Buffer.from(chunk.buffer));
  }
}

/** Bytes appended in chunks of about {@link CHUNK_BYTES}, taken as they fill. */
export class ByteChunks {
  protected buffer: Buffer = newChunk(0);
  protected at = 0;
  private full: Uint8Array[] = [];
  private fullBytes = 0;

  /** The bytes appended so far and not yet taken. */
  get size(): number {
    return this.fullBytes + this.at;
  }

  /** Whether a chunk is full and can be taken. */
  get hasFullChunks(): boolean {
    return this.full.length > 0;
  }

  /** Appends one byte. */
  appendByte(byte: number): void {
    this.reserve(1);
    this.buffer[this.at++] = byte;
  }

  /** Appends text as UTF-8, as it is (well-formed UTF-16: callers refuse lone surrogates first). */
  appendText(text: string): void {
    const length = text.length;
    this.reserve(length * 3);
    const buffer = this.buffer;
    let at = this.at;
    for (let k = 0; k < length; k++) {
      const code = text.charCodeAt(k);
      if (code >= 0x80) {
        this.at += buffer.write(text, this.at, "utf8");
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
  appendNumber(value: number): void {
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) {
      this.appendText(numberText(value));
      return;
    }
    // A sign and at most 16 digits.
    this.reserve(17);
    const buffer = this.buffer;
    let at = this.at;
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

  /** The chunks that are full, which the encoder no longer touches. */
  takeFullChunks(): Uint8Array[] {
    const chunks = this.full;
    this.full = [];
    this.fullBytes = 0;
    return chunks;
  }

  /** Every chunk, the last one partly filled; appending starts afresh. */
  finish(): Uint8Array[] {
    if (this.at > 0) this.full.push(this.buffer.subarray(0, this.at));
    else recycleChunks([this.buffer]);
    this.buffer = Buffer.alloc(0);
    this.at = 0;
    return this.takeFullChunks();
  }

  /** Makes room for `bytes` more, closing the current chunk when they would not fit. */
  protected reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    if (this.at > 0) {
      this.full.push(this.buffer.subarray(0, this.at));
      this.fullBytes += this.at;
    }
    this.buffer = newChunk(bytes);
    this.at = 0;
  }
}
