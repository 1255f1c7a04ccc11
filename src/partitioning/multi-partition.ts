import { PartitionError } from "../errors.js";
import { Partition } from "./base.js";
import type { PartitionFilter } from "./filter.js";
import { ListPartition } from "./list.js";
import type { MultiPartitionConfig } from "./multi.js";
import type { MultiPartitionWindow } from "./multi-window.js";
import { TimePartition } from "./time.js";

/** A partition of one dimension: a period of the time dimension or a value of a list. */
export type DimensionPartition = TimePartition | ListPartition;

/** One dimension of a multi partition: what a destination writes into that dimension's column. */
export interface MultiPartitionPart {
  readonly name: string;
  readonly kind: "time" | "list";
  /** The dimension's column in the data (and its hive folder's name). */
  readonly column: string;
  /** The dimension's own key: `2026-01-05`, `eu`. */
  readonly key: string;
  /** The dimension's value: the period start (a Date) or the list value. */
  readonly value: Date | string;
  readonly partition: DimensionPartition;
}

/**
 * One combination of a multi partitioning: a period of its time dimension (when it has one) and
 * a value of each list. Its key joins the dimensions' keys with "|" in declared order. Build one
 * with `config.partition(key)`.
 */
export class MultiPartition<N extends string = string> extends Partition {
  readonly config: MultiPartitionConfig;
  /** `2026-01-05|eu`. */
  readonly key: string;
  /** The time dimension's period, or null without a time dimension. */
  readonly time: TimePartition | null;
  /** The dimensions' partitions, in declared order. */
  readonly parts: readonly DimensionPartition[];
  #dimensions: readonly MultiPartitionPart[] | undefined;
  #keys: Readonly<Record<N, string>> | undefined;
  #value: Readonly<Record<string, Date | string>> | undefined;
  #window: MultiPartitionWindow | undefined;

  constructor(config: MultiPartitionConfig, parts: readonly DimensionPartition[]) {
    super();
    const dims = config.dimensions;
    if (!Array.isArray(parts) || parts.length !== dims.length) {
      throw new PartitionError(
        `multi partition of ${config.shape}: expected ${dims.length} dimension partitions in declared order, got ${parts?.length}`,
      );
    }
    let time: TimePartition | null = null;
    dims.forEach((d, i) => {
      const part = parts[i];
      const fits =
        d.kind === "time"
          ? part instanceof TimePartition && part.granularity === config.granularity
          : part instanceof ListPartition && config.hasListValue(d.name, part.value);
      if (!fits) {
        throw new PartitionError(
          `multi partition of ${config.shape}: dimension "${d.name}" expected ${d.kind === "time" ? `a ${config.granularity!.name} partition` : "a declared list value"}, got ${String(part)}`,
        );
      }
      if (part instanceof TimePartition) time = part;
    });
    this.config = config;
    this.parts = Object.freeze([...parts]);
    this.key = parts.map((p) => p.key).join("|");
    this.time = time;
  }

  /** Each dimension's name, column, key and value, in declared order (made on first use). */
  get dimensions(): readonly MultiPartitionPart[] {
    return (this.#dimensions ??= Object.freeze(
      this.config.dimensions.map((d, i) => {
        const partition = this.parts[i]!;
        return Object.freeze({ name: d.name, kind: d.kind, column: d.column, key: partition.key, value: partition.value, partition });
      }),
    ));
  }

  /** The dimensions' keys by name: `{ date: "2026-01-05", region: "eu" }`. */
  get keys(): Readonly<Record<N, string>> {
    return (this.#keys ??= Object.freeze(Object.fromEntries(this.config.dimensions.map((d, i) => [d.name, this.parts[i]!.key]))) as Record<
      N,
      string
    >);
  }

  /** The dimensions' values by name: the period start (a Date) for time, the value for a list. */
  get value(): Readonly<Record<string, Date | string>> {
    return (this.#value ??= Object.freeze(Object.fromEntries(this.config.dimensions.map((d, i) => [d.name, this.parts[i]!.value]))));
  }

  /** The start of the time dimension's period (a copy), or undefined without a time dimension. */
  get partitionDate(): Date | undefined {
    return this.time ? new Date(this.time.value.getTime()) : undefined;
  }

  /** The window of this partition alone, made once: a backfill asks for it at every step. */
  get window(): MultiPartitionWindow {
    return (this.#window ??= this.config.windowOf(this));
  }

  /**
   * Whether a row belongs to this partition: every dimension's column holds a value of it. A
   * multi partition is chosen by several columns, so it reads the whole row, not one value.
   */
  contains(row: unknown): boolean {
    if (typeof row !== "object" || row === null) return false;
    const record = row as Readonly<Record<string, unknown>>;
    return this.config.dimensions.every((d, i) => this.parts[i]!.contains(record[d.column]));
  }

  /** The rows of this partition, by every dimension's column (`_column` is the config's joined one). */
  override slice<R extends Readonly<Record<string, unknown>>>(rows: readonly R[], _column?: string): R[] {
    return rows.filter((row) => this.contains(row));
  }

  /** The filter of the dimension whose column is `column`; PartitionError for another column (see `filters`). */
  filter(column: string): PartitionFilter {
    const index = this.config.dimensions.findIndex((d) => d.column === column);
    if (index < 0) {
      throw new PartitionError(
        `multi partition "${this.key}" has no dimension on the column ${JSON.stringify(column)}: expected one of ${this.config.columns.join(", ")} (filters() gives one filter per dimension)`,
      );
    }
    return this.parts[index]!.filter(column);
  }

  /** One filter per dimension, each on its own column, in declared order: a row must pass all. */
  filters(): PartitionFilter[] {
    return this.config.dimensions.map((d, i) => this.parts[i]!.filter(d.column));
  }
}
