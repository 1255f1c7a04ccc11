import { PartitionError } from "../../errors.js";
import type { PartitionWindow } from "../../partitioning/index.js";
import { RowsTable, type TableData } from "../../representation/index.js";
import { count } from "../../text/english.js";
import type { IOLogger } from "../io-context.js";

function sampleText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : JSON.stringify(value);
}

/**
 * Checks, in one pass over the partition column, that every row belongs to the window before
 * anything is deleted. A table without the column at all (every value null) is written, with a
 * warning to `logger`, as the spec asks: downstream reads by partition will find nothing. Any
 * other row outside the window is a PartitionError.
 */
export function checkWindowRows(
  assetKey: string,
  owner: string,
  table: TableData,
  window: PartitionWindow,
  column: string,
  logger: IOLogger,
): void {
  if (table.length === 0) return;
  // Rows are read in place: `values` would copy the column into an array as long as the table
  // (a million rows: 8 MB and more time than this loop). A name Object.prototype also has must
  // be an own field, which `values` checks.
  const rows = table instanceof RowsTable && !(column in Object.prototype) ? table.rows : null;
  const values = rows ? null : table.values(column);
  let outside = 0;
  let nulls = 0;
  const sample: unknown[] = [];
  // Partition columns repeat few values: each distinct string is looked up once.
  const seen = new Map<string, boolean>();
  for (let i = 0; i < table.length; i++) {
    const value = rows ? rows[i]![column] : values![i];
    if (value === null || value === undefined) nulls++;
    else if (typeof value === "string") {
      let inside = seen.get(value);
      if (inside === undefined) seen.set(value, (inside = window.keyOf(value) !== null));
      if (inside) continue;
    } else if (window.keyOf(value) !== null) continue;
    outside++;
    if (sample.length < 3) sample.push(value ?? null);
  }
  if (outside === 0) return;
  if (nulls === table.length) {
    const scope = window.length === 1 ? `partition ${String(window)}` : `the partitions of ${String(window)}`;
    logger.warn(
      `asset "${assetKey}": the data written to ${owner} has no "${column}" column, so reads of ${scope} will not find ${table.length === 1 ? "this row" : `these ${count(table.length, "row")}`}`,
    );
    return;
  }
  throw new PartitionError(
    `asset "${assetKey}": ${count(outside, "row")} ${outside === 1 ? "has" : "have"} a "${column}" value outside the window ${String(window)} (${sample.map(sampleText).join(", ")}); rows must carry their partition's value`,
  );
}
