import { ConfigError, PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import type { PartitionFilter } from "./filter.js";

/** One storage unit of a partitioned asset: a period of time, a declared value, ... */
export abstract class Partition {
  /** The key that names the partition in paths, messages and row counts. */
  abstract readonly key: string;
  /** The partition's value: a Date for time partitions, the key itself for list partitions, each dimension's value by name for multi partitions. */
  abstract readonly value: unknown;
  /** The window holding just this partition. */
  abstract readonly window: PartitionWindow;
  /** Whether a row whose partition column holds `value` belongs to this partition (a multi partition reads the whole row). */
  abstract contains(value: unknown): boolean;
  /** The filter a database uses to select this partition's rows. */
  abstract filter(column: string): PartitionFilter;

  /** The rows whose `column` value belongs to this partition. */
  slice<R extends Readonly<Record<string, unknown>>>(rows: readonly R[], column: string): R[] {
    return rows.filter((row) => this.contains(row[column]));
  }

  toString(): string {
    return this.key;
  }
}

/** A contiguous run of partitions of one kind: the scope of one execution. */
export abstract class PartitionWindow implements Iterable<Partition> {
  /** Its partitions, oldest (or first declared) first. */
  abstract readonly partitions: readonly Partition[];
  /** How many partitions it holds. */
  abstract readonly length: number;
  /** The key of the window's partition that holds a column value, or null when none does. */
  abstract keyOf(value: unknown): string | null;
  /** The filter a database uses to select every row of the window. */
  abstract filter(column: string): PartitionFilter;
  /** `first..last`, or the single key for a window of one. */
  abstract toString(): string;

  /** Its partitions' keys, in order: a new array at each call. */
  get keys(): string[] {
    return this.partitions.map((p) => p.key);
  }

  /** The window's name, as `toString()` gives it. */
  get key(): string {
    return this.toString();
  }

  [Symbol.iterator](): Iterator<Partition> {
    return this.partitions[Symbol.iterator]();
  }

  /**
   * Its partitions in the order a run takes them: "oldest" is `partitions`, "newest" reverses
   * them. A kind whose partitions are not a single line overrides it (a multi window takes the
   * newest period first but keeps each period's list values in declared order).
   */
  ordered(order: "newest" | "oldest"): readonly Partition[] {
    return order === "newest" ? [...this.partitions].reverse() : this.partitions;
  }
}

/** The plain JSON form of a partitioning, as a catalog stores it. */
export interface PartitionDefinition {
  readonly kind: string;
  readonly column: string;
  readonly allowWindow: boolean;
  readonly [field: string]: unknown;
}

type DefinitionReader = (definition: PartitionDefinition) => PartitionConfig;
const kinds = new Map<string, DefinitionReader>();
/** The kinds interloper registers itself (time.ts, list.ts, multi.ts), once each. */
const BUILT_IN_KINDS: readonly string[] = ["time", "list", "multi"];

/** How an asset is partitioned. Each kind subclasses it and registers itself. */
export abstract class PartitionConfig {
  /** The kind's name in definitions: "time", "list", ... */
  abstract readonly kind: string;
  /** The column holding the partition value in the data. */
  readonly column: string;
  /** Whether one execution may cover a window of several partitions. */
  readonly allowWindow: boolean;

  protected constructor(column: string, allowWindow: boolean) {
    if (typeof column !== "string") throw new TypeError(`partition column must be a string, got ${describeValue(column)}`);
    if (column.length === 0) throw new ConfigError(`partition column must not be empty: name the column that holds the partition value`);
    this.column = column;
    this.allowWindow = allowWindow === true;
  }

  /** Parses a persisted key into a partition, or throws PartitionError. */
  abstract partition(key: string): Partition;
  /** Builds the window from one key to another, both inclusive. */
  abstract window(startKey: string, endKey: string): PartitionWindow;
  /** Whether both ends of a DAG edge accept the same windows. */
  abstract compatible(other: PartitionConfig): boolean;
  /** The plain JSON form, which `PartitionConfig.fromDefinition` reads back. */
  abstract toDefinition(): PartitionDefinition;
  /** Throws PartitionError, naming the asset, when this kind cannot serve the window. */
  protected abstract checkKind(window: PartitionWindow, assetKey: string): void;

  /**
   * Validates a run's window (a bare partition stands for its window of one) and returns it as
   * a window: of this kind, within its bounds, and of one partition unless `allowWindow`
   * (reads pass `true`: any window can be read back, whatever one run may cover).
   */
  check(
    windowOrPartition: PartitionWindow | Partition | null | undefined,
    assetKey: string,
    allowWindow: boolean = this.allowWindow,
  ): PartitionWindow {
    if (windowOrPartition === null || windowOrPartition === undefined) {
      throw new PartitionError(
        `asset "${assetKey}" is partitioned by "${this.column}" but was given no window (${describeValue(windowOrPartition)}): expected a partition or a window`,
      );
    }
    const window = windowOrPartition instanceof Partition ? windowOrPartition.window : windowOrPartition;
    if (!(window instanceof PartitionWindow)) {
      throw new PartitionError(`asset "${assetKey}": expected a partition or a window, got ${describeValue(window)}`);
    }
    this.checkKind(window, assetKey);
    if (window.length > 1 && !allowWindow) {
      throw new PartitionError(
        `asset "${assetKey}" does not allow windows (allowWindow is false) but was given ${window.length} partitions (${String(window)}); run it one partition at a time or as a backfill`,
      );
    }
    return window;
  }

  /**
   * Registers a kind so that `fromDefinition` can rebuild it. A kind of one's own may be
   * registered again (a module loaded twice); the built-in ones may not be replaced.
   */
  static register(kind: string, read: DefinitionReader): void {
    if (typeof kind !== "string" || kind.length === 0) {
      throw new ConfigError(`PartitionConfig.register: expected a kind name, got ${describeValue(kind)}`);
    }
    if (typeof read !== "function") {
      throw new ConfigError(`PartitionConfig.register("${kind}"): expected a function reading a definition, got ${describeValue(read)}`);
    }
    if (BUILT_IN_KINDS.includes(kind) && kinds.has(kind)) {
      throw new ConfigError(
        `PartitionConfig.register: "${kind}" is a built-in partitioning kind and cannot be replaced: expected a kind name other than ${BUILT_IN_KINDS.slice(
          0,
          -1,
        )
          .map((k) => `"${k}"`)
          .join(", ")} and "${BUILT_IN_KINDS[BUILT_IN_KINDS.length - 1]}"`,
      );
    }
    kinds.set(kind, read);
  }

  /** Rebuilds a partitioning from its plain JSON form. */
  static fromDefinition(definition: PartitionDefinition): PartitionConfig {
    const read = definition && typeof definition === "object" ? kinds.get(definition.kind) : undefined;
    if (!read) {
      const known = [...kinds.keys()].map((k) => `"${k}"`).join(", ");
      throw new PartitionError(`unknown partitioning kind ${describeValue(definition?.kind)}: expected one of ${known}`);
    }
    return read(definition);
  }
}
