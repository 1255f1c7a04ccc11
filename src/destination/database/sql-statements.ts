import type { PartitionFilter, TimeGranularity } from "../../partitioning/index.js";
import type { PartitionWhere } from "./partition-keys.js";
import { type Row, setOwn } from "../../representation/index.js";
import { ROW_COLUMN, type SqlDialect } from "./sql-dialect.js";

/*
 * The statements every built-in SQL backend shares, written once over its SqlDialect: the
 * dialect gives the pieces (names, placeholders, types, time expressions), these assemble them.
 */

type Columns = ReadonlyMap<string, string>;

/** A PartitionFilter as SQL over a table of `columns`, its values appended to `params`. */
export function filterSql(dialect: SqlDialect, where: PartitionFilter, columns: Columns, params: unknown[]): string {
  const type = columns.get(where.column);
  // A column the table lacks holds no partition's rows.
  if (type === undefined) return "1 = 0";
  const column = dialect.quote(where.column);
  const bind = (value: unknown) => {
    params.push(value);
    return dialect.param(params.length);
  };
  if ("value" in where) return `${column} = ${bind(where.value)}`;
  if ("values" in where) return where.values.length === 0 ? "1 = 0" : `${column} IN (${where.values.map(bind).join(", ")})`;
  const operand = dialect.timeOperand(column, type);
  return `${operand} >= ${bind(dialect.timeBound(where.start, type))} AND ${operand} < ${bind(dialect.timeBound(where.end, type))}`;
}

/** A filter, or several that must all hold (a multi partition's), as SQL over a table of `columns`. */
export function whereSql(dialect: SqlDialect, where: PartitionWhere, columns: Columns, params: unknown[]): string {
  if (!isFilterList(where)) return filterSql(dialect, where, columns, params);
  return where.length === 0 ? "1 = 1" : where.map((filter) => `(${filterSql(dialect, filter, columns, params)})`).join(" AND ");
}

function isFilterList(where: PartitionWhere): where is readonly PartitionFilter[] {
  return Array.isArray(where);
}

/** The statement creating a table: the hidden insertion-order column, then `columns` (each "name type", quoted). */
export function createTableStatement(dialect: SqlDialect, qualified: string, columns: readonly string[]): string {
  return `CREATE TABLE IF NOT EXISTS ${qualified} (${[dialect.rowColumn(), ...columns].join(", ")})`;
}

/** The statement adding a column ("name type", quoted) to a table: every column is nullable. */
export function addColumnStatement(qualified: string, column: string): string {
  return `ALTER TABLE ${qualified} ADD COLUMN ${column}`;
}

/**
 * The multi-row INSERT of `fields`' columns into a table, as a function of its number of rows:
 * one tuple of `?` placeholders per row (MySQL, SQLite), the values bound row by row in field
 * order.
 */
export function multiRowInsert(
  dialect: SqlDialect,
  table: string,
  dataset: string | null,
  fields: readonly { name: string }[],
): (rows: number) => string {
  const names = fields.map((field) => dialect.quote(field.name)).join(", ");
  const head = `INSERT INTO ${dialect.table(table, dataset)} (${names}) VALUES `;
  const tuple = `(${fields.map(() => "?").join(", ")})`;
  return (rows) => head + new Array<string>(rows).fill(tuple).join(", ");
}

/** The statement dropping a table, its indexes and comment with it. */
export function dropTableStatement(dialect: SqlDialect, table: string, dataset: string | null): string {
  return `DROP TABLE IF EXISTS ${dialect.table(table, dataset)}`;
}

/** The statement dropping an index by its (quoted) name. */
export function dropIndexStatement(name: string): string {
  return `DROP INDEX IF EXISTS ${name}`;
}

/** The statement deleting the rows `where` selects, every row when null. */
export function deleteStatement(
  dialect: SqlDialect,
  table: string,
  dataset: string | null,
  where: PartitionWhere | null,
  columns: Columns,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const condition = where ? ` WHERE ${whereSql(dialect, where, columns, params)}` : "";
  return { sql: `DELETE FROM ${dialect.table(table, dataset)}${condition}`, params };
}

/**
 * The statement counting a column's rows per stored value (`v`, counted in `n`); with `others`
 * (the list columns of a multi partitioning), per combination, their values in `k0`, `k1`, ...
 */
export function countStatement(
  dialect: SqlDialect,
  table: string,
  dataset: string | null,
  column: string,
  others: readonly string[] = [],
): string {
  const all = [column, ...others].map((name) => dialect.quote(name));
  const keys = all
    .slice(1)
    .map((c, i) => `, ${c} AS ${dialect.quote(`k${i}`)}`)
    .join("");
  const from = `FROM ${dialect.table(table, dataset)} WHERE ${all.map((c) => `${c} IS NOT NULL`).join(" AND ")}`;
  return `SELECT ${all[0]} AS v${keys}, COUNT(*) AS n ${from} GROUP BY ${all.join(", ")}`;
}

/**
 * The statement reading the columns `names` of the rows `where` selects, in insertion order.
 * Drivers build a row by assigning its column names: a "__proto__" column sets the row's
 * prototype (better-sqlite3) or is refused (mysql2, which refuses a few more of
 * Object.prototype's names). When a name is one of those, every column is selected under a
 * positional alias (`aliased`), and `namedRow` rebuilds the rows with their names as own fields.
 */
export function selectStatement(
  dialect: SqlDialect,
  table: string,
  dataset: string | null,
  names: readonly string[],
  where: PartitionWhere | null,
  columns: Columns,
): { sql: string; params: unknown[]; aliased: boolean } {
  const q = (name: string) => dialect.quote(name);
  const params: unknown[] = [];
  const condition = where ? ` WHERE ${whereSql(dialect, where, columns, params)}` : "";
  const aliased = names.some((name) => name in Object.prototype);
  const list = names.length === 0 ? q(ROW_COLUMN) : names.map((name, i) => (aliased ? `${q(name)} AS ${q(`c${i}`)}` : q(name))).join(", ");
  return { sql: `SELECT ${list} FROM ${dialect.table(table, dataset)}${condition} ORDER BY ${q(ROW_COLUMN)}`, params, aliased };
}

/** A row selected under positional aliases (`c0`, `c1`, ...), with its columns' names back. */
export function namedRow(row: Row, names: readonly string[]): Row {
  const out: Row = {};
  for (let i = 0; i < names.length; i++) setOwn(out, names[i]!, row[`c${i}`]);
  return out;
}

/**
 * The statement counting a column's rows per period of a granularity: each row comes back as
 * its period's start where the dialect computes it exactly, else as its value (see PeriodSql),
 * in one column `v` (text columns) or in `p` and `v`; `others` (a multi partitioning's list
 * columns) are grouped too, in `k0`, `k1`, ... Null when the dialect groups no column of this
 * type by period.
 */
export function periodCountStatement(
  dialect: SqlDialect,
  table: string,
  dataset: string | null,
  column: string,
  catalogType: string,
  granularity: TimeGranularity,
  others: readonly string[] = [],
): string | null {
  const c = dialect.quote(column);
  const period = dialect.period(c, catalogType, granularity);
  if (!period) return null;
  const { exact, start, render } = period;
  const quoted = others.map((name) => dialect.quote(name));
  const names = quoted.map((_, i) => dialect.quote(`k${i}`));
  const keys = quoted.map((o, i) => `, ${o} AS ${names[i]}`).join("");
  const from = ` FROM ${dialect.table(table, dataset)} WHERE ${[c, ...quoted].map((o) => `${o} IS NOT NULL`).join(" AND ")}`;
  const by = (first: number) => Array.from({ length: first + quoted.length }, (_, i) => i + 1).join(", ");
  if (period.text)
    return `SELECT CASE WHEN ${exact} THEN ${render(start)} ELSE ${c} END AS v${keys}, COUNT(*) AS n${from} GROUP BY ${by(1)}`;
  // Grouped on the start itself, rendered once per period.
  const grouped = `SELECT CASE WHEN ${exact} THEN ${start} END AS p, CASE WHEN ${exact} THEN NULL ELSE ${c} END AS v${keys}, COUNT(*) AS n${from} GROUP BY ${by(2)}`;
  const outer = names.map((name) => `, periods.${name} AS ${name}`).join("");
  return `SELECT ${render("periods.p")} AS p, periods.v AS v${outer}, periods.n AS n FROM (${grouped}) AS periods`;
}

/** A short, stable index name: identifiers have length limits and names may be long. */
export function indexName(dataset: string | null, table: string, column: string): string {
  let hash = 0x811c9dc5;
  for (const ch of JSON.stringify([dataset, table, column])) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `il_idx_${hash.toString(16).padStart(8, "0")}`;
}
