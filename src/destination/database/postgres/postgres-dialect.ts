import { ConfigError } from "../../../errors.js";
import { formatIsoDate } from "../../../schema/index.js";
import { quoteDouble, type SqlDialect, type StorageKind } from "../sql-dialect.js";

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
  // A large sequence cache: a bulk load must not pay a sequence round per row (gaps are harmless).
  rowColumn: () => `${quote("_interloper_row")} bigint GENERATED ALWAYS AS IDENTITY (CACHE 10000)`,
  // Text holding ISO dates or zoned datetimes compares by instant (sessions run in UTC).
  timeOperand: (column, type) => (postgresDialect.family(type) === "text" ? `CAST(${column} AS timestamptz)` : column),
  timeBound: (bound, type) => (postgresDialect.family(type) === "date" ? formatIsoDate(bound) : bound.toISOString()),
};

/** A string literal for the one place SQL takes no parameter (COMMENT ON). */
export function postgresLiteral(text: string): string {
  if (text.includes("\0")) throw new ConfigError("a PostgreSQL string cannot hold a NUL character");
  return `E'${text.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

// COPY's text format: backslash escapes for the characters that delimit fields and rows.
const SPECIAL = /[\\\n\r\t]/;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const escapeText = (text: string): string => (SPECIAL.test(text) ? text.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!) : text);

type Field = (value: unknown) => string;
const asText: Field = (value) => escapeText(typeof value === "string" ? value : String(value));
const asInstant: Field = (value) => (value instanceof Date ? value.toISOString() : asText(value));

/**
 * The writer of COPY text-format fields for a storage kind, chosen once per column so the row
 * loop calls a closure and never switches. Null is written by the caller ("\\N").
 */
export function copyFieldWriter(kind: StorageKind): Field {
  switch (kind) {
    case "integer":
    case "number":
      return (value) => String(value);
    case "boolean":
      return (value) => (value ? "t" : "f");
    case "date":
      return (value) => (value instanceof Date ? formatIsoDate(value) : asText(value));
    case "instant":
    case "zoned":
      return asInstant;
    case "json":
      return (value) => escapeText(JSON.stringify(value));
    default:
      return asText;
  }
}
