// ISO-8601 is parsed by hand rather than with Date.parse: Date.parse reads a datetime without a
// zone in the process's local time, which would make stored values depend on TZ. Calendar math
// is integer arithmetic on UTC days, with no Date allocated per value, since these run per cell.

const DAY_MS = 86_400_000;
const MAX_TIME = 8.64e15;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// The general shape; the common shapes ("YYYY-MM-DD" and toISOString's) skip the regex.
const DATETIME =
  /^(\d{4}|[+-]\d{6})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** An instant read from an ISO string; `zoned` when the string carried Z or an offset. */
export interface ParsedInstant {
  readonly time: number;
  readonly zoned: boolean;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (month 1-12), valid for any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Epoch milliseconds of UTC midnight of a date, or NaN for an impossible or out-of-range one. */
function dayTime(year: number, month: number, day: number): number {
  if (!(month >= 1 && month <= 12 && day >= 1)) return Number.NaN;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : MONTH_DAYS[month - 1]!)) return Number.NaN;
  const time = daysFromCivil(year, month, day) * DAY_MS;
  return Math.abs(time) <= MAX_TIME ? time : Number.NaN;
}

/** The number written by the digits text[start..end), or NaN if one is not a digit. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i) - 48;
    if (code < 0 || code > 9) return Number.NaN;
    value = value * 10 + code;
  }
  return value;
}

function readYear(text: string): number {
  // ISO 8601 forbids "-000000" (it would be year 0 twice).
  return text === "-000000" ? Number.NaN : Number(text);
}

/** UTC midnight of a "YYYY-MM-DD" (or "+YYYYYY-MM-DD") date in milliseconds, or NaN. */
export function parseIsoDate(text: string): number {
  if (text.length === 10) {
    if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return Number.NaN;
    return dayTime(digits(text, 0, 4), digits(text, 5, 7), digits(text, 8, 10));
  }
  const m = text.length === 13 ? DATETIME.exec(text) : null;
  return m === null || m[4] !== undefined || m[8] !== undefined || m[9] !== undefined
    ? Number.NaN
    : dayTime(readYear(m[1]!), Number(m[2]), Number(m[3]));
}

/** Whether a string is a real calendar date written "YYYY-MM-DD" (or "+YYYYYY-MM-DD"). */
export function isIsoDate(text: string): boolean {
  return !Number.isNaN(parseIsoDate(text));
}

/** toISOString's own shape, "YYYY-MM-DDTHH:MM:SS.sssZ", read without the regex. */
function parseCanonical(text: string): number {
  if (text.charCodeAt(10) !== 84 || text.charCodeAt(23) !== 90) return Number.NaN;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return Number.NaN;
  if (text[13] !== ":" || text[16] !== ":" || text[19] !== ".") return Number.NaN;
  const day = dayTime(digits(text, 0, 4), digits(text, 5, 7), digits(text, 8, 10));
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (!(hour <= 23 && minute <= 59 && second <= 59)) return Number.NaN;
  const time = day + ((hour * 60 + minute) * 60 + second) * 1000 + digits(text, 20, 23);
  return Math.abs(time) <= MAX_TIME ? time : Number.NaN;
}

/**
 * Reads an ISO-8601 date or datetime: no zone means UTC, a bare date means UTC midnight.
 * Fractions below the millisecond are dropped (Date cannot hold them). Null when the text is
 * not one, names an impossible date or time, or falls outside the range of Date.
 */
export function parseIsoDateTime(text: string): ParsedInstant | null {
  if (text.length === 24) {
    const time = parseCanonical(text);
    if (!Number.isNaN(time)) return { time, zoned: true };
  }
  const m = DATETIME.exec(text);
  if (m === null) return null;
  const day = dayTime(readYear(m[1]!), Number(m[2]), Number(m[3]));
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (Number.isNaN(day) || hour > 23 || minute > 59 || second > 59) return null;
  const millis = m[7] === undefined ? 0 : Number(`${m[7]}00`.slice(0, 3));
  let offset = 0;
  if (m[9] !== undefined) {
    const offHours = Number(m[10]);
    const offMinutes = m[11] === undefined ? 0 : Number(m[11]);
    if (offHours > 23 || offMinutes > 59) return null;
    offset = (m[9] === "-" ? -1 : 1) * (offHours * 60 + offMinutes) * 60_000;
  }
  const time = day + ((hour * 60 + minute) * 60 + second) * 1000 + millis - offset;
  if (Math.abs(time) > MAX_TIME) return null;
  return { time, zoned: m[8] !== undefined || m[9] !== undefined };
}

/** Whether an epoch time is midnight UTC (how a calendar date is held in a Date). */
export function isUtcMidnight(time: number): boolean {
  return time % DAY_MS === 0;
}

/** "YYYY-MM-DD" of a Date's UTC calendar day ("+YYYYYY-MM-DD" outside years 0-9999). */
export function formatIsoDate(date: Date): string {
  const iso = date.toISOString();
  return iso.slice(0, iso.indexOf("T"));
}
