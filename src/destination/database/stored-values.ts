import type { Row } from "../../representation/index.js";
import type { SqlDialect } from "./sql-dialect.js";

/**
 * The column types whose values a driver hands back otherwise than the rows held them:
 * PostgreSQL's bigint and numeric and MySQL's BIGINT and DECIMAL as text (so that no digit is
 * lost), MySQL's BOOLEAN and SQLite's BOOLEAN as 0 and 1, SQLite's DATETIME (written from
 * `Date`s) as ISO text.
 */
export type StoredKind = "integer" | "decimal" | "boolean" | "instant";

const INTEGER_TEXT = /^-?\d+$/;

/** An integer's text as a number when it is a safe integer, else as a bigint (nothing rounded). */
function integerOf(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

/** One value read from a column of `kind`, in the type it was stored from; null and other values as they are. */
export function restoreStored(kind: StoredKind, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (kind === "instant") return typeof value === "string" && !Number.isNaN(Date.parse(value)) ? new Date(value) : value;
  if (kind === "boolean") return typeof value === "number" ? value !== 0 : typeof value === "bigint" ? value !== 0n : value;
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  if (typeof value !== "string") return value;
  if (INTEGER_TEXT.test(value)) return integerOf(value);
  // A fraction as the nearest double, as a number column reads it.
  return kind === "decimal" && Number.isFinite(Number(value)) ? Number(value) : value;
}

/** The rows with each column of a known kind restored, in place (they are the driver's own). */
export function restoreStoredRows(rows: Row[], kinds: ReadonlyMap<string, StoredKind>): Row[] {
  if (kinds.size === 0) return rows;
  const columns = [...kinds];
  for (const row of rows) {
    for (const [name, kind] of columns) if (Object.hasOwn(row, name)) row[name] = restoreStored(kind, row[name]);
  }
  return rows;
}

/** The columns of a table (name -> catalog type) whose values a read restores, by name. */
export function storedKinds(columns: ReadonlyMap<string, string>, dialect: Pick<SqlDialect, "storedKind">): Map<string, StoredKind> {
  const kinds = new Map<string, StoredKind>();
  for (const [name, type] of columns) {
    const kind = dialect.storedKind(type);
    if (kind !== null) kinds.set(name, kind);
  }
  return kinds;
}
