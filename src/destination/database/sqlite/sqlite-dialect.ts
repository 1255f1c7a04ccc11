import { ConfigError } from "../../../errors.js";
import type { AssetRef } from "../../io-context.js";
import type { TimeGranularity } from "../../../partitioning/index.js";
import { formatIsoDate } from "../../../schema/index.js";
import { jsonText, unstorable, utf8Text } from "../../unstorable.js";
import {
  hasOffset,
  isoShapeGlobsByLength,
  type KeyShape,
  type KeySql,
  keyStartText,
  type PeriodSql,
  realIsoText,
  type TextFunctions,
} from "../period-sql.js";
import type { IntegerHold } from "../integer-widening.js";
import { quoteDouble, type SqlDialect, type StorageKind } from "../sql-dialect.js";
import type { StoredKind } from "../stored-values.js";

// Declared types name the field type, so the catalog tells a changed type apart. SQLite gives
// DATE, DATETIME and BOOLEAN numeric affinity, which leaves ISO text and 0/1 as they are; JSON
// text must stay text ("42" would become a number), hence "JSON TEXT", whose affinity is TEXT.
const TYPES: Record<StorageKind, string> = {
  string: "TEXT",
  integer: "INTEGER",
  number: "REAL",
  boolean: "BOOLEAN",
  date: "DATE",
  instant: "DATETIME",
  zoned: "TEXT",
  json: "JSON TEXT",
};

const TEXT_FUNCTIONS: TextFunctions = {
  substr: (text, from, length) => `substr(${text}, ${from}, ${length})`,
  right: (text, n) => `substr(${text}, -${n})`,
  length: (text) => `length(${text})`,
};
const ISO_GLOBS = [...isoShapeGlobsByLength()];

const D4 = "[0-9][0-9][0-9][0-9]";
const KEY_GLOBS: Record<KeyShape, string> = {
  hour: `${D4}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]`,
  week: `${D4}-W[0-9][0-9]`,
  month: `${D4}-[0-9][0-9]`,
  quarter: `${D4}-Q[1-4]`,
  year: D4,
};

const KEY_SQL: KeySql = {
  ...TEXT_FUNCTIONS,
  // GLOB matches whole text, case-sensitively.
  shaped: (text, shape) => `${text} GLOB '${KEY_GLOBS[shape]}'`,
  concat: (...parts) => parts.join(" || "),
  // Six days back from January 4th, then forward to a Monday: week 1's Monday; then the weeks.
  weekMonday: (year, week) => `date(${year} || '-01-04', '-6 days', 'weekday 1', '+' || ((CAST(${week} AS INTEGER) - 1) * 7) || ' days')`,
};

/** The start of the period holding `u`, UTC text "YYYY-MM-DD", "YYYY-MM-DD HH:MM:SS" or with a T. */
function periodStart(u: string, granularity: TimeGranularity): string {
  const month = `substr(${u}, 6, 2)`;
  switch (granularity.name) {
    case "hour":
      // A date alone is its midnight.
      return `substr(${u}, 1, 10) || ' ' || substr(${u} || ' 00', 12, 2) || ':00:00'`;
    case "day":
      return `substr(${u}, 1, 10)`;
    case "week":
      // Six days back, then forward to a Monday: the Monday on or before the day.
      return `date(substr(${u}, 1, 10), '-6 days', 'weekday 1')`;
    case "month":
      return `substr(${u}, 1, 7) || '-01'`;
    case "quarter":
      return `substr(${u}, 1, 5) || CASE WHEN ${month} <= '03' THEN '01' WHEN ${month} <= '06' THEN '04' WHEN ${month} <= '09' THEN '07' ELSE '10' END || '-01'`;
    case "year":
      return `substr(${u}, 1, 4) || '-01-01'`;
  }
}

// Columns of these types hold no dates (a value of another type in them is counted by value).
const NOT_DATES = new Set(["INTEGER", "REAL", "BOOLEAN", "JSON TEXT"]);

/**
 * Dates and instants are ISO text here, like strings: text of one of the ISO shapes that names
 * a real time is exact. Text in UTC (Z, or no zone) is cut to its period; text with an offset
 * is converted to UTC first.
 */
function period(column: string, catalogType: string, granularity: TimeGranularity): PeriodSql | null {
  if (NOT_DATES.has(catalogType.trim().toUpperCase())) return null;
  const utc = `(CASE WHEN ${hasOffset(column, TEXT_FUNCTIONS)} THEN strftime('%Y-%m-%d %H:%M:%S', ${column}) ELSE ${column} END)`;
  const shaped = ISO_GLOBS.map(
    ([length, globs]) => ` WHEN ${length} THEN ${globs.map((glob) => `${column} GLOB '${glob}'`).join(" OR ")}`,
  ).join("");
  return {
    exact: `(typeof(${column}) = 'text' AND (CASE length(${column})${shaped} ELSE 0 END) AND ${realIsoText(column, TEXT_FUNCTIONS)})`,
    start: periodStart(utc, granularity),
    render: (start) => start,
    // A value of another type (a number in a TEXT column) comes back as itself too.
    text: true,
  };
}

/** A name as SQLite compares table and column names: ASCII letters in either case are one ("id" and "ID"), others not ("é" and "É"). */
export function sqliteNameKey(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** The one name SQLite gives a table: no schemas, so the dataset, a dot, the table. */
export function sqliteTableName(table: string, dataset: string | null): string {
  return dataset ? `${dataset}.${table}` : table;
}

/**
 * SQLite's affinity rules (in their order): a declared type with INT is an integer column; with
 * REAL, FLOA or DOUB a REAL one, 8-byte whatever its name; NUMERIC or DECIMAL keep integers as
 * integers. The types interloper declares for dates and booleans are not number columns here.
 */
function holdsIntegers(catalogType: string): IntegerHold | null {
  const type = catalogType.trim().toUpperCase();
  if (type.includes("INT") || /CHAR|CLOB|TEXT|BLOB/.test(type) || type === "" || NOT_NUMBERS.has(type)) return null;
  if (/REAL|FLOA|DOUB/.test(type)) return "double";
  return /^(NUMERIC|DECIMAL)\b/.test(type) ? "exact" : null;
}

const NOT_NUMBERS = new Set(["BOOLEAN", "DATE", "DATETIME"]);

const STORED_KINDS = new Map<string, StoredKind>([
  ["BOOLEAN", "boolean"],
  ["DATETIME", "instant"],
]);

/** SQLite's SQL: double-quoted names, `?` placeholders, dates and instants as ISO text. */
export const sqliteDialect: SqlDialect = {
  quote: quoteDouble,
  table: (table, dataset) => quoteDouble(sqliteTableName(table, dataset)),
  param: () => "?",
  columnType: (kind) => TYPES[kind],
  family: (type) => type.trim().toUpperCase(),
  holdsIntegers,
  rowColumn: () => `${quoteDouble("_interloper_row")} INTEGER PRIMARY KEY`,
  timeOperand: (column, type) => {
    const family = type.trim().toUpperCase();
    // Instants are written by toISOString (fixed width, UTC) and dates as YYYY-MM-DD, so both
    // compare as text and use the index; any other text is normalised to UTC first, a partition
    // key read as its period's start (strftime reads none of them, and "2026" as a Julian day).
    return family === "DATE" || family === "DATETIME" ? column : `strftime('%Y-%m-%dT%H:%M:%fZ', ${keyStartText(column, KEY_SQL, column)})`;
  },
  timeBound: (bound, type) => (type.trim().toUpperCase() === "DATE" ? formatIsoDate(bound) : bound.toISOString()),
  period,
  columnKey: sqliteNameKey,
  // A BOOLEAN column holds 0 and 1, a DATETIME one the ISO text of Dates; numbers come back as numbers.
  storedKind: (type) => STORED_KINDS.get(type.trim().toUpperCase()) ?? null,
  // SQLite finds a table by its name in any case (ASCII): `stored` gives the name it keeps.
  columnsQuery: (table, dataset) => ({
    sql: "SELECT m.name AS stored, p.name, p.type FROM sqlite_master AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table' AND m.name = ? COLLATE NOCASE ORDER BY p.cid",
    params: [sqliteTableName(table, dataset)],
  }),
  // The dataset prefixes the table's name: there is nothing to create.
  createDataset: () => null,
  /*
   * Descending: a backfill writes newest first, so each partition's entries then go at the
   * index's end (SQLite appends there cheaply) rather than into its middle, which splits pages:
   * about 8% of a 365-day backfill's instructions. Filters and counts use it either way. An
   * older table keeps its ascending index (same name, IF NOT EXISTS).
   */
  createIndex: (qualified, name, expression) => `CREATE INDEX IF NOT EXISTS ${quoteDouble(name)} ON ${qualified} (${expression} DESC)`,
  describeTable: () => [],
  // A time column of text is filtered as `strftime(...)` of it (see timeOperand): that expression is indexed.
  indexedExpression: (column, type, time) => (time ? sqliteDialect.timeOperand(quoteDouble(column), type) : quoteDouble(column)),
  // Before partition keys were read as instants, a time column of text was indexed on `strftime` of the column alone.
  staleIndexedExpressions: (column, type) => {
    const family = type.trim().toUpperCase();
    return family === "DATE" || family === "DATETIME" ? [] : [`strftime('%Y-%m-%dT%H:%M:%fZ', ${quoteDouble(column)})`];
  },
  isAlreadyDone: (error) => /already exists|duplicate column/i.test((error as Error).message ?? ""),
  // DDL joins the write's transaction: a new table's index waits for its first load.
  transactionalDdl: true,
  // One writer at a time holds the file (BEGIN IMMEDIATE): no lock of a table is needed.
  writeLock: () => null,
};

/**
 * The statements of SQLite's driver beyond the SqlDialect's. A write's transaction takes the
 * file's write lock at once (IMMEDIATE); a read's first statement fixes what every later one
 * sees. The journal in WAL mode, so that a reader never blocks a writer's commit nor waits for
 * it; the schema cookie changes with every change to the schema, by any connection.
 */
export const SQLITE_STATEMENTS = {
  beginWrite: "BEGIN IMMEDIATE",
  beginRead: "BEGIN",
  commit: "COMMIT",
  rollback: "ROLLBACK",
  walMode: "journal_mode = WAL",
  schemaVersion: "PRAGMA schema_version",
} as const;

/** Whether a statement only reads (it then takes no turn among the file's writers). */
export function isReadStatement(sql: string): boolean {
  return /^\s*SELECT\b/i.test(sql);
}

/** Turns one field's non-null conformed value, at a (0-based) row, into what SQLite stores. */
export type SqliteFieldWriter = (value: unknown, row: number) => unknown;

const NAN_REFUSAL = "SQLite stores NaN as NULL; expected a number other than NaN";
const NEGATIVE_ZERO_REFUSAL =
  "SQLite keeps an integral REAL as an integer on disk, so -0 would read back as 0; expected a number other than -0";

/**
 * How a field's values are stored, chosen once per load so the insert loop pays no switch per
 * value; null where a non-null value is bound as it is (integers, bigints included). `field`
 * names the field in a refusal. Refused, as they would read back changed: a string holding a
 * lone UTF-16 surrogate (SQLite text is UTF-8), NaN (stored as NULL) and -0 (a REAL column keeps
 * an integral value as an integer, whatever the column is declared: REAL, DOUBLE or FLOAT,
 * STRICT or not), and a json value JSON text cannot hold exactly (`jsonText`).
 */
export function sqliteFieldWriter(kind: StorageKind, field: string): SqliteFieldWriter | null {
  switch (kind) {
    case "boolean":
      return (value) => (value ? 1 : 0);
    case "date":
      return (value) => (value instanceof Date ? formatIsoDate(value) : value);
    case "instant":
    case "zoned":
      return (value) => (value instanceof Date ? value.toISOString() : value);
    case "json":
      return (value, row) => jsonText(value, "SQLite", field, row);
    case "string":
      return (value, row) => (typeof value === "string" ? utf8Text(value, "SQLite", field, row) : String(value));
    case "number":
      return (value, row) => {
        if (typeof value === "number" && Number.isNaN(value)) throw unstorable("SQLite", field, row, NAN_REFUSAL);
        if (Object.is(value, -0)) throw unstorable("SQLite", field, row, NEGATIVE_ZERO_REFUSAL);
        return value;
      };
    default:
      return null;
  }
}

/** A conformed value as SQLite stores it for a storage kind (see sqliteFieldWriter); `field` and `row` name it in a refusal. */
export function sqliteValue(kind: StorageKind, value: unknown, field: string, row: number): unknown {
  if (value === null || value === undefined) return null;
  const write = sqliteFieldWriter(kind, field);
  return write === null ? value : write(value, row);
}

/**
 * Refuses two assets whose tables SQLite would take for one (its table names ignore case): the
 * second written would replace the first's rows, or be refused at its write.
 */
export function refuseCaseTwins(path: string, assets: readonly AssetRef[]): void {
  const byName = new Map<string, AssetRef>();
  for (const asset of assets) {
    const name = sqliteTableName(asset.table, asset.dataset);
    const folded = sqliteNameKey(name);
    const other = byName.get(folded);
    if (other && sqliteTableName(other.table, other.dataset) !== name) {
      throw new ConfigError(
        `SQLiteDestination ${JSON.stringify(path)}: assets "${other.key}" and "${asset.key}" would store tables "${sqliteTableName(other.table, other.dataset)}" and "${name}", which SQLite takes for one table (its table names ignore case); give one of them a distinct table (set \`table\`) or dataset`,
      );
    }
    byName.set(folded, asset);
  }
}
