import { ConfigError } from "../../../errors.js";
import { instantOf } from "../../../partitioning/dates.js";
import { formatIsoDate } from "../../../schema/index.js";
import { quoteBacktick, type SqlDialect, type StorageKind, utcDateTimeText } from "../sql-dialect.js";

const MAX_IDENTIFIER = 64;
/** MySQL caps a table comment at 2048 characters. */
export const MAX_COMMENT = 2048;

function quote(identifier: string): string {
  if (identifier.length > MAX_IDENTIFIER) throw new ConfigError(`MySQL identifier ${JSON.stringify(identifier)} is longer than ${MAX_IDENTIFIER} characters`);
  return quoteBacktick(identifier);
}

// TEXT cannot be indexed without a prefix length: a partition column that holds text is VARCHAR.
function columnType(kind: StorageKind, key: boolean): string {
  switch (kind) {
    case "string":
      return key ? "VARCHAR(255)" : "TEXT";
    case "zoned":
      return key ? "VARCHAR(64)" : "TEXT";
    case "integer":
      return "BIGINT";
    case "number":
      return "DOUBLE";
    case "boolean":
      return "BOOLEAN";
    case "date":
      return "DATE";
    case "instant":
      // Stored in UTC: the session time zone is "+00:00" and values are sent as UTC text.
      return "DATETIME(3)";
    case "json":
      return "JSON";
  }
}

/** Catalog COLUMN_TYPE (or a type we create) reduced to a family. MariaDB's JSON is LONGTEXT. */
function family(type: string): string {
  const t = type.trim().toLowerCase();
  if (t === "json" || t === "longtext") return "json";
  if (/^(varchar|char|text|mediumtext|tinytext)\b/.test(t)) return "text";
  if (t === "boolean" || t === "bool" || t.startsWith("tinyint(1)")) return "boolean";
  if (t.startsWith("bigint")) return "bigint";
  if (t.startsWith("datetime")) return "datetime";
  return t.replace(/\(.*$/, "");
}

/**
 * The UTC instant of ISO text in SQL. MariaDB ignores an offset when casting, so the offset
 * (Z, +HH:MM, +HHMM or +HH) is cut off and applied with CONVERT_TZ, which takes numeric
 * offsets without time zone tables; plain dates and zoneless text cast as UTC.
 */
export function instantOfText(c: string): string {
  const cut = (n: string) => `CAST(LEFT(${c}, CHAR_LENGTH(${c}) - ${n}) AS DATETIME(6))`;
  return (
    `(CASE WHEN ${c} REGEXP '[Zz]$' THEN ${cut("1")}` +
    ` WHEN ${c} REGEXP 'T[0-9:.,]*[+-][0-9]{2}:[0-9]{2}$' THEN CONVERT_TZ(${cut("6")}, RIGHT(${c}, 6), '+00:00')` +
    ` WHEN ${c} REGEXP 'T[0-9:.,]*[+-][0-9]{4}$' THEN CONVERT_TZ(${cut("5")}, CONCAT(LEFT(RIGHT(${c}, 5), 3), ':', RIGHT(${c}, 2)), '+00:00')` +
    ` WHEN ${c} REGEXP 'T[0-9:.,]*[+-][0-9]{2}$' THEN CONVERT_TZ(${cut("3")}, CONCAT(RIGHT(${c}, 3), ':00'), '+00:00')` +
    ` ELSE CAST(${c} AS DATETIME(6)) END)`
  );
}

/** MySQL's SQL: backtick names, `?` placeholders; the dataset is the database. */
export const mysqlDialect: SqlDialect = {
  quote,
  table: (table, dataset) => (dataset === null ? quote(table) : `${quote(dataset)}.${quote(table)}`),
  param: () => "?",
  columnType,
  family,
  rowColumn: () => `${quote("_interloper_row")} BIGINT AUTO_INCREMENT PRIMARY KEY`,
  timeOperand: (column, type) => (family(type) === "text" ? instantOfText(column) : column),
  timeBound: (bound, type) => (family(type) === "date" ? formatIsoDate(bound) : utcDateTimeText(bound)),
};

/** A string literal for the one place SQL takes no parameter (a table COMMENT). */
export function mysqlLiteral(text: string): string {
  if (text.includes("\0")) throw new ConfigError("a MySQL comment cannot hold a NUL character");
  return `'${text.slice(0, MAX_COMMENT).replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** A conformed value as a bound MySQL parameter for a storage kind. */
export function mysqlValue(kind: StorageKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "integer":
      // Sent as text, BIGINT takes every 64-bit value whole.
      return typeof value === "bigint" ? value.toString() : value;
    case "boolean":
      return value ? 1 : 0;
    case "date":
      return value instanceof Date ? formatIsoDate(value) : value;
    case "instant":
      return utcDateTimeText(value instanceof Date ? value : new Date(instantOf(value)));
    case "zoned":
      return value instanceof Date ? value.toISOString() : value;
    case "json":
      return JSON.stringify(value);
    case "string":
      return typeof value === "string" ? value : String(value);
    default:
      return value;
  }
}
