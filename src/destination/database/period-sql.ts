// Coverage of a time-partitioned table groups rows by partition in SQL: the database returns one
// row per period, not one per distinct stored value (a table of distinct datetimes would
// otherwise come back whole). Each row still lands in the partition the per-value way gives it,
// `granularity.format(instantOf(value))`: a dialect computes a period start only for values
// whose SQL reading is known to agree with `instantOf` (`PeriodSql.exact`); the others are
// returned by value, as `count` returns them, and mapped in JS.

/** How a dialect groups a column by period. */
export interface PeriodSql {
  /** A condition true for the rows whose period `start` computes exactly; it never fails. */
  readonly exact: string;
  /** The start of the row's period, in any type the database groups by; evaluated only where `exact` holds. */
  readonly start: string;
  /** A start (the `start` expression, or a column holding one) as text `instantOf` reads. */
  render(start: string): string;
  /**
   * Whether the column's values are text, so that a row not `exact` comes back as its value in
   * the same result column as the rendered starts, and `exact` is evaluated once per row. (A
   * date or timestamp column's values come back in a column of their own, in their own type,
   * and starts are rendered once per period.)
   */
  readonly text: boolean;
}

/**
 * The ISO 8601 text read in SQL, as fixed-width shapes: `D` a digit, `_` the date-time
 * separator (`T` or a space), `T` a T, `±` a sign. Time zones come only after a `T`, with a
 * colon, and fractions have at most 3 digits: `instantOf` keeps milliseconds, and a longer
 * fraction that a database rounds could cross a period's end. Everything else `instantOf` reads
 * (an hour key, `+0530`, `z`) is counted by value.
 */
const DATE = "DDDD-DD-DD";
const FRACTIONS = ["", ".D", ".DD", ".DDD"];
export const ISO_SHAPES: readonly string[] = [
  DATE,
  ...FRACTIONS.flatMap((f) => [`${DATE}_DD:DD:DD${f}`, `${DATE}TDD:DD:DD${f}Z`, `${DATE}TDD:DD:DD${f}±DD:DD`]),
];

// The same text as one regular expression whose fields hold only the values `realIsoText`
// accepts, but February 29th of any year (`notFeb29OfCommonYear` completes it).
const YEAR = "(000[2-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])";
const MONTH_DAY = "((0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|(0[13-9]|1[0-2])-(29|30)|(0[13578]|1[02])-31|02-29)";
const TIME = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]{1,3})?";
const ZONE = "(Z|[+-](0[0-9]|1[0-4]):[0-5][0-9])";

/** `ISO_SHAPES` naming a real time (see `realIsoText`) as one anchored POSIX regular expression (PostgreSQL, MySQL). */
export const ISO_TEXT_REGEX = `^${YEAR}-${MONTH_DAY}([ T]${TIME}|T${TIME}${ZONE})?$`;

/**
 * The shapes as GLOB patterns by length (SQLite, which has no regular expressions): a value is
 * matched against the few of its length only. GLOB matches whole text, case-sensitively.
 */
export function isoShapeGlobsByLength(): Map<number, string[]> {
  const byLength = new Map<number, string[]>();
  for (const shape of ISO_SHAPES) {
    const glob = shape.replaceAll("D", "[0-9]").replaceAll("_", "[ T]").replaceAll("±", "[+-]");
    byLength.set(shape.length, [...(byLength.get(shape.length) ?? []), glob]);
  }
  return byLength;
}

/** The SQL functions the checks below are written with. */
export interface TextFunctions {
  /** Characters `from` (1-based) on, `length` of them. */
  substr(text: string, from: number, length: number): string;
  /** The last `n` characters. */
  right(text: string, n: number): string;
  /** The length in characters. */
  length(text: string): string;
}

const LEAP_YEAR_ENDS = Array.from({ length: 24 }, (_, i) => `'${String(4 * (i + 1)).padStart(2, "0")}'`).join(", ");
const CENTURIES_DIVISIBLE_BY_4 = Array.from({ length: 25 }, (_, i) => `'${String(4 * i).padStart(2, "0")}'`).join(", ");

/** Whether text starting with a date of digits is not February 29th of a common year. */
export function notFeb29OfCommonYear(c: string, f: TextFunctions): string {
  const leap = `(${f.substr(c, 3, 2)} IN (${LEAP_YEAR_ENDS}) OR (${f.substr(c, 3, 2)} = '00' AND ${f.substr(c, 1, 2)} IN (${CENTURIES_DIVISIBLE_BY_4})))`;
  return `(${f.substr(c, 6, 5)} <> '02-29' OR ${leap})`;
}

/**
 * For text of one of `ISO_SHAPES`: whether it names a real date and time the databases read as
 * `instantOf` does. Only comparisons of fixed-width digit runs, so it never fails on any text.
 * Years 0002..9998, so that an offset or a week start stays within the years 0001..9999 every
 * database handles; offsets up to 14:59 (SQLite reads no larger one).
 */
export function realIsoText(c: string, f: TextFunctions): string {
  const year = f.substr(c, 1, 4);
  const month = f.substr(c, 6, 2);
  const day = f.substr(c, 9, 2);
  const lastDay = `CASE WHEN ${month} IN ('04', '06', '09', '11') THEN '30' WHEN ${month} = '02' THEN '29' ELSE '31' END`;
  const time = `(${f.length(c)} = 10 OR (${f.substr(c, 12, 2)} <= '23' AND ${f.substr(c, 15, 2)} <= '59' AND ${f.substr(c, 18, 2)} <= '59'))`;
  const zone = `(NOT ${hasOffset(c, f)} OR (${f.substr(f.right(c, 5), 1, 2)} <= '14' AND ${f.right(c, 2)} <= '59'))`;
  return (
    `(${year} >= '0002' AND ${year} <= '9998' AND ${month} >= '01' AND ${month} <= '12' AND ${day} >= '01' AND ${day} <= ${lastDay}` +
    ` AND ${notFeb29OfCommonYear(c, f)} AND ${time} AND ${zone})`
  );
}

/** Whether text of one of `ISO_SHAPES` ends in an offset (`+05:30`), rather than `Z` or nothing. */
export function hasOffset(c: string, f: TextFunctions): string {
  return `(${f.length(c)} > 10 AND ${f.substr(f.right(c, 6), 1, 1)} IN ('+', '-'))`;
}

/** The partition keys that are no ISO date or datetime, yet name a period: `instantOf` reads each as its period's start. */
export type KeyShape = "hour" | "week" | "month" | "quarter" | "year";

/** What a dialect writes the reading of key text with (see `keyStartText`). */
export interface KeySql extends TextFunctions {
  /** Whether text has a key's shape: its exact characters, case and length (digits where the key has digits). */
  shaped(text: string, shape: KeyShape): string;
  /** Text expressions joined. */
  concat(...parts: string[]): string;
  /** The ISO date text of the Monday of ISO week `week` (text of 2 digits) of the week-year `year` (4 digits). */
  weekMonday(year: string, week: string): string;
}

/**
 * A text column's value as text the database reads as an instant: a week, month, quarter or
 * year key ("2026-W21", "2026-05", "2026-Q2", "2026") as its period's first day, an hour key
 * ("2026-05-20T13") with its minutes, each passed through `as`; any other text as `otherwise` gives it. Rows may carry
 * their partition's own key, which `instantOf` reads as the period's start: the filters a
 * database compares must read it so too.
 */
export function keyStartText(c: string, sql: KeySql, otherwise: string, as: (text: string) => string = (text) => text): string {
  const quarterMonth = `CASE ${sql.substr(c, 7, 1)} WHEN '1' THEN '01' WHEN '2' THEN '04' WHEN '3' THEN '07' ELSE '10' END`;
  return (
    `(CASE WHEN ${sql.shaped(c, "month")} THEN ${as(sql.concat(c, "'-01'"))}` +
    ` WHEN ${sql.shaped(c, "year")} THEN ${as(sql.concat(c, "'-01-01'"))}` +
    ` WHEN ${sql.shaped(c, "quarter")} THEN ${as(sql.concat(sql.substr(c, 1, 5), quarterMonth, "'-01'"))}` +
    ` WHEN ${sql.shaped(c, "week")} THEN ${as(sql.weekMonday(sql.substr(c, 1, 4), sql.substr(c, 7, 2)))}` +
    ` WHEN ${sql.shaped(c, "hour")} THEN ${as(sql.concat(c, "':00'"))}` +
    ` ELSE ${otherwise} END)`
  );
}

/** The keys' shapes as regular expressions (PostgreSQL, MySQL), digits and letters exact. */
export const KEY_REGEX: Record<KeyShape, string> = {
  hour: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}$",
  week: "^[0-9]{4}-W[0-9]{2}$",
  month: "^[0-9]{4}-[0-9]{2}$",
  quarter: "^[0-9]{4}-Q[1-4]$",
  year: "^[0-9]{4}$",
};

/** The length of each key shape, which pins a regular expression's `$` (MySQL's also matches before a final newline). */
export const KEY_LENGTH: Record<KeyShape, number> = { hour: 13, week: 8, month: 7, quarter: 7, year: 4 };
