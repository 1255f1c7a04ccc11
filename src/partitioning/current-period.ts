import { calendarDateIn } from "./dates.js";
import { TimeGranularity } from "./granularity.js";

/**
 * The start of the period under way at `now`. Hour keys are UTC labels; every longer period
 * follows the wall calendar of `timeZone`, so a daily asset's "today" is the zone's today.
 */
export function currentPeriod(granularity: TimeGranularity, now: Date, timeZone = "UTC"): Date {
  return granularity === TimeGranularity.HOUR ? granularity.truncate(now) : granularity.truncate(calendarDateIn(now, timeZone));
}
