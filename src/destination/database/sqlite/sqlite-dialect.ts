import { formatIsoDate } from "../../../schema/index.js";
import { jsonText, unstorable, utf8Text } from "../../unstorable.js";
import { quoteDouble, type SqlDialect, type StorageKind } from "../sql-dialect.js";

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

/** SQLite's SQL: double-quoted names, `?` placeholders, dates and instants as ISO text. */
export const sqliteDialect: SqlDialect = {
  quote: quoteDouble,
  // One database, no schemas: the dataset prefixes the table's (single, quoted) name.
  table: (table, dataset) => quoteDouble(dataset ? `${dataset}.${table}` : table),
  param: () => "?",
  columnType: (kind) => TYPES[kind],
  family: (type) => type.trim().toUpperCase(),
  rowColumn: () => `${quoteDouble("_interloper_row")} INTEGER PRIMARY KEY`,
  timeOperand: (column, type) => {
    const family = type.trim().toUpperCase();
    // Instants are written by toISOString (fixed width, UTC) and dates as YYYY-MM-DD, so both
    // compare as text and use the index; any other text is normalised to UTC first.
    return family === "DATE" || family === "DATETIME" ? column : `strftime('%Y-%m-%dT%H:%M:%fZ', ${column})`;
  },
  timeBound: (bound, type) => (type.trim().toUpperCase() === "DATE" ? formatIsoDate(bound) : bound.toISOString()),
};

/**
 * A conformed value as SQLite stores it for a storage kind; `field` and `row` name it in a
 * refusal. Refused, as they would read back changed: a string holding a lone UTF-16 surrogate
 * (SQLite text is UTF-8), NaN (stored as NULL) and -0 (a REAL column keeps an integral value
 * as an integer, whatever the column is declared: REAL, DOUBLE or FLOAT, STRICT or not), and a
 * json value JSON text cannot hold exactly (`jsonText`).
 */
export function sqliteValue(kind: StorageKind, value: unknown, field: string, row: number): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "boolean":
      return value ? 1 : 0;
    case "date":
      return value instanceof Date ? formatIsoDate(value) : value;
    case "instant":
    case "zoned":
      return value instanceof Date ? value.toISOString() : value;
    case "json":
      return jsonText(value, "SQLite", field, row);
    case "string":
      return typeof value === "string" ? utf8Text(value, "SQLite", field, row) : String(value);
    case "number":
      if (typeof value === "number" && Number.isNaN(value)) throw unstorable("SQLite", field, row, "SQLite stores NaN as NULL; expected a number other than NaN");
      if (Object.is(value, -0)) throw unstorable("SQLite", field, row, "SQLite keeps an integral REAL as an integer on disk, so -0 would read back as 0; expected a number other than -0");
      return value;
    default:
      return value;
  }
}
