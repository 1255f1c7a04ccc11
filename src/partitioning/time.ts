import { PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { Partition, PartitionConfig, PartitionWindow, type PartitionDefinition } from "./base.js";
import { currentPeriod, currentPeriodAtOffset } from "./current-period.js";
import { instantOf, parseInstant, statedOffsetMs, toDate } from "./dates.js";
import type { PartitionFilter } from "./filter.js";
import { TimeGranularity } from "./granularity.js";

function granularityOf(value: unknown): TimeGranularity {
  if (value instanceof TimeGranularity) return value;
  if (typeof value === "string") return TimeGranularity.named(value);
  throw new TypeError(`granularity: expected a TimeGranularity, got ${describeValue(value)}`);
}

/**
 * Refuses a window end given as the key of a longer period than the window's ("2026-03" for a
 * daily window): read as its start, it would silently stand for one day of its month. A date,
 * a datetime or the key of a shorter period lies inside one of the window's periods, and is read so.
 */
function refuseLongerKey(value: unknown, granularity: TimeGranularity, end: "start" | "end"): void {
  if (typeof value !== "string" || parseInstant(value) !== null) return;
  let keyed: TimeGranularity;
  try {
    keyed = TimeGranularity.fromKey(value);
  } catch {
    return; // not a key: the date reading words its own error
  }
  const all = TimeGranularity.all;
  if (all.indexOf(keyed) <= all.indexOf(granularity)) return;
  throw new PartitionError(
    `window ${end} ${JSON.stringify(value)} is a ${keyed.name} key, but the window is of ${granularity.name}s: expected a ${granularity.name} key or a date, or granularity ${keyed.name} for a window of ${keyed.name}s`,
  );
}

/** One period of time, identified by its start. */
export class TimePartition extends Partition {
  /** The period start. */
  readonly value: Date;
  readonly granularity: TimeGranularity;
  readonly key: string;
  /** Half-open [start, end). */
  readonly bounds: readonly [Date, Date];
  private readonly startMs: number;
  private readonly endMs: number;
  #window: TimePartitionWindow | undefined;

  constructor(value: Date | string, granularity: TimeGranularity = TimeGranularity.DAY) {
    super();
    this.granularity = granularityOf(granularity);
    const [start, end] = this.granularity.bounds(value);
    this.value = start;
    this.bounds = Object.freeze([start, end] as const);
    this.key = this.granularity.format(start);
    this.startMs = start.getTime();
    this.endMs = end.getTime();
  }

  /** The partition a key names; its shape gives the granularity ("2026-08" is monthly). */
  static fromKey(key: string): TimePartition {
    const granularity = TimeGranularity.fromKey(key);
    return new TimePartition(granularity.parse(key), granularity);
  }

  /** The window of this partition alone, made once: a backfill asks for it at every step of every partition. */
  get window(): TimePartitionWindow {
    return (this.#window ??= TimePartitionWindow.of(this));
  }

  contains(value: unknown): boolean {
    const t = instantOf(value);
    return t >= this.startMs && t < this.endMs;
  }

  filter(column: string): PartitionFilter {
    return { column, start: this.bounds[0], end: this.bounds[1] };
  }
}

/** Options of `TimePartitionWindow.lookback`. */
export interface LookbackOptions {
  /** The instant to look back from; defaults to the current time. */
  readonly now?: Date | string;
  /** How many partitions long the window is (at least 1). */
  readonly lookback: number;
  /** How many partitions back from the current one the window ends; 0 ends at the current one. */
  readonly offset?: number;
  readonly granularity?: TimeGranularity;
  /** The earliest period the window may reach; it is clamped there. */
  readonly start?: Date | string | null;
  /**
   * IANA zone whose calendar day, week, month, quarter and year windows follow; hours stay UTC.
   * Without it, the offset a `now` string states ("2026-05-20T01:00:00+05:00"), else UTC.
   */
  readonly timeZone?: string;
}

/** A contiguous run of periods, both ends inclusive. */
export class TimePartitionWindow extends PartitionWindow {
  readonly start: Date;
  readonly end: Date;
  readonly granularity: TimeGranularity;
  readonly length: number;
  private cached: readonly TimePartition[] | undefined;
  private readonly startMs: number;
  private readonly endMs: number;

  constructor(start: Date | string, end: Date | string, granularity: TimeGranularity = TimeGranularity.DAY) {
    super();
    this.granularity = granularityOf(granularity);
    refuseLongerKey(start, this.granularity, "start");
    refuseLongerKey(end, this.granularity, "end");
    this.start = this.granularity.truncate(start);
    // The window of one period (each partition's own, made for every run of a backfill) needs
    // no calendar arithmetic beyond the one truncation: counting its periods took a tenth of a
    // 3,650-partition backfill to the memory destination.
    const single = start === end || (start instanceof Date && end instanceof Date && start.getTime() === end.getTime());
    this.end = single ? new Date(this.start.getTime()) : this.granularity.truncate(end);
    const between = single ? 0 : this.granularity.periodsBetween(this.start, this.end);
    if (between < 0) {
      const [a, b] = [this.granularity.format(this.start), this.granularity.format(this.end)];
      throw new PartitionError(`window ${a}..${b} ends before it starts: expected start <= end`);
    }
    this.length = between + 1;
    this.startMs = this.start.getTime();
    this.endMs = this.granularity.advance(this.end, 1).getTime();
  }

  /** The window of one partition, whose only partition is that one. */
  static of(partition: TimePartition): TimePartitionWindow {
    const window = new TimePartitionWindow(partition.value, partition.value, partition.granularity);
    window.cached = Object.freeze([partition]);
    return window;
  }

  /** Parses "start..end" (or "start...end", or a single key, the window of one); the keys' shape gives the granularity. */
  static parse(text: string): TimePartitionWindow {
    if (typeof text !== "string") throw new TypeError(`expected a window string "start..end", got ${describeValue(text)}`);
    // "A...B" is Dagster's spelling of the same range; time keys hold no dots.
    const parts = (/^[^.]+\.\.\.[^.]+$/.test(text.trim()) ? text.replace("...", "..") : text).split("..");
    if (parts.length > 2 || parts.some((p) => p.trim() === "")) {
      throw new PartitionError(
        `${JSON.stringify(text)} is not a window: expected "start..end" (e.g. "2026-01-01..2026-01-07") or a single key`,
      );
    }
    const [first, last = first] = parts.map((p) => p.trim()) as [string, string?];
    const granularity = TimeGranularity.fromKey(first);
    const lastGranularity = TimeGranularity.fromKey(last);
    if (lastGranularity !== granularity) {
      throw new PartitionError(
        `window ${JSON.stringify(text)} mixes a ${granularity.name} key with a ${lastGranularity.name} key: expected both ends of one granularity`,
      );
    }
    return new TimePartitionWindow(granularity.parse(first), granularity.parse(last), granularity);
  }

  /** The trailing window a schedule should cover, or null when clamping to `start` leaves nothing. */
  static lookback(options: LookbackOptions): TimePartitionWindow | null {
    const { lookback, offset = 0, granularity = TimeGranularity.DAY, timeZone = "UTC" } = options;
    if (!Number.isInteger(lookback) || lookback < 1)
      throw new PartitionError(`lookback: expected an integer of at least 1, got ${describeValue(lookback)}`);
    if (!Number.isInteger(offset) || offset < 0)
      throw new PartitionError(`offset: expected an integer of at least 0, got ${describeValue(offset)}`);
    const g = granularityOf(granularity);
    const now = options.now === undefined ? new Date() : toDate(options.now, "now");
    // A `now` string with an offset is an instant and the caller's wall clock both, as an aware
    // datetime is: without a `timeZone`, periods follow that offset's calendar.
    const stated = options.timeZone === undefined && typeof options.now === "string" ? statedOffsetMs(options.now) : null;
    const current = stated === null ? currentPeriod(g, now, timeZone) : currentPeriodAtOffset(g, now, stated);
    const end = g.advance(current, -offset);
    let start = g.advance(end, -(lookback - 1));
    if (options.start !== undefined && options.start !== null) {
      const floor = g.truncate(toDate(options.start, "start"));
      if (floor > end) return null;
      if (floor > start) start = floor;
    }
    return new TimePartitionWindow(start, end, g);
  }

  get bounds(): [Date, Date] {
    return [this.start, this.granularity.advance(this.end, 1)];
  }

  /**
   * Its partitions' keys, without making the partitions: coverage of eleven years of hours asks
   * for 100,000 keys, and a partition costs three date operations where a key costs one.
   */
  override get keys(): string[] {
    if (this.cached) return super.keys;
    const keys: string[] = [];
    for (const start of this.granularity.periodRange(this.start, this.end)) keys.push(this.granularity.format(start));
    return keys;
  }

  get partitions(): readonly TimePartition[] {
    if (!this.cached) {
      const list: TimePartition[] = [];
      for (const start of this.granularity.periodRange(this.start, this.end)) list.push(new TimePartition(start, this.granularity));
      this.cached = Object.freeze(list);
    }
    return this.cached;
  }

  keyOf(value: unknown): string | null {
    const t = instantOf(value);
    if (!(t >= this.startMs && t < this.endMs)) return null;
    // A daily row's ISO date string is its own key: skip the Date round trip on this hot path.
    if (this.granularity === TimeGranularity.DAY && typeof value === "string" && value.length === 10) return value;
    return this.granularity.format(new Date(t));
  }

  filter(column: string): PartitionFilter {
    const [start, end] = this.bounds;
    return { column, start, end };
  }

  toString(): string {
    const first = this.granularity.format(this.start);
    return this.length === 1 ? first : `${first}..${this.granularity.format(this.end)}`;
  }
}

/** Options of a time partitioning. */
export interface TimePartitionOptions {
  readonly column: string;
  readonly granularity?: TimeGranularity;
  readonly allowWindow?: boolean;
  /** The first period that exists; windows may not reach before it. */
  readonly start?: Date | string | null;
}

/** An asset partitioned by periods of time. */
export class TimePartitionConfig extends PartitionConfig {
  readonly kind = "time";
  readonly granularity: TimeGranularity;
  /** The start of the first period, or null when unbounded. */
  readonly start: Date | null;

  constructor(options: TimePartitionOptions) {
    super(options?.column, options?.allowWindow ?? false);
    this.granularity = granularityOf(options.granularity ?? TimeGranularity.DAY);
    this.start = options.start === undefined || options.start === null ? null : this.granularity.truncate(options.start);
  }

  partition(key: string): TimePartition {
    return new TimePartition(this.granularity.parse(key), this.granularity);
  }

  window(startKey: string, endKey: string): TimePartitionWindow {
    return new TimePartitionWindow(this.granularity.parse(startKey), this.granularity.parse(endKey), this.granularity);
  }

  compatible(other: PartitionConfig): boolean {
    return other instanceof TimePartitionConfig && other.granularity === this.granularity;
  }

  toDefinition(): PartitionDefinition {
    return {
      kind: this.kind,
      column: this.column,
      granularity: this.granularity.name,
      allowWindow: this.allowWindow,
      start: this.start ? this.granularity.format(this.start) : null,
    };
  }

  protected checkKind(window: PartitionWindow, assetKey: string): void {
    if (!(window instanceof TimePartitionWindow)) {
      throw new PartitionError(
        `asset "${assetKey}" is partitioned by ${this.granularity.name} but was given the window ${JSON.stringify(String(window))} of another kind`,
      );
    }
    if (window.granularity !== this.granularity) {
      throw new PartitionError(
        `asset "${assetKey}" is partitioned by ${this.granularity.name} but was given the ${window.granularity.name} window ${String(window)}`,
      );
    }
    if (this.start && window.start < this.start) {
      throw new PartitionError(
        `asset "${assetKey}" starts at ${this.granularity.format(this.start)} but the window ${String(window)} reaches before it`,
      );
    }
  }
}

PartitionConfig.register("time", (definition) => {
  const granularity = TimeGranularity.named(String(definition["granularity"] ?? "day"));
  const start = definition["start"];
  return new TimePartitionConfig({
    column: definition.column,
    granularity,
    allowWindow: definition.allowWindow,
    start: typeof start === "string" ? granularity.parse(start) : null,
  });
});
