import type { Partition, PartitionWindow } from "../partitioning/base.js";
import type { MultiPartition } from "../partitioning/multi-partition.js";
import type { MultiPartitionWindow } from "../partitioning/multi-window.js";

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

/**
 * `indicesByPartition` for a multi window, whose partition a row holds by every dimension's
 * column: `columns` gives each dimension's cells in declared order. Each dimension's cell is
 * looked up once per distinct value (a day, a region), and its partition's place computed from
 * the dimensions' places as the window orders them (the period outermost, then each list, the
 * last fastest), without making a key per row. The sample of a row outside holds its dimensions'
 * values by column.
 */
export function indicesByMultiPartition(columns: readonly (readonly unknown[])[], window: MultiPartitionWindow): WindowIndices {
  const dimensions = window.config.dimensions;
  const places = dimensions.map((d) => dimensionPlaces(window, d.name, d.kind));
  // The weight of each dimension's place in the window's order: mixed radix over the lists in
  // declared order (the last fastest), the time dimension above them all.
  const weights = new Array<number>(dimensions.length).fill(0);
  let weight = 1;
  for (let d = dimensions.length - 1; d >= 0; d--) {
    if (dimensions[d]!.kind === "time") continue;
    weights[d] = weight;
    weight *= window.values[dimensions[d]!.name]!.length;
  }
  const time = dimensions.findIndex((d) => d.kind === "time");
  if (time >= 0) weights[time] = weight;
  const buckets: number[][] = Array.from({ length: window.length }, () => []);
  const outsideSample: unknown[] = [];
  let outside = 0;
  const rows = columns[0]?.length ?? 0;
  for (let i = 0; i < rows; i++) {
    let at = 0;
    for (let d = 0; d < dimensions.length && at >= 0; d++) {
      const place = places[d]!(columns[d]![i]);
      at = place < 0 ? OUTSIDE : at + place * weights[d]!;
    }
    if (at >= 0) {
      buckets[at]!.push(i);
      continue;
    }
    outside++;
    if (outsideSample.length < SAMPLE_SIZE)
      outsideSample.push(Object.fromEntries(dimensions.map((d, c) => [d.column, columns[c]![i] ?? null])));
  }
  return { buckets, outside, outsideSample };
}

/** The place of a dimension's cell among the window's periods or values (-1: none of them), remembered per value. */
function dimensionPlaces(window: MultiPartitionWindow, name: string, kind: "time" | "list"): (cell: unknown) => number {
  const memo = new ValueMemo();
  let find: (cell: unknown) => number;
  if (kind === "time") {
    const periods = window.time!;
    const position = new Map(periods.keys.map((key, i) => [key, i]));
    find = (cell) => {
      const key = periods.keyOf(cell);
      return key === null ? OUTSIDE : (position.get(key) ?? OUTSIDE);
    };
  } else {
    const position = new Map(window.values[name]!.map((value, i) => [value, i]));
    find = (cell) => (typeof cell === "string" ? (position.get(cell) ?? OUTSIDE) : OUTSIDE);
  }
  return (cell) => {
    let place = memo.get(cell);
    if (place === undefined) memo.set(cell, (place = find(cell)));
    return place;
  };
}

/** `indicesInPartition` for a multi partition: the rows whose every dimension's cell it holds. */
export function indicesInMultiPartition(columns: readonly (readonly unknown[])[], partition: MultiPartition): number[] {
  return indicesByMultiPartition(columns, partition.window).buckets[0]!;
}
