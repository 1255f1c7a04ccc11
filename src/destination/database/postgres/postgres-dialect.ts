import { ConfigError, PartitionError } from "../../../errors.js";
import type { TimeGranularity } from "../../../partitioning/index.js";
import { formatIsoDate } from "../../../schema/index.js";
import {
  ISO_TEXT_REGEX,
  KEY_REGEX,
  type KeySql,
  keyStartText,
  notFeb29OfCommonYear,
  type PeriodSql,
  type TextFunctions,
} from "../period-sql.js";
import { driverCode, quoteDouble, type SqlDialect, type StorageKind } from "../sql-dialect.js";

const TYPES: Record<StorageKind, string> = {
  string: "text",
  integer: "bigint",
  number: "double precision",
  boolean: "boolean",
  date: "date",
  instant: "timestamptz",
  // An ISO string's offset is information a timestamptz drops: it is kept as text.
  zoned: "text",
  json: "jsonb",
};

// Catalog spellings (information_schema.columns.data_type) of the types above, and aliases.
const FAMILIES: Record<string, string> = {
  "timestamp with time zone": "timestamptz",
  "character varying": "text",
  varchar: "text",
  int8: "bigint",
  float8: "double precision",
  bool: "boolean",
};

/** PostgreSQL truncates longer names silently, which could make two tables one. */
const MAX_IDENTIFIER_BYTES = 63;

function quote(identifier: string): string {
  if (Buffer.byteLength(identifier, "utf8") > MAX_IDENTIFIER_BYTES) {
    throw new ConfigError(`PostgreSQL identifier ${JSON.stringify(identifier)} is longer than ${MAX_IDENTIFIER_BYTES} bytes`);
  }
  return quoteDouble(identifier);
}

const TEXT_FUNCTIONS: TextFunctions = {
  substr: (text, from, length) => `substr(${text}, ${from}, ${length})`,
  right: (text, n) => `right(${text}, ${n})`,
  length: (text) => `length(${text})`,
};

const KEY_SQL: KeySql = {
  ...TEXT_FUNCTIONS,
  shaped: (text, shape) => `${text} ~ '${KEY_REGEX[shape]}'`,
  concat: (...parts) => parts.join(" || "),
  // Week 1 holds January 4th: its Monday, then the weeks (a date plus days is a date).
  weekMonday: (year, week) => {
    const january4 = `make_date(CAST(${year} AS integer), 1, 4)`;
    return `to_char(${january4} - (CAST(extract(isodow FROM ${january4}) AS integer) - 1) + (CAST(${week} AS integer) - 1) * 7, 'YYYY-MM-DD')`;
  },
};

/** Text read as an instant: ISO text as PostgreSQL reads it (sessions run in UTC), a partition key as its period's start. */
const textInstant = (column: string) => `CAST(${keyStartText(column, KEY_SQL, column)} AS timestamptz)`;

/**
 * The period start of a date, timestamptz or ISO text column: date_trunc in UTC (sessions run
 * in UTC; weeks start on Monday). Dates and instants of the years 0002..9998 are exact; text
 * is when it has one of the ISO shapes and names a real time (a cast of any other text could
 * fail or read it otherwise than instantOf does).
 */
function period(column: string, catalogType: string, granularity: TimeGranularity): PeriodSql | null {
  const trunc = (timestamp: string) => `date_trunc('${granularity.name}', ${timestamp})`;
  const render = (start: string) => `to_char(${start}, 'YYYY-MM-DD HH24:MI:SS')`;
  switch (postgresDialect.family(catalogType)) {
    case "timestamptz":
      return {
        exact: `(${column} >= '0002-01-01T00:00:00Z' AND ${column} < '9999-01-01T00:00:00Z')`,
        start: trunc(`${column} AT TIME ZONE 'UTC'`),
        render,
        text: false,
      };
    case "date":
      return {
        exact: `(${column} >= '0002-01-01' AND ${column} < '9999-01-01')`,
        start: trunc(`CAST(${column} AS timestamp)`),
        render,
        text: false,
      };
    case "text":
      return {
        exact: `(${column} ~ '${ISO_TEXT_REGEX}' AND ${notFeb29OfCommonYear(column, TEXT_FUNCTIONS)})`,
        start: trunc(`CAST(${column} AS timestamptz) AT TIME ZONE 'UTC'`),
        render,
        text: true,
      };
    default:
      return null;
  }
}

/** PostgreSQL's SQL: the dataset is the schema ("public" when none). */
export const postgresDialect: SqlDialect = {
  quote,
  table: (table, dataset) => `${quote(dataset ?? "public")}.${quote(table)}`,
  param: (index) => `$${index}`,
  columnType: (kind) => TYPES[kind],
  family: (type) => {
    const lower = type.trim().toLowerCase();
    return FAMILIES[lower] ?? lower;
  },
  // float8 holds integers exactly to 2^53, numeric every integer; real (float4) only to 2^24.
  holdsIntegers: (type) => {
    const family = postgresDialect.family(type);
    return family === "double precision" ? "double" : family === "numeric" ? "exact" : null;
  },
  // A large sequence cache: a bulk load must not pay a sequence round per row (gaps are harmless).
  rowColumn: () => `${quote("_interloper_row")} bigint GENERATED ALWAYS AS IDENTITY (CACHE 10000)`,
  // Text holding ISO dates, zoned datetimes or partition keys compares by instant (sessions run in UTC).
  timeOperand: (column, type) => (postgresDialect.family(type) === "text" ? textInstant(column) : column),
  timeBound: (bound, type) => {
    // ISO text of the years 1..9999 only: the end of 9999-12-31 (+010000-01-01) would come back
    // as a raw server error ("time zone displacement out of range"), naming nothing.
    const year = bound.getUTCFullYear();
    if (year < 1 || year > 9999)
      throw new PartitionError(
        `PostgreSQL holds dates and timestamps of the years 1 to 9999: a partition bounded by ${bound.toISOString()} cannot be written or read there (a partition must end by 9999-12-31T00:00:00Z)`,
      );
    return postgresDialect.family(type) === "date" ? formatIsoDate(bound) : bound.toISOString();
  },
  period,
  // Quoted names keep their case: "id" and "ID" are two columns.
  columnKey: (name) => name,
  // pg reads int8 and numeric as text, so that no digit is lost; smaller integers and booleans are read as themselves.
  storedKind: (type) => {
    const family = postgresDialect.family(type);
    return family === "bigint" ? "integer" : family === "numeric" ? "decimal" : null;
  },
  columnsQuery: (table, dataset) => ({
    sql: "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
    params: [dataset ?? "public", table],
  }),
  createDataset: (dataset) => `CREATE SCHEMA IF NOT EXISTS ${quote(dataset)}`,
  createIndex: (qualified, name, expression) => `CREATE INDEX IF NOT EXISTS ${quote(name)} ON ${qualified} (${expression})`,
  describeTable: (qualified, description) => [`COMMENT ON TABLE ${qualified} IS ${postgresLiteral(description)}`],
  indexedExpression: (column) => quote(column),
  staleIndexedExpressions: () => [],
  // Duplicate table, schema, column, or a catalog row another session inserted first.
  isAlreadyDone: (error) => ["42P07", "42P06", "42701", "23505"].includes(driverCode(error)),
  transactionalDdl: true,
  // Two concurrent delete-then-insert of one partition would otherwise both commit, and the
  // partition would hold both writers' rows.
  writeLock: (qualified) => postgresWriteLock(qualified),
};

/** The lock a write takes on its table against other writers (readers still read). */
export function postgresWriteLock(qualified: string): string {
  return `LOCK TABLE ${qualified} IN SHARE ROW EXCLUSIVE MODE`;
}

/** The statement a COPY of rows into `columns` (quoted) of a table starts with, its rows then streamed in text format. */
export function copyFromStdin(qualified: string, columns: readonly string[]): string {
  return `COPY ${qualified} (${columns.join(", ")}) FROM STDIN`;
}

/**
 * The statements of a unit of work. A read's snapshot is REPEATABLE READ and read-only: its
 * first statement takes the snapshot every later one reads; it takes no lock a writer waits
 * for, and a read-only transaction never fails to serialize.
 */
export const POSTGRES_UNITS = {
  begin: "BEGIN",
  beginRead: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
  commit: "COMMIT",
  rollback: "ROLLBACK",
} as const;

/** A string literal for the one place SQL takes no parameter (COMMENT ON). */
export function postgresLiteral(text: string): string {
  if (text.includes("\0")) throw new ConfigError("a PostgreSQL string cannot hold a NUL character");
  return `E'${text.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}
