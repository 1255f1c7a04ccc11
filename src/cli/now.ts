import { ConfigError } from "../errors.js";
import { parseInstant } from "../partitioning/dates.js";

/**
 * The instant every command takes as "now": the clock, or INTERLOPER_NOW (an ISO instant) so
 * that tests and reproducible reports see one fixed moment. The only place that reads it.
 */
export function commandNow(): Date {
  const text = process.env["INTERLOPER_NOW"];
  if (text === undefined || text.trim() === "") return new Date();
  const instant = parseInstant(text.trim());
  if (!instant)
    throw new ConfigError(
      `INTERLOPER_NOW=${JSON.stringify(text)} is not an instant: expected an ISO date or datetime such as 2026-05-20T13:45:00Z`,
    );
  return instant;
}
