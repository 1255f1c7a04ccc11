import { PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import type { PartitionWindow } from "./base.js";
import { PartitionConfig, type PartitionDefinition } from "./base.js";
import type { TimeGranularity } from "./granularity.js";
import type { ListPartitionConfig } from "./list.js";
import { ListPartition } from "./list.js";
import { readDimensions, shapeOf, type DimensionConfig, type MultiDimension, type MultiDimensions } from "./multi-dimensions.js";
import { keysOfRecord, splitKey, splitNamed } from "./multi-key.js";
import { MultiPartition, type DimensionPartition } from "./multi-partition.js";
import { MultiPartitionWindow, type MultiValues } from "./multi-window.js";
import type { TimePartition, TimePartitionWindow } from "./time.js";
import { TimePartitionConfig } from "./time.js";

// A partitioning of several named dimensions, built on the two kinds: at most one time
// dimension and any number of lists. Every key, window and message follows the declared order.

/** Options of a multi partitioning beside its dimensions. */
export interface MultiPartitionOptions {
  /**
   * Whether one run may cover a window of several combinations. The dimensions' own
   * `allowWindow` is not read: windows of a multi partitioning are its own.
   */
  readonly allowWindow?: boolean;
}

/** The time dimension, its config known to be a time partitioning. */
export type TimeDimension = MultiDimension & { readonly kind: "time"; readonly config: TimePartitionConfig };
/** A list dimension, its config known to be a list partitioning. */
export type ListDimension = MultiDimension & { readonly kind: "list"; readonly config: ListPartitionConfig };

/**
 * An asset partitioned by several dimensions: a day and a region, a month and a market. `N`
 * (the dimensions' names) types a partition's `keys`; `O` (the options given) says whether a
 * run may cover a window, which types an asset's `context.partition` (see PartitionOf).
 */
export class MultiPartitionConfig<
  const N extends string = string,
  const O extends MultiPartitionOptions = Record<never, never>,
> extends PartitionConfig {
  readonly kind = "multi";
  /** The dimensions, in declared order. */
  readonly dimensions: readonly MultiDimension[];
  /** The time dimension, or null when every dimension is a list. */
  readonly timeDimension: TimeDimension | null;
  /** The list dimensions, in declared order. */
  readonly listDimensions: readonly ListDimension[];
  /** The dimensions' columns, in declared order (`column` joins them with "|"). */
  readonly columns: readonly string[];
  /** Each list's partitions, made once: every window and key shares them. */
  private readonly lists: ReadonlyMap<string, ReadonlyMap<string, ListPartition>>;

  constructor(dimensions: Readonly<Record<N, DimensionConfig>>, options?: O) {
    // The base wants the column first; the dimensions are read (and checked) again below.
    super(
      readDimensions(dimensions)
        .map((d) => d.column)
        .join("|"),
      options?.allowWindow ?? false,
    );
    this.dimensions = readDimensions(dimensions);
    this.timeDimension = (this.dimensions.find((d) => d.kind === "time") as TimeDimension | undefined) ?? null;
    this.listDimensions = Object.freeze(this.dimensions.filter((d): d is ListDimension => d.kind === "list"));
    this.columns = Object.freeze(this.dimensions.map((d) => d.column));
    this.lists = new Map(
      this.listDimensions.map((d) => [d.name, new Map(d.config.values.map((v) => [v, new ListPartition(v, d.config)]))]),
    );
  }

  /** `date|region`: the dimensions' names as keys join them. */
  get shape(): string {
    return shapeOf(this.dimensions);
  }

  /** The time dimension's granularity, or null without one. */
  get granularity(): TimeGranularity | null {
    return this.timeDimension?.config.granularity ?? null;
  }

  /** The dimension of this name, or PartitionError naming the dimensions. */
  dimension(name: string): MultiDimension {
    const found = this.dimensions.find((d) => d.name === name);
    if (!found)
      throw new PartitionError(
        `${describeValue(name)} is not a dimension of ${this.shape}: expected one of ${this.dimensions.map((d) => d.name).join(", ")}`,
      );
    return found;
  }

  /**
   * The partition of a key joined by "|" in declared order (`2026-01-05|eu`, as paths and row
   * counts store it), or of the dimensions' keys by name (`{ date: "2026-01-05", region: "eu" }`).
   * PartitionError naming the key (and the asset, when given) and what is expected.
   */
  partition(key: string | Readonly<Record<string, string>>, assetKey?: string): MultiPartition<N> {
    const keys =
      typeof key === "object" && key !== null ? keysOfRecord(this.dimensions, key, assetKey) : splitKey(this.dimensions, key, assetKey);
    const given = typeof key === "string" ? `partition key ${JSON.stringify(key)}` : `partition keys ${JSON.stringify(key)}`;
    return this.partitionOf(keys, `${given}${assetKey ? ` of ${assetKey}` : ""}`);
  }

  /** The partition of a key joined by "|": `fromKey("2026-01-05|eu")`. */
  fromKey(key: string, assetKey?: string): MultiPartition<N> {
    return this.partition(key, assetKey);
  }

  /** The window of a time range of the time dimension (both keys inclusive), crossed with the lists' values (default: all). */
  window(startKey: string, endKey: string, values: MultiValues = {}): MultiPartitionWindow {
    const time = this.timeDimension;
    if (!time) {
      throw new PartitionError(
        `multi partitioning ${this.shape} has no time dimension, but was given the range ${startKey}..${endKey}: expected all(values) for a window of its lists`,
      );
    }
    let range: TimePartitionWindow;
    try {
      range = time.config.window(startKey, endKey);
    } catch (error) {
      if (!(error instanceof PartitionError)) throw error;
      throw new PartitionError(`multi window ${startKey}..${endKey} of ${this.shape}, dimension "${time.name}": ${error.message}`);
    }
    return new MultiPartitionWindow(this, range, values);
  }

  /**
   * The window of a time window (or one period) of the time dimension crossed with the lists'
   * values (default: all): a period's every value is `over(period)`, what a run of a time
   * asset downstream reads of this one.
   */
  over(time: TimePartitionWindow | TimePartition | null, values: MultiValues = {}): MultiPartitionWindow {
    return new MultiPartitionWindow(this, time, values);
  }

  /** Every combination of the lists' values (default: all), for a partitioning without a time dimension. */
  all(values: MultiValues = {}): MultiPartitionWindow {
    if (this.timeDimension) {
      throw new PartitionError(
        `multi partitioning ${this.shape} has the time dimension "${this.timeDimension.name}": expected window(start, end, values), which bounds its periods`,
      );
    }
    return new MultiPartitionWindow(this, null, values);
  }

  /** The window of one partition (whose only partition is that one). */
  windowOf(partition: MultiPartition): MultiPartitionWindow {
    return MultiPartitionWindow.of(partition);
  }

  /** The same dimensions (names, kinds, order), the same time granularity and the same lists: columns, start and allowWindow do not matter. */
  compatible(other: PartitionConfig): boolean {
    return (
      other instanceof MultiPartitionConfig &&
      other.dimensions.length === this.dimensions.length &&
      this.dimensions.every((d, i) => other.dimensions[i]!.name === d.name && other.dimensions[i]!.config.compatible(d.config))
    );
  }

  /**
   * Whether `other` is a multi partitioning with the same list dimensions (names, values and
   * order) whatever its time granularity: the edge where each value reads its own value.
   */
  sameLists(other: PartitionConfig): boolean {
    return (
      other instanceof MultiPartitionConfig &&
      other.listDimensions.length === this.listDimensions.length &&
      this.listDimensions.every((d, i) => other.listDimensions[i]!.name === d.name && other.listDimensions[i]!.config.compatible(d.config))
    );
  }

  toDefinition(): PartitionDefinition {
    return {
      kind: this.kind,
      column: this.column,
      allowWindow: this.allowWindow,
      dimensions: this.dimensions.map((d) => ({ name: d.name, definition: d.config.toDefinition() })),
    };
  }

  /** Whether `value` is a declared value of the list dimension `name`. */
  hasListValue(name: string, value: string): boolean {
    return this.lists.get(name)?.has(value) === true;
  }

  /** The one shared partition of a declared list value. */
  listPartition(name: string, value: string): ListPartition {
    const partition = this.lists.get(name)?.get(value);
    if (!partition) this.dimension(name).config.partition(value); // throws, naming the declared values
    return partition!;
  }

  protected checkKind(window: PartitionWindow, assetKey: string): void {
    if (!(window instanceof MultiPartitionWindow)) {
      throw new PartitionError(
        `asset "${assetKey}" is partitioned by ${this.shape} but was given the window ${JSON.stringify(String(window))} of another kind: expected a multi window of ${this.shape} (its window(start, end, values), or over(timeWindow) for every value)`,
      );
    }
    if (!window.config.compatible(this)) {
      throw new PartitionError(
        `asset "${assetKey}" is partitioned by ${this.describe()} but was given the window ${String(window)} of ${window.config.describe()}`,
      );
    }
    const start = this.timeDimension?.config.start;
    if (start && window.time && window.time.start < start) {
      throw new PartitionError(
        `asset "${assetKey}" starts at ${this.granularity!.format(start)} but the window ${String(window)} reaches before it`,
      );
    }
  }

  /** `date (day) | region (eu, us, apac)`: the dimensions as messages describe them. */
  describe(): string {
    return this.dimensions
      .map((d) => `${d.name} (${d.config instanceof TimePartitionConfig ? d.config.granularity.name : d.config.values.join(", ")})`)
      .join(" | ");
  }

  /**
   * The partition of the dimensions' keys in declared order, each read by its kind; a
   * PartitionError starts with `given`, what the caller was handed.
   */
  partitionOf(keys: readonly string[], given = `partition keys ${JSON.stringify(keys)}`): MultiPartition<N> {
    if (!Array.isArray(keys) || keys.length !== this.dimensions.length)
      throw new PartitionError(`${given}: expected ${this.dimensions.length} keys in the order ${this.shape}, got ${describeValue(keys)}`);
    const parts: DimensionPartition[] = this.dimensions.map((d, i) => {
      const key = keys[i]!;
      try {
        return d.config instanceof TimePartitionConfig ? d.config.partition(key) : this.listPartition(d.name, key);
      } catch (error) {
        if (!(error instanceof PartitionError)) throw error;
        throw new PartitionError(`${given}, dimension "${d.name}": ${error.message}`);
      }
    });
    return new MultiPartition(this, parts) as MultiPartition<N>;
  }
}

/**
 * A multi partition from what a user types: its key (`2026-01-05|eu`) or its dimensions by name
 * (`date=2026-01-05,region=eu`, in any order; the form with "=", which no key holds).
 */
export function parseMultiKey(config: MultiPartitionConfig, text: string, assetKey?: string): MultiPartition {
  if (typeof text === "string" && text.includes("=")) {
    return config.partitionOf(
      splitNamed(config.dimensions, text, assetKey),
      `partition ${JSON.stringify(text)}${assetKey ? ` of ${assetKey}` : ""}`,
    );
  }
  return config.partition(text, assetKey);
}

PartitionConfig.register("multi", (definition) => {
  const dimensions = definition["dimensions"];
  const shape = `expected "dimensions" to be an array of { name, definition }`;
  if (!Array.isArray(dimensions)) throw new PartitionError(`multi partitioning definition: ${shape}, got ${describeValue(dimensions)}`);
  const read: Record<string, PartitionConfig> = {};
  for (const entry of dimensions as unknown[]) {
    const { name, definition: inner } = (entry ?? {}) as { name?: unknown; definition?: unknown };
    if (typeof name !== "string" || typeof inner !== "object" || inner === null)
      throw new PartitionError(`multi partitioning definition: ${shape}, got ${describeValue(entry)}`);
    read[name] = PartitionConfig.fromDefinition(inner as PartitionDefinition);
  }
  return new MultiPartitionConfig(read as MultiDimensions, { allowWindow: definition.allowWindow });
});
