import { MultiPartitionWindow, type PartitionWindow } from "../../partitioning/index.js";
import { RowsTable, type TableData } from "../../representation/index.js";
import { outsideWindow, rowsHave, unfindableRows, type IOLogger } from "../io-context.js";

/**
 * Checks, in one pass over the partition column, that every row belongs to the window before
 * anything is deleted. A table without the column at all (every value null) is written, with a
 * warning to `logger`, as the spec asks: downstream reads by partition will find nothing. Any
 * other row outside the window is a PartitionError. Returns the rows of each partition of the
 * window, in window order (what each partition's materialization record holds), counted in the
 * same pass: a second one over a million rows would cost as much as this check.
 */
export function checkWindowRows(
  assetKey: string,
  owner: string,
  table: TableData,
  window: PartitionWindow,
  column: string,
  logger: IOLogger,
): number[] {
  const counts = new Array<number>(window.length).fill(0);
  if (table.length === 0) return counts;
  if (window instanceof MultiPartitionWindow) return checkMultiRows(assetKey, owner, table, window, logger);
  const indexOf = new Map(window.partitions.map((partition, i) => [partition.key, i]));
  // Rows are read in place: `values` would copy the column into an array as long as the table
  // (a million rows: 8 MB and more time than this loop). A name Object.prototype also has must
  // be an own field, which `values` checks.
  const rows = table instanceof RowsTable && !(column in Object.prototype) ? table.rows : null;
  const values = rows ? null : table.values(column);
  let outside = 0;
  let nulls = 0;
  const sample: unknown[] = [];
  // Partition columns repeat few values: each distinct string is looked up once (its partition's
  // index in the window, -1 outside it).
  const seen = new Map<string, number>();
  const indexOfValue = (value: unknown) => {
    const key = window.keyOf(value);
    return key === null ? -1 : (indexOf.get(key) ?? -1);
  };
  for (let i = 0; i < table.length; i++) {
    const value = rows ? rows[i]![column] : values![i];
    let index = -1;
    if (value === null || value === undefined) nulls++;
    else if (typeof value === "string") {
      const known = seen.get(value);
      if (known === undefined) seen.set(value, (index = indexOfValue(value)));
      else index = known;
    } else index = indexOfValue(value);
    if (index >= 0) {
      counts[index]!++;
      continue;
    }
    outside++;
    if (sample.length < 3) sample.push(value ?? null);
  }
  if (outside === 0) return counts;
  if (nulls === table.length) {
    logger.warn(unfindableRows(assetKey, owner, `no "${column}" column`, window, table.length));
    return counts;
  }
  throw outsideWindow(assetKey, rowsHave(outside), [column], window, sample);
}

/**
 * `checkWindowRows` for a multi window: its rows split by every dimension's column (one pass,
 * see TableData.split). A table holding none of the dimensions' columns is written with the
 * same warning; any other row outside the window is a PartitionError naming its values.
 */
function checkMultiRows(assetKey: string, owner: string, table: TableData, window: MultiPartitionWindow, logger: IOLogger): number[] {
  const columns = window.config.columns;
  const split = table.split(window, window.config.column);
  const counts = split.slices.map(([, slice]) => slice.length);
  if (split.outside === 0) return counts;
  const present = table.columns();
  if (!columns.some((column) => present.includes(column))) {
    logger.warn(unfindableRows(assetKey, owner, `none of the columns ${columns.map((c) => `"${c}"`).join(", ")}`, window, table.length));
    return counts;
  }
  throw outsideWindow(assetKey, rowsHave(split.outside), columns, window, split.outsideSample);
}
