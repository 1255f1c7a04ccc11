import { tzOffset } from "@date-fns/tz/tzOffset";
import { UTCDateMini } from "@date-fns/utc/date/mini";
import { addMinutes, startOfDay } from "date-fns";
import { PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";

// Dates are read and built on the UTC calendar only (date-fns with a UTC context), so results
// never depend on the process's time zone. What is public stays a plain Date.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

/** The `in` context of date-fns that does its arithmetic on the UTC calendar. */
export const inUtc = (value: Date | number | string): Date => new UTCDateMini(typeof value === "string" ? Date.parse(value) : +value);

/** The plain Date of a date-fns result, as the public API hands Dates out. */
export const plain = (date: Date): Date => new Date(date.getTime());

/** A UTC Date from calendar fields (0-based month), correct for years 0-99 too. */
export function utc(year: number, month = 0, day = 1, hour = 0): Date {
  return new Date(utcMs(year, month, day, hour));
}

/** The epoch milliseconds of UTC calendar fields; out-of-range fields roll over as Date's do. */
function utcMs(year: number, month: number, day: number, hour = 0): number {
  // Date.UTC is the fast way, but maps years 0-99 to 19xx: those go through the field setters.
  if (year >= 100) return Date.UTC(year, month, day, hour);
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hour, 0, 0, 0);
  return date.getTime();
}

/**
 * Whether year, month (1-based) and day name a real calendar date: the day comes before the
 * next month's first. On the hot path of slicing rows, so numbers only, no Date objects.
 */
export function isRealDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && (day <= 28 || utcMs(year, month - 1, day) < utcMs(year, month, 1));
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

/**
 * The offset from UTC, in milliseconds, that an ISO datetime string states ("+05:00", "Z"), or
 * null when it states none (a date, a datetime without a zone, anything else).
 */
export function statedOffsetMs(text: string): number | null {
  const zone = ISO_DATETIME.exec(text.trim())?.[8];
  return zone === undefined ? null : zoneOffsetMs(zone);
}

/** The offset a datetime string's zone designator ("Z", "+05:30", "-0800") states. */
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
    throw new TypeError(`${what}: expected a Date or an ISO date string, got ${describeValue(value)}`);
  }
  const parsed = parseInstant(value) ?? keyReader?.(value) ?? null;
  if (!parsed) {
    throw new PartitionError(
      `${what}: ${JSON.stringify(value)} is not a date: expected an ISO date ("2026-05-20"), datetime ("2026-05-20T13:45:00Z") or partition key`,
    );
  }
  return parsed;
}

const DAY_MS = 86_400_000;
const PERIOD_KEY = /^(\d{4})(?:-(\d{2})|-Q([1-4])|-W(\d{2}))?$/;

/**
 * The epoch milliseconds of the start of the period a week, month, quarter or year key names
 * ("2026-W21", "2026-05", "2026-Q2", "2026"), or NaN for other text and for a key naming no
 * real period. (Day and hour keys are ISO text `parseInstant` reads.)
 */
function periodKeyStart(text: string): number {
  const key = PERIOD_KEY.exec(text);
  if (!key) return Number.NaN;
  const year = Number(key[1]);
  if (key[2] !== undefined) {
    const month = Number(key[2]);
    return month >= 1 && month <= 12 ? utcMs(year, month - 1, 1) : Number.NaN;
  }
  if (key[3] !== undefined) return utcMs(year, (Number(key[3]) - 1) * 3, 1);
  if (key[4] === undefined) return utcMs(year, 0, 1);
  // ISO week 1 holds January 4th; a week belongs to the year that holds its Thursday.
  const january4 = utcMs(year, 0, 4);
  const start = january4 - ((new Date(january4).getUTCDay() + 6) % 7) * DAY_MS + (Number(key[4]) - 1) * 7 * DAY_MS;
  return Number(key[4]) >= 1 && new Date(start + 3 * DAY_MS).getUTCFullYear() === year ? start : Number.NaN;
}

/**
 * The epoch milliseconds of a row's partition column value, or NaN when it holds no instant.
 * A partition key stands for its period's start, so that rows may carry their partition's own
 * key ("2026-05" in a monthly partition), as any date inside the period.
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
    return parseInstant(value)?.getTime() ?? periodKeyStart(value);
  }
  if (value instanceof Date) return value.getTime();
  return Number.NaN;
}

/** The wall-clock calendar date of an instant in an IANA zone, as a UTC-midnight Date. */
export function calendarDateIn(instant: Date, timeZone: string): Date {
  const wallClock = addMinutes(instant, zoneOffsetMinutes(timeZone, instant), { in: inUtc });
  return plain(startOfDay(wallClock));
}

// One formatter per zone: it validates the name once, and states the offset's sign (below).
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at an instant, in minutes east; PartitionError for an unknown zone. */
function zoneOffsetMinutes(timeZone: string, instant: Date): number {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    // tzOffset would read a name such as "Foo+05" as a fixed offset, and Intl on Node 22 and later
    // takes "+05:30" as a zone; only IANA names are zones here, and none starts with a sign.
    const unknown = (cause?: unknown) =>
      new PartitionError(`unknown time zone ${JSON.stringify(timeZone)}: expected an IANA name such as "Europe/Paris" or "UTC"`, { cause });
    if (/^[+-]/.test(timeZone)) throw unknown();
    try {
      format = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
    } catch (error) {
      throw unknown(error);
    }
    offsetFormats.set(timeZone, format);
  }
  const offset = tzOffset(timeZone, instant);
  // @date-fns/tz 1.5 reads an offset west of UTC by less than an hour ("GMT-00:44:30", Monrovia
  // until 1972, the local mean times of Dublin, Lisbon, ...) as east of it: take the sign from
  // the formatter for those.
  if (Math.abs(offset) < 60 && offset !== 0) return format.format(instant).includes("GMT-") ? -Math.abs(offset) : Math.abs(offset);
  return offset;
}
