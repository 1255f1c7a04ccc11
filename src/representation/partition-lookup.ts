import type { Partition, PartitionWindow } from "../partitioning/base.js";

// Past this many distinct values the memo stops growing: a column of unique timestamps gains
// nothing from it, and memory must stay bounded on millions of rows.
const MEMO_LIMIT = 4096;

/**
 * Remembers a pure lookup (a partition index, a membership) per column value. Partition columns
 * repeat heavily (a day of rows shares one date string), and parsing the same ISO string a
 * million times is the whole cost of a split; this makes it one parse per distinct value.
 * Dates are remembered by their instant, other objects not at all.
 */
class ValueMemo {
  private readonly primitives = new Map<unknown, number>();
  private readonly instants = new Map<number, number>();

  get(value: unknown): number | undefined {
    if (value instanceof Date) return this.instants.get(value.getTime());
    if (typeof value === "object" && value !== null) return undefined;
    return this.primitives.get(value);
  }

  set(value: unknown, result: number): void {
    if (value instanceof Date) {
      if (this.instants.size < MEMO_LIMIT) this.instants.set(value.getTime(), result);
    } else if (typeof value !== "object" || value === null) {
      if (this.primitives.size < MEMO_LIMIT) this.primitives.set(value, result);
    }
  }
}

/** Row indices grouped by the window's partition holding each value, plus the rows in none. */
export interface WindowIndices {
  /** One list of row indices per partition of the window, in window order. */
  readonly buckets: number[][];
  /** How many rows no partition of the window holds. */
  readonly outside: number;
  /** The partition-column values of the first few rows outside the window, for messages. */
  readonly outsideSample: unknown[];
}

const OUTSIDE = -1;
const SAMPLE_SIZE = 3;

/** Groups row indices by partition in one pass over `values`, through `window.keyOf`. */
export function indicesByPartition(values: readonly unknown[], window: PartitionWindow): WindowIndices {
  const partitions = window.partitions;
  const position = new Map<string, number>();
  const buckets: number[][] = [];
  for (let p = 0; p < partitions.length; p++) {
    position.set(partitions[p]!.key, p);
    buckets.push([]);
  }
  const memo = new ValueMemo();
  const outsideSample: unknown[] = [];
  let outside = 0;
  // The partition of the previous row: rows usually come clustered by time, so asking it first
  // (a bounds check) spares most keyOf calls on columns of distinct timestamps.
  let last = OUTSIDE;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    let at = memo.get(value);
    if (at === undefined) {
      if (last !== OUTSIDE && partitions[last]!.contains(value)) {
        at = last;
      } else {
        const key = window.keyOf(value);
        at = key === null ? OUTSIDE : (position.get(key) ?? OUTSIDE);
      }
      memo.set(value, at);
    }
    last = at;
    if (at === OUTSIDE) {
      outside++;
      if (outsideSample.length < SAMPLE_SIZE) outsideSample.push(value);
    } else {
      buckets[at]!.push(i);
    }
  }
  return { buckets, outside, outsideSample };
}

/** The indices of the values that `partition` contains, in order, in one pass. */
export function indicesInPartition(values: readonly unknown[], partition: Partition): number[] {
  const memo = new ValueMemo();
  const indices: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    let inside = memo.get(value);
    if (inside === undefined) {
      inside = partition.contains(value) ? 1 : 0;
      memo.set(value, inside);
    }
    if (inside === 1) indices.push(i);
  }
  return indices;
}
