import { PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { PartitionWindow } from "./base.js";
import type { PartitionFilter } from "./filter.js";
import type { ListPartition } from "./list.js";
import type { MultiPartitionConfig } from "./multi.js";
import { MultiPartition, type DimensionPartition } from "./multi-partition.js";
import { TimePartition, TimePartitionWindow } from "./time.js";

/** A subset of values for some list dimensions, by name: `{ region: ["eu", "us"] }`. */
export type MultiValues = Readonly<Record<string, readonly string[]>>;

/**
 * A time window of the time dimension crossed with a subset of each list dimension's values
 * (all of them unless narrowed). Its size is a product, known without listing anything; its
 * partitions are made on first use. `partitions` runs oldest period first, as every window's do,
 * and within a period through the lists' values in declared order (the first list outermost);
 * `ordered("newest")` gives the order runs take: newest period first, each period's values
 * still in declared order.
 */
export class MultiPartitionWindow extends PartitionWindow {
  readonly config: MultiPartitionConfig;
  /** The window of the time dimension, or null without a time dimension. */
  readonly time: TimePartitionWindow | null;
  /** The values of each list dimension, by name, in declared order. */
  readonly values: Readonly<Record<string, readonly string[]>>;
  readonly length: number;
  /** The list dimensions' partitions of the window, in declared order of the dimensions. */
  private readonly lists: readonly (readonly ListPartition[])[];
  /** How many combinations of list values one period holds. */
  private readonly combinations: number;
  #partitions: readonly MultiPartition[] | undefined;

  constructor(config: MultiPartitionConfig, time: TimePartitionWindow | TimePartition | null, values: MultiValues = {}) {
    super();
    this.config = config;
    this.time = readTime(config, time);
    this.values = checkedValues(config, values);
    this.lists = Object.freeze(
      config.listDimensions.map((d) => Object.freeze(this.values[d.name]!.map((v) => config.listPartition(d.name, v)))),
    );
    this.combinations = this.lists.reduce((n, list) => n * list.length, 1);
    this.length = (this.time?.length ?? 1) * this.combinations;
  }

  /** The window of one partition, whose only partition is that one. */
  static of(partition: MultiPartition): MultiPartitionWindow {
    const values: Record<string, string[]> = {};
    for (const d of partition.config.listDimensions) values[d.name] = [partition.keys[d.name]!];
    const window = new MultiPartitionWindow(partition.config, partition.time, values);
    window.#partitions = Object.freeze([partition]);
    return window;
  }

  /** Its partitions, oldest period first (made once, on first use). */
  get partitions(): readonly MultiPartition[] {
    if (!this.#partitions) {
      const list: MultiPartition[] = [];
      for (let i = 0; i < this.length; i++) list.push(this.at(i));
      this.#partitions = Object.freeze(list);
    }
    return this.#partitions;
  }

  /** Its keys in the order of `partitions`, without making the partitions. */
  override get keys(): string[] {
    const times = this.time ? this.time.keys : [null];
    const keys: string[] = [];
    for (const time of times) for (let c = 0; c < this.combinations; c++) keys.push(this.keyAt(time, c));
    return keys;
  }

  override [Symbol.iterator](): Iterator<MultiPartition> {
    if (this.#partitions) return this.#partitions[Symbol.iterator]();
    return this.generate(false);
  }

  /** Its partitions in run order: "newest" takes the latest period first, each period's values in declared order. */
  override ordered(order: "newest" | "oldest"): readonly MultiPartition[] {
    return order === "oldest" ? this.partitions : Object.freeze([...this.generate(true)]);
  }

  /** The partitions of one period of the window (every value of the window's lists): what a run of that period reads. */
  atTime(time: TimePartition | string): MultiPartitionWindow {
    if (!this.time)
      throw new PartitionError(`multi window ${String(this)} has no time dimension: expected a window of ${this.config.shape} with one`);
    const period = typeof time === "string" ? this.config.timeDimension!.config.partition(time) : time;
    if (!(period instanceof TimePartition) || this.time.keyOf(period.value) !== period.key) {
      throw new PartitionError(
        `period ${describeValue(period?.key ?? time)} is not in the multi window ${String(this)}: expected one of ${String(this.time)}`,
      );
    }
    return new MultiPartitionWindow(this.config, period, this.values);
  }

  /** Whether the window holds the partition of this key (`2026-01-05|eu`); false for text that is no key. */
  has(key: string): boolean {
    let partition: MultiPartition;
    try {
      partition = this.config.partition(key);
    } catch {
      return false;
    }
    if (partition.time && this.time!.keyOf(partition.time.value) !== partition.time.key) return false;
    return this.config.listDimensions.every((d) => this.values[d.name]!.includes(partition.keys[d.name]!));
  }

  /** The key of the window's partition a row belongs to (by every dimension's column), or null. */
  keyOf(row: unknown): string | null {
    if (typeof row !== "object" || row === null) return null;
    const record = row as Readonly<Record<string, unknown>>;
    const keys: string[] = [];
    for (const d of this.config.dimensions) {
      const cell = record[d.column];
      const key =
        d.kind === "time" ? this.time!.keyOf(cell) : typeof cell === "string" && this.values[d.name]!.includes(cell) ? cell : null;
      if (key === null) return null;
      keys.push(key);
    }
    return keys.join("|");
  }

  /** The filter of the dimension whose column is `column`; PartitionError for another column (see `filters`). */
  filter(column: string): PartitionFilter {
    const dimension = this.config.dimensions.find((d) => d.column === column);
    if (!dimension) {
      throw new PartitionError(
        `multi window ${String(this)} has no dimension on the column ${JSON.stringify(column)}: expected one of ${this.config.columns.join(", ")} (filters() gives one filter per dimension)`,
      );
    }
    if (dimension.kind === "time") return this.time!.filter(column);
    const values = this.values[dimension.name]!;
    return values.length === 1 ? { column, value: values[0]! } : { column, values };
  }

  /** One filter per dimension, each on its own column, in declared order: a row must pass all. */
  filters(): PartitionFilter[] {
    return this.config.dimensions.map((d) => this.filter(d.column));
  }

  /** `2026-01-01..2026-01-07|eu,us`: the time window and each list's values, joined by "|" in declared order. */
  toString(): string {
    return this.config.dimensions.map((d) => (d.kind === "time" ? String(this.time) : this.values[d.name]!.join(","))).join("|");
  }

  /** The partition at `index` of `partitions`: the period outermost, then each list, the last fastest. */
  private at(index: number): MultiPartition {
    const periods = this.time?.partitions;
    return this.make(periods ? periods[Math.floor(index / this.combinations)]! : null, index % this.combinations);
  }

  private make(period: TimePartition | null, combination: number): MultiPartition {
    const picked = this.pick(combination);
    let list = 0;
    const parts: DimensionPartition[] = this.config.dimensions.map((d) => (d.kind === "time" ? period! : picked[list++]!));
    return new MultiPartition(this.config, parts);
  }

  private keyAt(time: string | null, combination: number): string {
    const picked = this.pick(combination);
    let list = 0;
    return this.config.dimensions.map((d) => (d.kind === "time" ? time! : picked[list++]!.key)).join("|");
  }

  /** The list partitions of one combination, in declared order: mixed radix, the last list fastest. */
  private pick(combination: number): ListPartition[] {
    const picked: ListPartition[] = new Array<ListPartition>(this.lists.length);
    let rest = combination;
    for (let i = this.lists.length - 1; i >= 0; i--) {
      const list = this.lists[i]!;
      picked[i] = list[rest % list.length]!;
      rest = Math.floor(rest / list.length);
    }
    return picked;
  }

  private *generate(newestFirst: boolean): Generator<MultiPartition> {
    const periods = this.time ? this.time.partitions : [null];
    for (let p = 0; p < periods.length; p++) {
      const period = periods[newestFirst ? periods.length - 1 - p : p]!;
      for (let c = 0; c < this.combinations; c++) yield this.make(period, c);
    }
  }
}

function readTime(config: MultiPartitionConfig, given: TimePartitionWindow | TimePartition | null): TimePartitionWindow | null {
  const dimension = config.timeDimension;
  const time = given instanceof TimePartition ? given.window : given;
  if (!dimension) {
    if (time === null || time === undefined) return null;
    throw new PartitionError(
      `multi window: ${config.shape} has no time dimension, but was given the time window ${String(time)}: expected null`,
    );
  }
  if (!(time instanceof TimePartitionWindow)) {
    throw new PartitionError(
      `multi window of ${config.shape}: expected a ${dimension.config.granularity.name} window of the time dimension "${dimension.name}", got ${describeValue(time)}`,
    );
  }
  if (time.granularity !== dimension.config.granularity) {
    throw new PartitionError(
      `multi window of ${config.shape}: the time dimension "${dimension.name}" is by ${dimension.config.granularity.name}, but was given the ${time.granularity.name} window ${String(time)}`,
    );
  }
  return time;
}

/** Every list dimension's values, by name: the given subset in declared order, or all of them. */
/** Each list dimension's values of a window: those `given` (checked against the declared ones), else all; PartitionError naming what is wrong. */
export function checkedValues(config: MultiPartitionConfig, given: MultiValues): Readonly<Record<string, readonly string[]>> {
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new PartitionError(
      `multi window values: expected an object such as { ${config.listDimensions[0]!.name}: [...] }, got ${describeValue(given)}`,
    );
  }
  const lists = config.listDimensions;
  for (const name of Object.keys(given)) {
    if (lists.some((d) => d.name === name)) continue;
    const why =
      config.timeDimension?.name === name ? "is the time dimension: give its range as the window's start and end" : "is not a dimension";
    throw new PartitionError(`multi window values: "${name}" ${why}; expected values of ${lists.map((d) => `"${d.name}"`).join(", ")}`);
  }
  const values: Record<string, readonly string[]> = {};
  for (const d of lists) {
    const declared = d.config.values;
    const subset = given[d.name];
    if (subset === undefined) {
      values[d.name] = declared;
      continue;
    }
    const expected = `expected some of ${declared.join(", ")}`;
    if (!Array.isArray(subset) || subset.length === 0) {
      throw new PartitionError(`multi window values of "${d.name}": ${expected}, got ${describeValue(subset)}`);
    }
    const seen = new Set<string>();
    for (const value of subset) {
      if (typeof value !== "string" || !config.hasListValue(d.name, value))
        throw new PartitionError(`multi window values of "${d.name}": ${describeValue(value)} is not a declared value; ${expected}`);
      if (seen.has(value))
        throw new PartitionError(`multi window values of "${d.name}": "${value}" is given twice; ${expected}, each once`);
      seen.add(value);
    }
    values[d.name] = Object.freeze(declared.filter((v) => seen.has(v)));
  }
  return Object.freeze(values);
}
