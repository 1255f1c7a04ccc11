// The memory of `unique`: a 64-bit hash per distinct value, in an open-addressing table of two
// typed arrays (high and low 32 bits), never the values themselves. A Set of strings costs some
// 50 to 100 bytes per value; this costs 8 bytes per slot, at most 1/0.7 slots per value, so
// 5,000,000 distinct values take a table of 8,388,608 slots: 64 MB, plus the old table while it
// grows (96 MB at the peak).
//
// The odds: two different values share a hash with probability 2^-64, so among n distinct
// values some pair collides with probability about n^2 / 2^65 (5 million values: about 7 in
// 10 million; 100 million: about 3 in 10,000). A collision can only make `unique` report a
// duplicate that is not one (naming a value that occurs once); it never hides a real duplicate.

const FILL = 0.7;
const FIRST_CAPACITY = 1 << 10;

// A number's 64 bits, read through one shared buffer.
const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);

/**
 * Feeds values into two 32-bit lanes of different mixing (one multiplicative, as cyrb53; one
 * MurmurHash3's), finished by crossing the lanes, for 64 bits. Not cryptographic: the data is
 * the user's own, not an adversary's.
 */
export class Hasher {
  private h1 = 0x9e3779b9;
  private h2 = 0x85ebca6b;

  reset(): void {
    this.h1 = 0x9e3779b9;
    this.h2 = 0x85ebca6b;
  }

  /** Mixes one 32-bit word into both lanes. */
  word(w: number): void {
    this.h1 = Math.imul(this.h1 ^ w, 2654435761);
    let k = Math.imul(w, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    let h = this.h2 ^ Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    this.h2 = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }

  /** Mixes a number's 64 bits; -0 is 0, and every NaN the same NaN. */
  number(value: number): void {
    float[0] = value === 0 ? 0 : Number.isNaN(value) ? Number.NaN : value;
    this.word(words[0]!);
    this.word(words[1]!);
  }

  /** Mixes a string: its length first, so that a sequence of strings reads one way only. */
  string(text: string): void {
    this.word(text.length);
    for (let i = 0; i < text.length; i++) this.word(text.charCodeAt(i));
  }

  /** The high 32 bits of the hash of what was fed since the last reset. */
  high(): number {
    const a = Math.imul(this.h1 ^ (this.h1 >>> 16), 2246822507) ^ Math.imul(this.h2 ^ (this.h2 >>> 13), 3266489909);
    return a >>> 0;
  }

  /** The low 32 bits. */
  low(): number {
    const b = Math.imul(this.h2 ^ (this.h2 >>> 16), 2246822507) ^ Math.imul(this.h1 ^ (this.h1 >>> 13), 3266489909);
    return b >>> 0;
  }
}

/** A set of 64-bit hashes; the pair (0, 0) marks an empty slot, so that hash is stored as (0, 1). */
export class HashSet64 {
  private high = new Uint32Array(FIRST_CAPACITY);
  private low = new Uint32Array(FIRST_CAPACITY);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The bytes its tables take. */
  get bytes(): number {
    return this.high.byteLength + this.low.byteLength;
  }

  /** Adds a hash; false when it was there already. */
  add(high: number, low: number): boolean {
    if (high === 0 && low === 0) low = 1;
    if (this.count + 1 > this.high.length * FILL) this.grow();
    const added = place(this.high, this.low, high, low);
    if (added) this.count++;
    return added;
  }

  private grow(): void {
    const oldHigh = this.high;
    const oldLow = this.low;
    this.high = new Uint32Array(oldHigh.length * 2);
    this.low = new Uint32Array(oldLow.length * 2);
    for (let i = 0; i < oldHigh.length; i++) {
      if (oldHigh[i] !== 0 || oldLow[i] !== 0) place(this.high, this.low, oldHigh[i]!, oldLow[i]!);
    }
  }
}

/** Linear probing from the slot the low bits pick; false when the hash is already there. */
function place(highs: Uint32Array, lows: Uint32Array, high: number, low: number): boolean {
  const mask = highs.length - 1;
  for (let slot = (low ^ high) & mask; ; slot = (slot + 1) & mask) {
    const h = highs[slot]!;
    const l = lows[slot]!;
    if (h === 0 && l === 0) {
      highs[slot] = high;
      lows[slot] = low;
      return true;
    }
    if (h === high && l === low) return false;
  }
}
