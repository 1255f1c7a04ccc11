import type { Partition, PartitionWindow } from "../partitioning/base.js";
import { MultiPartition } from "../partitioning/multi-partition.js";
import { MultiPartitionWindow } from "../partitioning/multi-window.js";
import { indicesByMultiPartition, indicesByPartition, indicesInMultiPartition, indicesInPartition } from "./partition-lookup.js";
import { detectRepresentation, representation } from "./registry.js";

/** One row as a plain object: column name to cell value. */
export type Row = Record<string, unknown>;

/** A table as named columns of equal length: the TypeScript stand-in for a data frame. */
export type Columns = Record<string, unknown[]>;

/**
 * The native value of each kind, as `table.to(kind)` returns it. A registered shape may add
 * itself by declaration merging: `declare module "interloper" { interface NativeKinds { ... } }`.
 */
export interface NativeKinds {
  rows: Row[];
  columns: Columns;
}

/** A table cut by the partitions of a window, as `TableData.split` returns it. */
export interface TableSplit<N = unknown> {
  /** One slice per partition, in window order; a partition without rows gets an empty slice. */
  readonly slices: Array<[Partition, TableData<N>]>;
  /** How many rows no partition of the window holds (they are in no slice). */
  readonly outside: number;
  /** The partition-column values of the first few (at most 3) of those rows, for messages. */
  readonly outsideSample: readonly unknown[];
}

/**
 * A table in one of the registered shapes (rows, columns, ...), wrapping its native value.
 * Subclasses supply storage primitives (`values`, `take`, `concat`); slicing by partition,
 * splitting by window, joining and conversion are built on them here, once for every shape.
 */
export abstract class TableData<N = unknown> {
  /** The shape's registered name: "rows", "columns", ... */
  abstract readonly kind: string;
  /** The native value this table wraps (not a copy). */
  abstract readonly data: N;
  /** The number of rows. */
  abstract readonly length: number;
  /** The rows as plain objects (materialised for shapes that do not store rows). */
  abstract readonly rows: Row[];
  /** The column names, in order of first appearance. */
  abstract columns(): string[];
  /**
   * One column's cells in row order; cells a row lacks read as null. The result may be the
   * table's own storage: read it, never mutate it.
   */
  abstract values(column: string): readonly unknown[];
  /** A table of the same kind holding the rows at `indices`, in that order. */
  abstract take(indices: readonly number[]): TableData<N>;
  /** This table followed by `others`, all of this kind, as one new table of this kind. */
  protected abstract concat(others: readonly TableData<N>[]): TableData<N>;

  /** The table as another registered kind's native value: rows, `{ column: values[] }`, ... */
  to<K extends keyof NativeKinds>(kind: K): NativeKinds[K];
  to(kind: string): unknown;
  to(kind: string): unknown {
    if (kind === this.kind) return this.data;
    return representation(kind).fromTable(this).data;
  }

  /**
   * The rows whose `column` value `partition` contains, as a table of the same kind; a multi
   * partition reads every dimension's column (its config's joined `column` is no column).
   */
  slice(partition: Partition, column: string): TableData<N> {
    if (partition instanceof MultiPartition)
      return this.take(indicesInMultiPartition(this.dimensionValues(partition.config.columns), partition));
    return this.take(indicesInPartition(this.values(column), partition));
  }

  /**
   * One slice per partition of `window`, in window order (empty slices included), in a single
   * pass over the rows through `window.keyOf`; rows in no partition are counted in `outside`.
   */
  split(window: PartitionWindow, column: string): TableSplit<N> {
    const { buckets, outside, outsideSample } =
      window instanceof MultiPartitionWindow
        ? indicesByMultiPartition(this.dimensionValues(window.config.columns), window)
        : indicesByPartition(this.values(column), window);
    const partitions = window.partitions;
    const slices: Array<[Partition, TableData<N>]> = [];
    for (let p = 0; p < partitions.length; p++) {
      slices.push([partitions[p]!, this.take(buckets[p]!)]);
    }
    return { slices, outside, outsideSample };
  }

  /** The cells of each column, in order: a multi partitioning's dimension columns. */
  private dimensionValues(columns: readonly string[]): (readonly unknown[])[] {
    return columns.map((name) => this.values(name));
  }

  /**
   * The table that `data` is, in the first registered shape (newest registration first) that
   * claims it; null for non-tabular data. A value shaped like a table but malformed, such as
   * columns of unequal lengths, throws a TypeError instead.
   */
  static from(data: unknown): TableData | null {
    if (data instanceof TableData) return data;
    const shape = detectRepresentation(data);
    return shape === null ? null : shape.wrap(data);
  }

  /**
   * The tables one after another, in the kind of the first (others are converted to it); an
   * empty list gives an empty rows table, and a single table is returned as it is.
   */
  static join(tables: readonly TableData[]): TableData {
    if (tables.length === 0) return representation("rows").wrap([]);
    const first = tables[0]!;
    if (tables.length === 1) return first;
    const shape = representation(first.kind);
    const others: TableData[] = [];
    for (let t = 1; t < tables.length; t++) {
      const table = tables[t]!;
      others.push(table.kind === first.kind ? table : shape.fromTable(table));
    }
    return first.concat(others);
  }
}
