import { toDate } from "./dates.js";

/** A Date from an ISO date or datetime string, at UTC midnight for a date: `il.date("2026-05-20")`. */
export function date(value: string | Date): Date {
  return toDate(value, "il.date");
}
