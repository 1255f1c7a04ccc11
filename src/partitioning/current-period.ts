import { calendarDateIn } from "./dates.js";
import { TimeGranularity } from "./granularity.js";

/**
 * The start of the period under way at `now`. Hour keys are UTC labels; every longer period
 * follows the wall calendar of `timeZone`, so a daily asset's "today" is the zone's today.
 */
export function currentPeriod(granularity: TimeGranularity, now: Date, timeZone = "UTC"): Date {
  return granularity === TimeGranularity.HOUR ? granularity.truncate(now) : granularity.truncate(calendarDateIn(now, timeZone));
}

/**
 * The start of the period under way at `now` on the wall clock of a fixed offset from UTC (an
 * offset a datetime string states, in milliseconds). Hours stay UTC labels, as above.
 */
export function currentPeriodAtOffset(granularity: TimeGranularity, now: Date, offsetMs: number): Date {
  // Shifted by the offset, the instant's UTC fields are the wall clock's, which truncation reads.
  return granularity === TimeGranularity.HOUR ? granularity.truncate(now) : granularity.truncate(new Date(now.getTime() + offsetMs));
}
