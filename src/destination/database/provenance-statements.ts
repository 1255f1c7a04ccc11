import { entryPrefix, PARTITION_ENTRY, PARTITION_TABLE } from "./partition-table.js";
import { ROW_COLUMN, type SqlDialect } from "./sql-dialect.js";

/*
 * The statements of the materialization records (see provenance-tables.ts), written once over
 * the SqlDialect as sql-statements.ts's are. An asset's entries are found by their prefix
 * (`entryPrefix`), compared with `substr`, which the three backends spell alike and which counts
 * characters, as the prefix's length is counted here; the entry columns compare exactly (binary
 * text), so the prefix of "orders" never matches "Orders".
 */

/** The history table, one per dataset beside the partition table: a row per partition write. */
export const HISTORY_TABLE = "_interloper_materializations";
/** The column of both tables holding a record's JSON. */
export const RECORD = "record";
/** The history's indexed column: a digest of the entry (an entry may be longer than an index takes). */
export const SLOT = "slot";
/**
 * The history's order: when the write ended, in milliseconds since 1970, as the writer's clock
 * said, but never before the rows of its partition already stored (see `SqlProvenance.record`):
 * the order writes of a partition committed in, whatever their writers' clocks.
 */
export const ENDED = "ended";

type Statement = { readonly sql: string; readonly params: unknown[] };

/** A condition selecting the entries of one asset's table (every partition of it). */
function ofTable(dialect: SqlDialect, table: string, params: unknown[]): string {
  const prefix = entryPrefix(table);
  params.push(prefix);
  return `substr(${dialect.quote(PARTITION_ENTRY)}, 1, ${[...prefix].length}) = ${dialect.param(params.length)}`;
}

/** `column IN (...)` of bound values. */
function among(dialect: SqlDialect, column: string, values: readonly unknown[], params: unknown[]): string {
  const marks = values.map((value) => {
    params.push(value);
    return dialect.param(params.length);
  });
  return `${dialect.quote(column)} IN (${marks.join(", ")})`;
}

/**
 * The current records (entry, record) of an asset's table: of the given entries, or of every
 * entry of the table when null. One statement, whatever the window.
 */
export function currentRecordsStatement(
  dialect: SqlDialect,
  table: string,
  dataset: string | null,
  entries: readonly string[] | null,
): Statement {
  const params: unknown[] = [];
  const which = entries === null ? ofTable(dialect, table, params) : among(dialect, PARTITION_ENTRY, entries, params);
  const q = (name: string) => dialect.quote(name);
  return {
    sql: `SELECT ${q(PARTITION_ENTRY)}, ${q(RECORD)} FROM ${dialect.table(PARTITION_TABLE, dataset)} WHERE ${q(RECORD)} IS NOT NULL AND ${which}`,
    params,
  };
}

/**
 * The newest `limit` records of the history of one entry (its slot and entry given), or of
 * every entry of the table (null), newest first: by end, then by insertion.
 */
export function historyStatement(
  dialect: SqlDialect,
  table: string,
  dataset: string | null,
  one: { readonly slot: string; readonly entry: string } | null,
  limit: number,
): Statement {
  const q = (name: string) => dialect.quote(name);
  const params: unknown[] = [];
  let which: string;
  if (one === null) which = ofTable(dialect, table, params);
  else {
    params.push(one.slot, one.entry);
    which = `${q(SLOT)} = ${dialect.param(1)} AND ${q(PARTITION_ENTRY)} = ${dialect.param(2)}`;
  }
  return {
    sql: `SELECT ${q(PARTITION_ENTRY)}, ${q(RECORD)} FROM ${dialect.table(HISTORY_TABLE, dataset)} WHERE ${which} ORDER BY ${q(ENDED)} DESC, ${q(ROW_COLUMN)} DESC LIMIT ${Math.trunc(limit)}`,
    params,
  };
}

/** The latest order (ENDED) stored for each of the given slots, as rows (slot, latest). */
export function latestStatement(dialect: SqlDialect, dataset: string | null, slots: readonly string[]): Statement {
  const q = (name: string) => dialect.quote(name);
  const params: unknown[] = [];
  return {
    sql: `SELECT ${q(SLOT)}, MAX(${q(ENDED)}) AS ${q("latest")} FROM ${dialect.table(HISTORY_TABLE, dataset)} WHERE ${among(dialect, SLOT, slots, params)} GROUP BY ${q(SLOT)}`,
    params,
  };
}

/**
 * Deletes the history of the given slots past its newest `keep` rows. The rows are ranked in a
 * derived table, which MySQL materializes: it refuses a DELETE whose subquery reads the table
 * deleted from directly.
 */
export function pruneStatement(dialect: SqlDialect, dataset: string | null, slots: readonly string[], keep: number): Statement {
  const q = (name: string) => dialect.quote(name);
  const params: unknown[] = [];
  const history = dialect.table(HISTORY_TABLE, dataset);
  const ranked =
    `SELECT ${q(ROW_COLUMN)} AS r, ROW_NUMBER() OVER (PARTITION BY ${q(SLOT)} ORDER BY ${q(ENDED)} DESC, ${q(ROW_COLUMN)} DESC) AS n` +
    ` FROM ${history} WHERE ${among(dialect, SLOT, slots, params)}`;
  return {
    sql: `DELETE FROM ${history} WHERE ${q(ROW_COLUMN)} IN (SELECT ranked.r FROM (${ranked}) AS ranked WHERE ranked.n > ${Math.trunc(keep)})`,
    params,
  };
}

/** Deletes every entry of an asset's table from `internal`, the partition table or the history. */
export function forgetTableStatement(dialect: SqlDialect, internal: string, table: string, dataset: string | null): Statement {
  const params: unknown[] = [];
  return { sql: `DELETE FROM ${dialect.table(internal, dataset)} WHERE ${ofTable(dialect, table, params)}`, params };
}
