import { instantOf } from "../../../partitioning/dates.js";
import { formatIsoDate } from "../../../schema/index.js";
import { jsonText, unstorable, utf8Text, withinYears } from "../../unstorable.js";
import { type StorageKind, utcDateTimeText } from "../sql-dialect.js";

/** The years DATE and DATETIME hold (text of another year is refused with an unclear error). */
const YEARS = [0, 9999] as const;
const DATE_WHY = "a DATE column holds no other year";
const DATETIME_WHY = "a DATETIME column holds no other year";

/**
 * A conformed value as a bound MySQL parameter for a storage kind; `field` and `row` name it in
 * a refusal. Refused, as they would be stored changed: a string holding a lone UTF-16 surrogate
 * (utf8mb4 text), -0 (MariaDB stores it in a DOUBLE as 0), NaN and ±Infinity (DOUBLE has
 * neither; a server without strict mode would store another number), a json value JSON
 * text cannot hold exactly (`jsonText`), and a date or datetime outside the years 0..9999.
 */
export function mysqlValue(kind: StorageKind, value: unknown, field: string, row: number): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "integer":
      // Sent as text, BIGINT takes every 64-bit value whole.
      return typeof value === "bigint" ? value.toString() : value;
    case "boolean":
      return value ? 1 : 0;
    case "date":
      return value instanceof Date ? formatIsoDate(withinYears(value, "date", YEARS, "MySQL", field, row, DATE_WHY) as Date) : value;
    case "instant": {
      const date = value instanceof Date ? value : new Date(instantOf(value));
      return utcDateTimeText(withinYears(date, "datetime", YEARS, "MySQL", field, row, DATETIME_WHY) as Date);
    }
    case "zoned":
      return value instanceof Date ? value.toISOString() : value;
    case "json":
      // MySQL's JSON parses the text: no lone surrogate in a string, besides JSON's limits.
      return jsonText(value, "MySQL", field, row, { wellFormed: true });
    case "string":
      return typeof value === "string" ? utf8Text(value, "MySQL", field, row) : String(value);
    case "number":
      if (typeof value === "number" && !Number.isFinite(value))
        throw unstorable("MySQL", field, row, `a DOUBLE column cannot hold ${value}; expected a finite number`);
      if (Object.is(value, -0))
        throw unstorable(
          "MySQL",
          field,
          row,
          "a DOUBLE column does not keep the sign of zero (MariaDB stores -0 as 0); expected a number other than -0",
        );
      return value;
    default:
      return value;
  }
}
