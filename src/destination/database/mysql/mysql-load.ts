import type { Row, TableData } from "../../../representation/index.js";
import type { FieldSpec } from "../../../schema/index.js";
import { storageKind } from "../sql-dialect.js";
import { mysqlValue } from "./mysql-values.js";

/** Rows per INSERT at most; fewer for wide tables, so a statement stays far below 65,535 placeholders. */
const MAX_BATCH_ROWS = 1000;
const MAX_PLACEHOLDERS = 60_000;

/**
 * Inserts a non-empty table's rows through `run` in multi-row INSERTs of bound values (`insert`
 * gives the statement of a number of rows), the fields in schema order.
 */
export async function insertBatches(
  run: (sql: string, params: readonly unknown[]) => Promise<Row[]>,
  insert: (rows: number) => string,
  fields: readonly FieldSpec[],
  data: TableData,
): Promise<void> {
  const kinds = fields.map(storageKind);
  const columns = fields.map((field) => data.values(field.name));
  const batch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(MAX_PLACEHOLDERS / fields.length)));
  for (let start = 0; start < data.length; start += batch) {
    const end = Math.min(data.length, start + batch);
    const values: unknown[] = [];
    for (let i = start; i < end; i++)
      for (let j = 0; j < fields.length; j++) values.push(mysqlValue(kinds[j]!, columns[j]![i], fields[j]!.name, i));
    await run(insert(end - start), values);
  }
}
