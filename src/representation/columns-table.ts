import { registerRepresentation } from "./registry.js";
import type { Representation } from "./registry.js";
import { setOwn } from "./own-field.js";
import { isPlainObject } from "./rows-table.js";
import { TableData } from "./table-data.js";
import type { Columns, Row } from "./table-data.js";

/**
 * Whether `data` is meant as a columns table: a plain object with at least one own key, every
 * value an array. Lengths are not compared here: unequal ones are a malformed table, refused by
 * the constructor, not a non-tabular value.
 */
export function looksLikeColumns(data: unknown): data is Columns {
  if (!isPlainObject(data)) return false;
  let any = false;
  for (const key in data) {
    if (!Array.isArray(data[key])) return false;
    any = true;
  }
  return any;
}

/** A table stored as `{ column: values[] }`, every column of the same length. */
export class ColumnsTable extends TableData<Columns> {
  readonly kind = "columns";
  readonly data: Columns;
  readonly length: number;
  private readonly names: string[];

  /**
   * Wraps `data`; a TypeError naming every column and its length when the lengths differ.
   * `length` is for a table without columns, whose rows cannot be counted from them.
   */
  constructor(data: Columns, length?: number) {
    super();
    this.names = Object.keys(data);
    const lengths = this.names.map((name) => data[name]!.length);
    if (lengths.some((n) => n !== lengths[0])) {
      const listed = this.names.map((name, i) => `${name} (${lengths[i]})`).join(", ");
      throw new TypeError(`columns table with columns of unequal lengths: ${listed}`);
    }
    this.data = data;
    this.length = lengths[0] ?? length ?? 0;
  }

  /** The rows as new plain objects, keys in column order. */
  get rows(): Row[] {
    const names = this.names;
    const cols = names.map((name) => this.data[name]!);
    const out = new Array<Row>(this.length);
    for (let i = 0; i < this.length; i++) {
      const row: Row = {};
      for (let c = 0; c < names.length; c++) setOwn(row, names[c]!, cols[c]![i]);
      out[i] = row;
    }
    return out;
  }

  columns(): string[] {
    return [...this.names];
  }

  values(column: string): readonly unknown[] {
    return Object.hasOwn(this.data, column) ? this.data[column]! : new Array<unknown>(this.length).fill(null);
  }

  take(indices: readonly number[]): ColumnsTable {
    const out: Columns = {};
    for (const name of this.names) {
      const col = this.data[name]!;
      const picked = new Array<unknown>(indices.length);
      for (let j = 0; j < indices.length; j++) picked[j] = col[indices[j]!];
      setOwn(out, name, picked);
    }
    return new ColumnsTable(out, indices.length);
  }

  /** Columns are the union in first-appearance order; a table lacking one contributes nulls. */
  protected concat(others: readonly TableData<Columns>[]): ColumnsTable {
    const tables = [this, ...others];
    const names = new Set<string>();
    let total = 0;
    for (const table of tables) {
      for (const name of table.columns()) names.add(name);
      total += table.length;
    }
    const out: Columns = {};
    for (const name of names) {
      const merged = new Array<unknown>(total);
      let at = 0;
      for (const table of tables) {
        const col = table.values(name);
        for (let i = 0; i < col.length; i++) merged[at++] = col[i];
      }
      setOwn(out, name, merged);
    }
    return new ColumnsTable(out, total);
  }
}

/** Builds columns from any table: its column names in order, each column's cells copied. */
function columnsFromTable(table: TableData): ColumnsTable {
  const out: Columns = {};
  for (const name of table.columns()) setOwn(out, name, Array.from(table.values(name)));
  return new ColumnsTable(out, table.length);
}

/** The columns shape: `{ column: values[] }`, columns of equal length; `{}` is not a table. */
export const columnsRepresentation: Representation<Columns> = {
  kind: "columns",
  detect: looksLikeColumns,
  wrap: (data) => new ColumnsTable(data),
  fromTable: columnsFromTable,
};

registerRepresentation(columnsRepresentation);
