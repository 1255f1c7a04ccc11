import { ConfigError, PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { Partition, PartitionConfig, PartitionWindow, type PartitionDefinition } from "./base.js";
import type { PartitionFilter } from "./filter.js";

// The reference implementation of a partitioning kind: a new kind copies this file's shape
// (a Partition, a PartitionWindow, a PartitionConfig, and a registration at the bottom).

// C0 control characters and DEL.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why a list value cannot be a key, or null when it can: keys become path segments (folder
 * names, object keys) and SQL literals, and are printed. Control characters (C0 and DEL) are
 * refused: a `\r` or `\n` in a folder name or an object key breaks the tools that list them
 * (S3's XML listing turns `\r` into `\n`), and an escape sequence reaches the terminal.
 */
function unsafeReason(value: unknown): string | null {
  if (typeof value !== "string") return `must be a string, got ${describeValue(value)}`;
  if (value.length === 0) return "must not be empty";
  if (value === "." || value === "..") return `must not be "${value}"`;
  const bad = ["/", "\\", "="].find((ch) => value.includes(ch));
  if (bad !== undefined) return `must not contain ${JSON.stringify(bad)}`;
  // A window joins its ends with "..": "a..b" would read as a window of "a" and "b".
  if (value.includes("..")) return `must not contain ".." (a window joins its ends with it)`;
  const control = CONTROL.exec(value);
  return control
    ? `must not contain the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`
    : null;
}

/** One declared value of a list partitioning; its key is the value itself. */
export class ListPartition extends Partition {
  readonly value: string;
  readonly key: string;
  /** The partitioning it belongs to, when known: gives `window` its declared order. */
  readonly config: ListPartitionConfig | null;

  constructor(value: string, config: ListPartitionConfig | null = null) {
    super();
    const reason = unsafeReason(value);
    if (reason) throw new PartitionError(`list partition value ${describeValue(value)} ${reason}`);
    this.value = value;
    this.key = value;
    this.config = config;
  }

  get window(): ListPartitionWindow {
    const config = this.config ?? new ListPartitionConfig({ column: "value", values: [this.value] });
    return new ListPartitionWindow(config, this.value, this.value);
  }

  contains(value: unknown): boolean {
    return value === this.value;
  }

  filter(column: string): PartitionFilter {
    return { column, value: this.value };
  }
}

/** A contiguous range of a list partitioning's declared values. */
export class ListPartitionWindow extends PartitionWindow {
  readonly config: ListPartitionConfig;
  readonly partitions: readonly ListPartition[];
  readonly length: number;
  private readonly members: ReadonlySet<string>;

  constructor(config: ListPartitionConfig, startKey: string, endKey: string) {
    super();
    const first = config.indexOf(startKey);
    const last = config.indexOf(endKey);
    if (last < first) {
      throw new PartitionError(
        `list window ${startKey}..${endKey} ends before it starts in the declared order ${config.values.join(", ")}`,
      );
    }
    this.config = config;
    this.partitions = Object.freeze(config.values.slice(first, last + 1).map((v) => new ListPartition(v, config)));
    this.length = this.partitions.length;
    this.members = new Set(this.partitions.map((p) => p.key));
  }

  /** The declared values the window covers, in order. */
  get values(): readonly string[] {
    return this.partitions.map((p) => p.value);
  }

  keyOf(value: unknown): string | null {
    return typeof value === "string" && this.members.has(value) ? value : null;
  }

  filter(column: string): PartitionFilter {
    return this.length === 1 ? { column, value: this.partitions[0]!.value } : { column, values: this.values };
  }

  toString(): string {
    const first = this.partitions[0]!.key;
    return this.length === 1 ? first : `${first}..${this.partitions[this.length - 1]!.key}`;
  }
}

/** Options of a list partitioning. */
export interface ListPartitionOptions {
  readonly column: string;
  /** The partition keys, in the order windows follow. */
  readonly values: readonly string[];
  readonly allowWindow?: boolean;
}

/** An asset partitioned by a declared list of values, such as regions or markets. */
export class ListPartitionConfig extends PartitionConfig {
  readonly kind = "list";
  readonly values: readonly string[];
  private readonly positions: ReadonlyMap<string, number>;

  constructor(options: ListPartitionOptions) {
    super(options?.column, options?.allowWindow ?? false);
    if (!Array.isArray(options.values) || options.values.length === 0) {
      throw new ConfigError(
        `list partitioning on "${this.column}": values must be a non-empty array of strings, got ${describeValue(options.values)}`,
      );
    }
    const positions = new Map<string, number>();
    options.values.forEach((value, index) => {
      const reason = unsafeReason(value);
      if (reason)
        throw new ConfigError(
          `list partitioning on "${this.column}": value ${describeValue(value)} ${reason} (values are used as path segments and SQL literals)`,
        );
      if (positions.has(value))
        throw new ConfigError(`list partitioning on "${this.column}": value ${JSON.stringify(value)} is declared twice`);
      positions.set(value, index);
    });
    this.values = Object.freeze([...options.values]);
    this.positions = positions;
  }

  /** The position of a declared value, or PartitionError naming the declared ones. */
  indexOf(key: string): number {
    const index = this.positions.get(key);
    if (index === undefined) {
      throw new PartitionError(
        `${JSON.stringify(key)} is not a declared value of "${this.column}": expected one of ${this.values.join(", ")}`,
      );
    }
    return index;
  }

  partition(key: string): ListPartition {
    this.indexOf(key);
    return new ListPartition(key, this);
  }

  window(startKey: string, endKey: string): ListPartitionWindow {
    return new ListPartitionWindow(this, startKey, endKey);
  }

  /** Every declared value, as one window. */
  all(): ListPartitionWindow {
    return this.window(this.values[0]!, this.values[this.values.length - 1]!);
  }

  compatible(other: PartitionConfig): boolean {
    return (
      other instanceof ListPartitionConfig &&
      other.values.length === this.values.length &&
      other.values.every((v, i) => v === this.values[i])
    );
  }

  toDefinition(): PartitionDefinition {
    return { kind: this.kind, column: this.column, values: [...this.values], allowWindow: this.allowWindow };
  }

  protected checkKind(window: PartitionWindow, assetKey: string): void {
    if (!(window instanceof ListPartitionWindow)) {
      throw new PartitionError(
        `asset "${assetKey}" is partitioned by the list ${this.values.join(", ")} but was given the window ${JSON.stringify(String(window))} of another kind`,
      );
    }
    for (const p of window.partitions) {
      if (!this.positions.has(p.key)) {
        throw new PartitionError(
          `asset "${assetKey}": ${JSON.stringify(p.key)} is not a declared value: expected one of ${this.values.join(", ")}`,
        );
      }
    }
    this.checkOrder(window, assetKey);
  }

  /**
   * A window made by another list partitioning (another order of the values) is served only
   * when its text names the same values in this order: a window is a contiguous range of the
   * declared order, and `eu..apac` of (eu, us, apac) is (eu, apac) of (eu, apac, us).
   */
  private checkOrder(window: ListPartitionWindow, assetKey: string): void {
    if (window.config === this || window.config.compatible(this)) return;
    const text = String(window);
    const [first, last] = [this.positions.get(window.values[0]!)!, this.positions.get(window.values[window.length - 1]!)!];
    const own = last >= first ? this.values.slice(first, last + 1) : [];
    const given = new Set(window.values);
    if (own.length === given.size && own.every((v) => given.has(v))) return;
    const means = own.length > 0 ? `holds ${own.join(", ")}` : "ends before it starts";
    throw new PartitionError(
      `asset "${assetKey}": the list window ${text} was made in the order ${window.config.values.join(", ")}, where it holds ${window.values.join(", ")}; in the asset's declared order ${this.values.join(", ")} it ${means}: a window is a contiguous range of the asset's own order`,
    );
  }
}

PartitionConfig.register("list", (definition) => {
  const values = definition["values"];
  if (!Array.isArray(values))
    throw new PartitionError(`list partitioning definition: expected "values" to be an array, got ${describeValue(values)}`);
  return new ListPartitionConfig({ column: definition.column, values: values as string[], allowWindow: definition.allowWindow });
});
