// The memory of `unique`: a 64-bit hash per distinct value, in an open-addressing table of one
// typed array (each slot's high and low 32 bits side by side, so a probe touches one cache
// line), never the values themselves. A Set of strings costs some 50 to 100 bytes per value;
// this costs 8 bytes per slot, at most 1/0.7 slots per value, so 5,000,000 distinct values take
// a table of 8,388,608 slots: 64 MB, plus the old table while it grows (96 MB at the peak).
//
// The odds, as for an ideal 64-bit hash (cyrb64 mixes well but is not proven one): two
// different values share a hash with probability 2^-64, so among n distinct values some pair
// collides with probability about n^2 / 2^65 (5 million values: about 7 in 10 million; 100
// million: about 3 in 10,000). A collision can only make `unique` report a duplicate that is
// not one (naming a value that occurs once); it never hides a real duplicate.

const FILL = 0.7;
const FIRST_CAPACITY = 1 << 10;

const SEED1 = 0xdeadbeef;
const SEED2 = 0x41c6ce57;
// Which form a number was fed in: a 32-bit integer (ids, counts: no float bits to read) or its
// 64 bits. A given number always takes the same form, so equal numbers hash alike.
const INT32 = 1;
const FLOAT64 = 2;

// A number's 64 bits, read through one shared buffer.
const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);

/**
 * Feeds values into two 32-bit multiplicative lanes and crosses them at the end: bryc's cyrb64
 * (cyrb53 with all 64 bits kept), fed 32-bit words. Not cryptographic: the data is the user's
 * own, not an adversary's.
 */
export class Hasher {
  private h1 = SEED1;
  private h2 = SEED2;
  /** The two halves of the last `finish`. */
  high = 0;
  low = 0;

  reset(): void {
    this.h1 = SEED1;
    this.h2 = SEED2;
  }

  /** Mixes one 32-bit word into both lanes. */
  word(w: number): void {
    this.h1 = Math.imul(this.h1 ^ w, 2654435761);
    this.h2 = Math.imul(this.h2 ^ w, 1597334677);
  }

  /** Mixes a number: a 32-bit integer as itself, any other by its 64 bits (-0 is 0, every NaN one NaN). */
  number(value: number): void {
    if ((value | 0) === value) {
      this.word(INT32);
      this.word(value);
      return;
    }
    float[0] = Number.isNaN(value) ? Number.NaN : value;
    this.word(FLOAT64);
    this.word(words[0]!);
    this.word(words[1]!);
  }

  /** Mixes a string, two UTF-16 units a word: its length first, so that a sequence of strings reads one way only. */
  string(text: string): void {
    const length = text.length;
    this.word(length);
    let i = 0;
    for (; i + 1 < length; i += 2) this.word(text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
    if (i < length) this.word(text.charCodeAt(i));
  }

  /** Ends the hash of what was fed since the last reset: sets `high` and `low`. */
  finish(): void {
    let h1 = this.h1;
    let h2 = this.h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    this.high = h2 >>> 0;
    this.low = h1 >>> 0;
  }
}

/** A set of 64-bit hashes; the pair (0, 0) marks an empty slot, so that hash is stored as (0, 1). */
export class HashSet64 {
  /** Slot i's high bits at 2i, its low bits at 2i + 1. */
  private slots = new Uint32Array(FIRST_CAPACITY * 2);
  private count = 0;
  private limit = FIRST_CAPACITY * FILL;

  get size(): number {
    return this.count;
  }

  /** The bytes its table takes. */
  get bytes(): number {
    return this.slots.byteLength;
  }

  /** Makes room for `n` more hashes at once, so that a table of known size is not grown step by step. */
  reserve(n: number): void {
    if (this.count + n > this.limit) this.grow(this.count + n);
  }

  /** Adds a hash; false when it was there already. */
  add(high: number, low: number): boolean {
    if (high === 0 && low === 0) low = 1;
    if (this.count + 1 > this.limit) this.grow(this.count + 1);
    const added = place(this.slots, high, low);
    if (added) this.count++;
    return added;
  }

  /** Doubles the table until `n` hashes fit, then places the old ones anew. */
  private grow(n: number): void {
    const old = this.slots;
    let capacity = old.length;
    while (n > capacity * FILL) capacity *= 2;
    this.slots = new Uint32Array(capacity * 2);
    this.limit = capacity * FILL;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] !== 0 || old[i + 1] !== 0) place(this.slots, old[i]!, old[i + 1]!);
    }
  }
}

/** Linear probing from the slot the hash picks; false when the hash is already there. */
function place(slots: Uint32Array, high: number, low: number): boolean {
  const mask = (slots.length >>> 1) - 1;
  for (let slot = (low ^ high) & mask; ; slot = (slot + 1) & mask) {
    const at = slot << 1;
    const h = slots[at]!;
    const l = slots[at + 1]!;
    if (h === 0 && l === 0) {
      slots[at] = high;
      slots[at + 1] = low;
      return true;
    }
    if (h === high && l === low) return false;
  }
}
