import type BetterSqlite3 from "better-sqlite3";
import type { TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import { storageKind } from "../sql-dialect.js";
import { sqliteFieldWriter } from "./sqlite-dialect.js";

/** Rows an INSERT statement carries: past about a hundred, longer statements gain nothing. */
const ROWS_PER_INSERT = 100;
/** Parameters passed to a statement as arguments rather than as one array (see insertRows). */
const SPREAD_LIMIT = 4_096;
/** SQLite's limit on a statement's parameters (SQLITE_MAX_VARIABLE_NUMBER, since 3.32). */
const MAX_PARAMETERS = 32_766;

/**
 * Inserts a non-empty table's rows with the statements `insertOf` gives for a number of rows,
 * prepared through `prepare` (which keeps them): synchronously, the caller providing
 * the transaction. Rows go in statements of many rows each: binding and stepping a statement
 * costs more than its rows, so one statement per row would double the load's time.
 */
export function insertRows(
  prepare: (sql: string) => BetterSqlite3.Statement,
  insertOf: (rows: number) => string,
  fields: readonly FieldSpec[],
  data: TableData,
): void {
  const width = fields.length;
  // Each field's conversion is chosen here, once a load, not per value.
  const writers = fields.map((field) => sqliteFieldWriter(storageKind(field), field.name));
  const columns = fields.map((field) => data.values(field.name));
  const perStatement = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / width)));
  const statementOf = (rows: number) => prepare(insertOf(rows));
  // A full statement's text is built once a load; only the last, shorter one needs another.
  const full = data.length >= perStatement ? statementOf(perStatement) : null;
  // One parameter array for every full statement: better-sqlite3 binds (copies) the values
  // during run(), so the array is free again when it returns.
  const fullValues = full ? new Array<unknown>(perStatement * width) : null;
  for (let start = 0; start < data.length; start += perStatement) {
    const end = Math.min(data.length, start + perStatement);
    const values = end - start === perStatement && fullValues ? fullValues : new Array<unknown>((end - start) * width);
    // Column by column: one field's writer for all its values in the statement.
    for (let j = 0; j < width; j++) {
      const column = columns[j]!;
      const write = writers[j];
      let at = j;
      for (let i = start; i < end; i++, at += width) {
        const value = column[i];
        values[at] = value === null || value === undefined ? null : write ? write(value, i) : value;
      }
    }
    const insert = values === fullValues ? full! : statementOf(end - start);
    // Values as arguments bind faster than one array (better-sqlite3 reads an array's
    // elements one API call each); a very wide statement's go as the array, off the stack.
    if (values.length <= SPREAD_LIMIT) insert.run(...values);
    else insert.run(values);
  }
}
