import {
  addDays,
  addHours,
  addMonths,
  addQuarters,
  addWeeks,
  addYears,
  differenceInCalendarDays,
  differenceInCalendarISOWeeks,
  differenceInCalendarMonths,
  differenceInCalendarQuarters,
  differenceInCalendarYears,
  differenceInHours,
  getISOWeek,
  getISOWeeksInYear,
  getISOWeekYear,
  getQuarter,
  startOfDay,
  startOfHour,
  startOfISOWeek,
  startOfISOWeekYear,
  startOfMonth,
  startOfQuarter,
  startOfYear,
} from "date-fns";
import { PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { inUtc, isRealDate, plain, toDate, utc } from "./dates.js";

export type GranularityName = "hour" | "day" | "week" | "month" | "quarter" | "year";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** date-fns on the UTC calendar: periods are UTC-defined whatever the process's zone. */
const UTC = { in: inUtc } as const;

/** How a granularity's periods start, step and are named: date-fns does the calendar. */
/** A key's numeric fields in order (year first); a shape has at most four groups. */
type KeyGroups = readonly [number, number, number, number];

interface Calendar {
  readonly shape: RegExp;
  readonly example: string;
  truncate(d: Date): Date;
  /** Start of the period `n` after the one starting at `start`. */
  step(start: Date, n: number): Date;
  /** Whole periods from one period start to another. */
  between(a: Date, b: Date): number;
  /** The key of the period holding an instant: read from its fields, so it needs no truncating. */
  format(instant: Date): string;
  /** The period start a key's matched groups name (unmatched trailing ones 0), or null when they name no real period. */
  read(groups: KeyGroups): Date | null;
}

type Truncate = (d: Date, options: typeof UTC) => Date;
type Step = (d: Date, n: number, options: typeof UTC) => Date;
type Between = (later: Date, earlier: Date, options: typeof UTC) => number;

/** A calendar's arithmetic from its date-fns functions; results are plain Dates. */
function arithmetic(truncate: Truncate, step: Step, between: Between): Pick<Calendar, "truncate" | "step" | "between"> {
  return {
    truncate: (d) => plain(truncate(d, UTC)),
    step: (s, n) => plain(step(s, n, UTC)),
    between: (a, b) => between(b, a, UTC),
  };
}

/** Monday of ISO week 1 of an ISO week-year (January 4th always lies in that week-year). */
const keyGroups = (match: RegExpExecArray): KeyGroups => [
  Number(match[1]),
  Number(match[2] ?? 0),
  Number(match[3] ?? 0),
  Number(match[4] ?? 0),
];

const isoWeekYearStart = (weekYear: number) => startOfISOWeekYear(utc(weekYear, 0, 4), UTC);

const calendars: Record<GranularityName, Calendar> = {
  hour: {
    shape: /^(\d{4})-(\d{2})-(\d{2})T(\d{2})$/,
    example: "2026-05-20T13",
    ...arithmetic(startOfHour, addHours, differenceInHours),
    format: (d) => `${calendars.day.format(d)}T${pad(d.getUTCHours())}`,
    read: ([y, m, d, h]) => (isRealDate(y, m, d) && h <= 23 ? utc(y, m - 1, d, h) : null),
  },
  day: {
    shape: /^(\d{4})-(\d{2})-(\d{2})$/,
    example: "2026-05-20",
    ...arithmetic(startOfDay, addDays, differenceInCalendarDays),
    format: (d) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    read: ([y, m, d]) => (isRealDate(y, m, d) ? utc(y, m - 1, d) : null),
  },
  week: {
    shape: /^(\d{4})-W(\d{2})$/,
    example: "2026-W21",
    ...arithmetic(startOfISOWeek, addWeeks, differenceInCalendarISOWeeks),
    format: (d) => `${pad(getISOWeekYear(d, UTC), 4)}-W${pad(getISOWeek(d, UTC))}`,
    read: ([y, w]) => (w >= 1 && w <= getISOWeeksInYear(utc(y, 0, 4), UTC) ? plain(addWeeks(isoWeekYearStart(y), w - 1, UTC)) : null),
  },
  month: {
    shape: /^(\d{4})-(\d{2})$/,
    example: "2026-05",
    ...arithmetic(startOfMonth, addMonths, differenceInCalendarMonths),
    format: (d) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}`,
    read: ([y, m]) => (m >= 1 && m <= 12 ? utc(y, m - 1, 1) : null),
  },
  quarter: {
    shape: /^(\d{4})-Q(\d)$/,
    example: "2026-Q2",
    ...arithmetic(startOfQuarter, addQuarters, differenceInCalendarQuarters),
    format: (d) => `${pad(d.getUTCFullYear(), 4)}-Q${getQuarter(d, UTC)}`,
    read: ([y, q]) => (q >= 1 && q <= 4 ? utc(y, (q - 1) * 3, 1) : null),
  },
  year: {
    shape: /^(\d{4})$/,
    example: "2026",
    ...arithmetic(startOfYear, addYears, differenceInCalendarYears),
    format: (d) => pad(d.getUTCFullYear(), 4),
    read: ([y]) => utc(y, 0, 1),
  },
};

/** A length of time partition: owns every piece of period arithmetic. Instances are singletons. */
export class TimeGranularity {
  static readonly HOUR = new TimeGranularity("hour");
  static readonly DAY = new TimeGranularity("day");
  static readonly WEEK = new TimeGranularity("week");
  static readonly MONTH = new TimeGranularity("month");
  static readonly QUARTER = new TimeGranularity("quarter");
  static readonly YEAR = new TimeGranularity("year");
  /** Every granularity, shortest first. */
  static readonly all: readonly TimeGranularity[] = [this.HOUR, this.DAY, this.WEEK, this.MONTH, this.QUARTER, this.YEAR];

  private readonly calendar: Calendar;

  private constructor(readonly name: GranularityName) {
    this.calendar = calendars[name];
    Object.freeze(this);
  }

  /** The granularity by name ("day", "month", ...), or PartitionError. */
  static named(name: string): TimeGranularity {
    const found = TimeGranularity.all.find((g) => g.name === name);
    if (!found) {
      throw new PartitionError(
        `unknown granularity ${JSON.stringify(name)}: expected one of ${TimeGranularity.all.map((g) => g.name).join(", ")}`,
      );
    }
    return found;
  }

  /** The granularity a key's shape names ("2026-08" is monthly), or PartitionError. */
  static fromKey(key: string): TimeGranularity {
    if (typeof key !== "string") throw new TypeError(`expected a partition key string, got ${describeValue(key)}`);
    const found = TimeGranularity.all.find((g) => g.calendar.shape.test(key));
    if (!found) {
      const shapes = TimeGranularity.all.map((g) => `${g.calendar.example} (${g.name})`).join(", ");
      throw new PartitionError(`${JSON.stringify(key)} is not a time partition key: expected one of ${shapes}`);
    }
    return found;
  }

  /** Start of the period holding `value`. */
  truncate(value: Date | string): Date {
    return this.calendar.truncate(this.read(value));
  }

  /** Start of the period `periods` after the one holding `value` (negative goes back). */
  advance(value: Date | string, periods: number): Date {
    if (!Number.isInteger(periods)) throw new TypeError(`periods: expected an integer, got ${describeValue(periods)}`);
    return this.calendar.step(this.truncate(value), periods);
  }

  /** The half-open bounds [start, end) of the period holding `value`. */
  bounds(value: Date | string): [Date, Date] {
    const start = this.truncate(value);
    return [start, this.calendar.step(start, 1)];
  }

  /** Whole periods from the one holding `a` to the one holding `b` (negative when b is earlier). */
  periodsBetween(a: Date | string, b: Date | string): number {
    return this.calendar.between(this.truncate(a), this.truncate(b));
  }

  /** The key of the period holding `value`. */
  format(value: Date | string): string {
    return this.calendar.format(this.read(value));
  }

  /** The start of the period a key of this granularity names, or PartitionError. */
  parse(key: string): Date {
    if (typeof key !== "string") throw new TypeError(`expected a ${this.name} key string, got ${describeValue(key)}`);
    const match = this.calendar.shape.exec(key);
    const start = match ? this.calendar.read(keyGroups(match)) : null;
    if (!start) {
      const why = match
        ? `has the shape of ${this.calendar.example} but names no real ${this.name}`
        : `expected the shape ${this.calendar.example}`;
      throw new PartitionError(`${JSON.stringify(key)} is not a valid ${this.name} key: ${why}`);
    }
    return start;
  }

  /** Starts of the periods holding `start` through `end`, both inclusive. */
  *periodRange(start: Date | string, end: Date | string): Generator<Date> {
    const first = this.truncate(start);
    const count = this.calendar.between(first, this.truncate(end));
    for (let i = 0; i <= count; i++) yield this.calendar.step(first, i);
  }

  toString(): string {
    return this.name;
  }

  toJSON(): string {
    return this.name;
  }

  /** Reads a date parameter; a key of any granularity stands for its period's start. */
  private read(value: Date | string): Date {
    return toDate(value, `${this.name} value`, keyStart);
  }
}

function keyStart(key: string): Date | null {
  const g = TimeGranularity.all.find((candidate) => calendars[candidate.name].shape.test(key));
  if (!g) return null;
  try {
    return g.parse(key);
  } catch {
    return null;
  }
}
