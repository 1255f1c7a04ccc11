import { TableData } from "../representation/index.js";

/**
 * How many rows a stored value counts as: a table's rows; for anything else, which nothing can
 * count, 1 when there is a value and 0 for null or undefined.
 */
export function rowCountOf(data: unknown): number {
  const table = TableData.from(data);
  if (table) return table.length;
  return data === null || data === undefined ? 0 : 1;
}
