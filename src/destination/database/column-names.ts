import { SchemaError } from "../../errors.js";
import type { FieldSpec } from "../../schema/index.js";
import { ROW_COLUMN, type SqlDialect } from "./sql-dialect.js";

/** Where a table's columns are checked: for messages. */
export interface ColumnsOf {
  /** The destination's display name. */
  readonly destination: string;
  readonly asset: string;
  readonly table: string;
}

/**
 * Refuses, before anything is written, fields the backend would store as one column: two fields
 * whose names differ only in case where its column names ignore case (SQLite, MySQL), a field
 * that would be an existing column of another name, and the reserved insertion-order column.
 * Such a write would fail half-way, or put one field's values in another's column.
 */
export function checkColumnNames(
  dialect: SqlDialect,
  where: ColumnsOf,
  fields: readonly FieldSpec[],
  existing: ReadonlyMap<string, string> | null,
): void {
  const key = (name: string) => dialect.columnKey(name);
  const why = `${where.destination} column names ignore case`;
  const reserved = fields.find((field) => key(field.name) === key(ROW_COLUMN));
  if (reserved) {
    throw new SchemaError(
      `${where.destination}: column "${reserved.name}" of asset "${where.asset}" is reserved for insertion order (table ${where.table}); rename the field`,
    );
  }
  const seen = new Map<string, string>();
  for (const field of fields) {
    const other = seen.get(key(field.name));
    if (other !== undefined && other !== field.name) {
      throw new SchemaError(
        `${where.destination}: fields "${other}" and "${field.name}" of asset "${where.asset}" would be one column of table ${where.table} (${why}); rename one of them`,
      );
    }
    seen.set(key(field.name), field.name);
  }
  if (!existing) return;
  for (const field of fields) {
    if (existing.has(field.name)) continue;
    const column = [...existing.keys()].find((name) => key(name) === key(field.name));
    if (column !== undefined) {
      throw new SchemaError(
        `${where.destination}: field "${field.name}" of asset "${where.asset}" would be the existing column "${column}" of table ${where.table} (${why}); rename the field to "${column}" or to a distinct name`,
      );
    }
  }
}

/**
 * After columns were added: each must be there under its own name. A backend that takes a new
 * name for an existing column's (by rules of case `columnKey` does not know) reports the
 * column a duplicate, which reads as a concurrent writer having added it first.
 */
export function checkAdded(where: ColumnsOf, added: readonly FieldSpec[], columns: ReadonlyMap<string, string>): void {
  const missing = added.find((field) => !columns.has(field.name));
  if (missing) {
    throw new SchemaError(
      `${where.destination}: column "${missing.name}" of asset "${where.asset}" could not be added to table ${where.table}: ${where.destination} takes its name for an existing column's (column names ignoring case); rename the field`,
    );
  }
}
