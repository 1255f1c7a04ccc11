import { ConfigError } from "../../../errors.js";
import type { TimeGranularity } from "../../../partitioning/index.js";
import { formatIsoDate } from "../../../schema/index.js";
import {
  ISO_TEXT_REGEX,
  KEY_LENGTH,
  KEY_REGEX,
  type KeyShape,
  type KeySql,
  keyStartText,
  notFeb29OfCommonYear,
  type PeriodSql,
  type TextFunctions,
} from "../period-sql.js";
import type { IntegerHold } from "../integer-widening.js";
import { driverCode, quoteBacktick, type SqlDialect, type StorageKind, utcDateTimeText } from "../sql-dialect.js";
import { EXACT_COLLATIONS } from "./mysql-server.js";

const MAX_IDENTIFIER = 64;
const UTF8MB4 = "CHARACTER SET utf8mb4";

/**
 * sql_mode flags that would change what is stored or how the destination's SQL reads: MariaDB's
 * EMPTY_STRING_IS_NULL stores '' as NULL, its ORACLE mode makes DATE a DATETIME, NO_BACKSLASH_ESCAPES
 * and ANSI_QUOTES change string literals, ALLOW_INVALID_DATES stores dates that do not exist.
 */
const DROPPED_MODES = ["ALLOW_INVALID_DATES", "ANSI_QUOTES", "EMPTY_STRING_IS_NULL", "NO_BACKSLASH_ESCAPES", "ORACLE"];
/**
 * sql_mode flags every session has: a value a column cannot hold (text too long, an integer out
 * of range, text the character set has no form for) is an error for every engine, never
 * truncated, clamped or replaced; a table is created with the engine asked for or not at all.
 */
const REQUIRED_MODES = ["STRICT_ALL_TABLES", "NO_ENGINE_SUBSTITUTION"];

/**
 * What each connection runs once, in one statement: utf8mb4 both ways, and the server's own
 * sql_mode with the required flags added and the dropped ones removed (the others, which change
 * nothing the destination stores, are kept as the server has them).
 */
export const SESSION_SETUP =
  "SET NAMES utf8mb4, SESSION sql_mode = TRIM(BOTH ',' FROM CONCAT(" +
  DROPPED_MODES.reduce((modes, mode) => `REPLACE(${modes}, ',${mode},', ',')`, "CONCAT(',', @@SESSION.sql_mode, ',')") +
  `, '${REQUIRED_MODES.join(",")}'))`;
/** MySQL caps a table comment at 2048 characters. */
export const MAX_COMMENT = 2048;

function quote(identifier: string): string {
  if (identifier.length > MAX_IDENTIFIER)
    throw new ConfigError(`MySQL identifier ${JSON.stringify(identifier)} is longer than ${MAX_IDENTIFIER} characters`);
  return quoteBacktick(identifier);
}

/** The characters a partition column of text holds (a list partition's values). */
export const KEY_TEXT_CHARACTERS = 255;

// TEXT cannot be indexed without a prefix length: a partition column that holds text is VARCHAR.
// Text is utf8mb4 whatever the server's or the database's default (latin1 would mangle or refuse
// most of Unicode, MySQL's old "utf8" everything past the BMP). Text a WHERE compares (`exact`:
// a list partition's values, the partition table's entries) has the server's binary NO PAD collation, so
// that every distinct string is its own partition; other text keeps the database's default, which
// queries of the user's own may rely on.
function columnType(kind: StorageKind, key: boolean, exact: boolean, exactCollation: string | null, server: string): string {
  const collate = exact ? ` COLLATE ${exactCollationOf(exactCollation, server)}` : "";
  switch (kind) {
    case "string":
      return `${key ? `VARCHAR(${KEY_TEXT_CHARACTERS})` : "TEXT"} ${UTF8MB4}${collate}`;
    case "zoned":
      return `${key ? "VARCHAR(64)" : "TEXT"} ${UTF8MB4}${collate}`;
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

function exactCollationOf(collation: string | null, server: string): string {
  if (collation !== null) return collation;
  throw new ConfigError(
    `MySQL server ${server} has no binary NO PAD collation (${EXACT_COLLATIONS.join(" or ")}), so partitions such as "x" and "x " would be one; expected MariaDB 10.2 or later, or MySQL 8.0.17 or later`,
  );
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
 * DOUBLE (also spelled REAL, DOUBLE PRECISION; the catalog says "double") holds integers exactly
 * to 2^53, DECIMAL every integer its precision has room for (strict mode refuses the others);
 * FLOAT only to 2^24.
 */
function holdsIntegers(type: string): IntegerHold | null {
  const f = family(type).split(" ")[0];
  return f === "double" ? "double" : f === "decimal" ? "exact" : null;
}

/**
 * The UTC instant of ISO text in SQL. MariaDB ignores an offset when casting, so the offset
 * (Z, +HH:MM, +HHMM or +HH) is cut off and subtracted as minutes (CONVERT_TZ would leave a time
 * outside TIMESTAMP's years 1970..2038 unconverted); plain dates and zoneless text cast as UTC.
 */
export function instantOfText(c: string): string {
  const cut = (n: number) => `CAST(LEFT(${c}, CHAR_LENGTH(${c}) - ${n}) AS DATETIME(6))`;
  // The offset's sign is the first of the last n characters; hours and minutes follow it.
  const minusOffset = (n: number, hours: string, minutes: string) =>
    `DATE_SUB(${cut(n)}, INTERVAL CAST((CASE WHEN LEFT(RIGHT(${c}, ${n}), 1) = '-' THEN -1 ELSE 1 END) * (${hours} * 60 + ${minutes}) AS SIGNED) MINUTE)`;
  return (
    `(CASE WHEN ${c} REGEXP '[Zz]$' THEN ${cut(1)}` +
    ` WHEN ${c} REGEXP 'T[0-9:.,]*[+-][0-9]{2}:[0-9]{2}$' THEN ${minusOffset(6, `SUBSTR(RIGHT(${c}, 5), 1, 2)`, `RIGHT(${c}, 2)`)}` +
    ` WHEN ${c} REGEXP 'T[0-9:.,]*[+-][0-9]{4}$' THEN ${minusOffset(5, `SUBSTR(RIGHT(${c}, 4), 1, 2)`, `RIGHT(${c}, 2)`)}` +
    ` WHEN ${c} REGEXP 'T[0-9:.,]*[+-][0-9]{2}$' THEN ${minusOffset(3, `RIGHT(${c}, 2)`, "0")}` +
    ` ELSE CAST(${c} AS DATETIME(6)) END)`
  );
}

const TEXT_FUNCTIONS: TextFunctions = {
  substr: (text, from, length) => `SUBSTR(${text}, ${from}, ${length})`,
  right: (text, n) => `RIGHT(${text}, ${n})`,
  length: (text) => `CHAR_LENGTH(${text})`,
};

// A key's letter and where it is: the column's collation may ignore case, a code does not.
const KEY_LETTERS: Partial<Record<KeyShape, readonly [position: number, code: number]>> = {
  hour: [11, 84],
  week: [6, 87],
  quarter: [6, 81],
};

const KEY_SQL: KeySql = {
  ...TEXT_FUNCTIONS,
  shaped: (text, shape) => {
    const letter = KEY_LETTERS[shape];
    const code = letter ? ` AND ASCII(SUBSTR(${text}, ${letter[0]}, 1)) = ${letter[1]}` : "";
    return `(CHAR_LENGTH(${text}) = ${KEY_LENGTH[shape]} AND ${text} REGEXP '${KEY_REGEX[shape]}'${code})`;
  },
  concat: (...parts) => `CONCAT(${parts.join(", ")})`,
  // WEEKDAY counts days from Monday; week 1 holds January 4th.
  weekMonday: (year, week) => {
    const january4 = `MAKEDATE(CAST(${year} AS SIGNED), 4)`;
    return `DATE_FORMAT(DATE_ADD(DATE_SUB(${january4}, INTERVAL WEEKDAY(${january4}) DAY), INTERVAL (CAST(${week} AS SIGNED) - 1) * 7 DAY), '%Y-%m-%d')`;
  },
};

/** Text read as an instant (`instantOfText`), a partition key as its period's start. */
const textInstant = (column: string) => keyStartText(column, KEY_SQL, instantOfText(column), (text) => `CAST(${text} AS DATETIME(6))`);
// ASCII codes: the digits, Z, and a lower-case t.
const LAST_CHARACTERS = "48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 90";
const LOWER_T = 116;

// Starts are text already.
const asText = (start: string) => start;

/** The start of the period holding a DATE or DATETIME value, as text. */
function periodStart(d: string, granularity: TimeGranularity): string {
  switch (granularity.name) {
    case "hour":
      return `DATE_FORMAT(${d}, '%Y-%m-%d %H:00:00')`;
    case "day":
      return `DATE_FORMAT(${d}, '%Y-%m-%d')`;
    case "week":
      // WEEKDAY counts days from Monday.
      return `DATE_FORMAT(DATE_SUB(${d}, INTERVAL WEEKDAY(${d}) DAY), '%Y-%m-%d')`;
    case "month":
      return `DATE_FORMAT(${d}, '%Y-%m-01')`;
    case "quarter":
      return `CONCAT(DATE_FORMAT(${d}, '%Y-'), LPAD(QUARTER(${d}) * 3 - 2, 2, '0'), '-01')`;
    case "year":
      return `DATE_FORMAT(${d}, '%Y-01-01')`;
  }
}

/**
 * The period start of a DATE, DATETIME (UTC) or ISO text column. Dates and datetimes of the
 * years 0002..9998 are exact; text is when it has one of the ISO shapes and names a real time
 * (CAST reads other text as NULL or otherwise than instantOf does).
 * A regular expression follows the column's collation, which may ignore case, and its `$` also
 * matches before a final newline: the last character and the separator are checked by code.
 */
function period(column: string, catalogType: string, granularity: TimeGranularity): PeriodSql | null {
  switch (family(catalogType)) {
    case "date":
    case "datetime":
      return {
        exact: `(${column} >= '0002-01-01' AND ${column} < '9999-01-01')`,
        start: periodStart(column, granularity),
        render: asText,
        text: false,
      };
    case "text":
      return {
        exact:
          `(${column} REGEXP '${ISO_TEXT_REGEX}' AND ASCII(RIGHT(${column}, 1)) IN (${LAST_CHARACTERS})` +
          ` AND ASCII(SUBSTR(${column}, 11, 1)) <> ${LOWER_T} AND ${notFeb29OfCommonYear(column, TEXT_FUNCTIONS)})`,
        start: periodStart(instantOfText(column), granularity),
        render: asText,
        text: true,
      };
    default:
      return null;
  }
}

/**
 * MySQL's SQL: backtick names, `?` placeholders; the dataset is the database. Exact text takes
 * `exactCollation` (the server's, see ServerFacts); `server` names the server in a refusal.
 */
export function mysqlDialect(exactCollation: string | null, server = "(not yet asked)"): SqlDialect {
  return {
    quote,
    table: (table, dataset) => (dataset === null ? quote(table) : `${quote(dataset)}.${quote(table)}`),
    param: () => "?",
    columnType: (kind, key, exact) => columnType(kind, key, exact, exactCollation, server),
    family,
    holdsIntegers,
    rowColumn: () => `${quote("_interloper_row")} BIGINT AUTO_INCREMENT PRIMARY KEY`,
    timeOperand: (column, type) => (family(type) === "text" ? textInstant(column) : column),
    timeBound: (bound, type) => (family(type) === "date" ? formatIsoDate(bound) : utcDateTimeText(bound)),
    period,
    // Column names ignore case (Unicode case, not accents: "é" and "e" are two columns).
    columnKey: (name) => name.toLowerCase(),
    // BIGINT and DECIMAL come as text (bigNumberStrings: no digit lost), BOOLEAN as 0 and 1.
    storedKind: (type) => {
      const f = family(type);
      return f === "bigint" ? "integer" : f === "decimal" ? "decimal" : f === "boolean" ? "boolean" : null;
    },
    // Beyond the type, what exact-text.ts needs to align a column's collation.
    columnsQuery: (table, dataset) => ({
      sql: "SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, CHARACTER_SET_NAME AS charset, COLLATION_NAME AS collation, IS_NULLABLE AS nullable FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
      params: [dataset, table],
    }),
    createDataset: (dataset) => `CREATE DATABASE IF NOT EXISTS ${quote(dataset)} CHARACTER SET utf8mb4`,
    createIndex: (qualified, name, expression) => `CREATE INDEX ${quote(name)} ON ${qualified} (${expression})`,
    describeTable: (qualified, description) => [`ALTER TABLE ${qualified} COMMENT = ${mysqlLiteral(description)}`],
    indexedExpression: (column) => quote(column),
    staleIndexedExpressions: () => [],
    // Duplicate column, duplicate index name, table exists.
    isAlreadyDone: (error) =>
      ["1060", "1061", "1050", "ER_DUP_FIELDNAME", "ER_DUP_KEYNAME", "ER_TABLE_EXISTS_ERROR"].includes(driverCode(error)),
    // DDL commits the open transaction: tables are made before a write's transaction starts.
    transactionalDdl: false,
    // Writers of one partition take turns on user-level locks instead (write-locks.ts).
    writeLock: () => null,
  };
}

/**
 * Whether a read failed because a table it reads was created or altered after its snapshot
 * began (ER_TABLE_DEF_CHANGED: the catalog is not versioned); a fresh snapshot can read it.
 */
export function isStaleDefinition(error: unknown): boolean {
  const code = driverCode(error);
  return code === "ER_TABLE_DEF_CHANGED" || code === "1412";
}

/** Deadlock (1213) and lock wait timeout (1205): the server rolled the transaction back (the caller rolls back the rest). */
const LOCK_CONFLICTS = new Set(["ER_LOCK_DEADLOCK", "1213", "ER_LOCK_WAIT_TIMEOUT", "1205"]);

/**
 * Whether a write failed because the server picked it as a deadlock's victim or its lock wait
 * timed out: the whole transaction may run again. The error may come raw from the driver (its
 * `code` or `errno`) or wrapped (DatabaseError.driverCode).
 */
export function isLockConflict(error: unknown): boolean {
  const { driverCode, code, errno } = (error ?? {}) as { driverCode?: unknown; code?: unknown; errno?: unknown };
  return LOCK_CONFLICTS.has(String(driverCode ?? code ?? errno ?? ""));
}

/** A string literal for the one place SQL takes no parameter (a table COMMENT). */
export function mysqlLiteral(text: string): string {
  if (text.includes("\0")) throw new ConfigError("a MySQL comment cannot hold a NUL character");
  return `'${text.slice(0, MAX_COMMENT).replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}
