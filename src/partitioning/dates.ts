import { PartitionError } from "../errors.js";
import { describe } from "./base.js";

// All arithmetic here reads and builds Dates through their UTC fields only, so results never
// depend on the process's time zone.

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

/** A Date from UTC fields, correct for years 0-99 too (Date.UTC maps those to 19xx). */
export function utc(year: number, month = 0, day = 1, hour = 0): Date {
  // Date.UTC is exact from year 100 on; only earlier years need the slower field setters.
  if (year >= 100) return new Date(Date.UTC(year, month, day, hour));
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(hour, 0, 0, 0);
  return d;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number of days in a month (0-based month), leap years included. */
export function daysInMonth(year: number, month: number): number {
  if (month !== 1) return MONTH_DAYS[month]!;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/** Whether year, month (1-based) and day name a real calendar date. */
function isRealDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month - 1);
}

/**
 * Reads an instant from a Date or an ISO-8601 string: a date ("2026-05-20", UTC midnight), a
 * datetime with or without a zone (no zone means UTC), or an hour key ("2026-05-20T13").
 * Returns null for a string of no such shape or an impossible date, so callers can word the error.
 */
export function parseInstant(text: string): Date | null {
  const date = ISO_DATE.exec(text);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    return isRealDate(y, m, d) ? utc(y, m - 1, d) : null;
  }
  const dt = ISO_DATETIME.exec(text);
  if (!dt) return null;
  const [y, mo, d, h] = [Number(dt[1]), Number(dt[2]), Number(dt[3]), Number(dt[4])];
  const mi = Number(dt[5] ?? 0);
  const s = Number(dt[6] ?? 0);
  if (!isRealDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
  const ms = dt[7] ? Number(dt[7].slice(0, 3).padEnd(3, "0")) : 0;
  const instant = utc(y, mo - 1, d, h).getTime() + mi * 60_000 + s * 1000 + ms;
  return new Date(instant - zoneOffsetMs(dt[8]));
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone === "Z" || zone === "z") return 0;
  const sign = zone[0] === "-" ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
}

/**
 * The instant a public date parameter names: a valid Date (read by its UTC fields) or an ISO
 * string. `keyReader` lets a partition key of any shape stand for its period's start.
 */
export function toDate(value: unknown, what: string, keyReader?: (key: string) => Date | null): Date {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError(`${what}: expected a valid Date or ISO date string, got an invalid Date`);
    return new Date(value.getTime());
  }
  if (typeof value !== "string") {
    throw new TypeError(`${what}: expected a Date or an ISO date string, got ${describe(value)}`);
  }
  const parsed = parseInstant(value) ?? keyReader?.(value) ?? null;
  if (!parsed) {
    throw new PartitionError(
      `${what}: ${describe(value)} is not a date: expected an ISO date ("2026-05-20"), datetime ("2026-05-20T13:45:00Z") or partition key`,
    );
  }
  return parsed;
}

/**
 * The epoch milliseconds of a row's partition column value, or NaN when it holds no instant.
 * Hot path of slicing: ISO date strings skip the regex.
 */
export function instantOf(value: unknown): number {
  if (typeof value === "string") {
    if (value.length === 10 && value.charCodeAt(4) === 45 && value.charCodeAt(7) === 45) {
      const y = Number(value.slice(0, 4));
      const m = Number(value.slice(5, 7));
      const d = Number(value.slice(8, 10));
      if (y >= 100 && isRealDate(y, m, d)) return Date.UTC(y, m - 1, d);
    }
    return parseInstant(value)?.getTime() ?? Number.NaN;
  }
  if (value instanceof Date) return value.getTime();
  return Number.NaN;
}

/** The wall-clock calendar date of an instant in an IANA zone, as a UTC-midnight Date. */
export function calendarDateIn(instant: Date, timeZone: string): Date {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(instant);
  } catch (error) {
    throw new PartitionError(`unknown time zone ${describe(timeZone)}: expected an IANA name such as "Europe/Paris" or "UTC"`, { cause: error });
  }
  const field = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return utc(field("year"), field("month") - 1, field("day"));
}
