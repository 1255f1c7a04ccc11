import { registerRepresentation } from "./registry.js";
import type { Representation } from "./registry.js";
import { TableData } from "./table-data.js";
import type { Row } from "./table-data.js";

/** Whether `value` is a plain object: `{...}` or `Object.create(null)`, not a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether `data` is an array whose every element is a plain object (`[]` included). */
export function isRows(data: unknown): data is Row[] {
  if (!Array.isArray(data)) return false;
  // An index loop, not every(): every() skips holes, and a hole is not a row.
  for (let i = 0; i < data.length; i++) {
    if (!isPlainObject(data[i])) return false;
  }
  return true;
}

/** A table stored as an array of plain objects. Slices share the row objects; nothing is copied. */
export class RowsTable extends TableData<Row[]> {
  readonly kind = "rows";
  readonly data: Row[];

  constructor(data: Row[]) {
    super();
    this.data = data;
  }

  get length(): number {
    return this.data.length;
  }

  /** The wrapped array itself. */
  get rows(): Row[] {
    return this.data;
  }

  columns(): string[] {
    const seen = new Set<string>();
    const rows = this.data;
    for (let i = 0; i < rows.length; i++) {
      // for-in over a plain object lists its own keys; a null-prototype row has nothing else.
      for (const key in rows[i]) seen.add(key);
    }
    return [...seen];
  }

  values(column: string): unknown[] {
    const rows = this.data;
    const out = new Array<unknown>(rows.length);
    // A name that Object.prototype also has ("constructor", "toString") would read the inherited
    // member from a row lacking the column; only then is the own-property check paid per row.
    if (column in Object.prototype) {
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        out[i] = Object.hasOwn(row, column) ? (row[column] ?? null) : null;
      }
    } else {
      for (let i = 0; i < rows.length; i++) out[i] = rows[i]![column] ?? null;
    }
    return out;
  }

  take(indices: readonly number[]): RowsTable {
    const rows = this.data;
    const out = new Array<Row>(indices.length);
    for (let j = 0; j < indices.length; j++) out[j] = rows[indices[j]!]!;
    return new RowsTable(out);
  }

  protected concat(others: readonly TableData<Row[]>[]): RowsTable {
    let total = this.data.length;
    for (const other of others) total += other.data.length;
    const out = new Array<Row>(total);
    let at = 0;
    for (const table of [this, ...others]) {
      const rows = table.data;
      for (let i = 0; i < rows.length; i++) out[at++] = rows[i]!;
    }
    return new RowsTable(out);
  }
}

/** The rows shape: an array of plain objects; `[]` is an empty table. */
export const rowsRepresentation: Representation<Row[]> = {
  kind: "rows",
  detect: isRows,
  wrap: (data) => new RowsTable(data),
  fromTable: (table) => new RowsTable(table.rows),
};

registerRepresentation(rowsRepresentation);
