import type { InterloperEvent, LogLevel } from "../../runner/events.js";

const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/**
 * The plain text of a log event at or above `least` ("warning: shop.orders: ..."), null for
 * other events and quieter levels. Warnings and errors always show; info with --verbose.
 */
export function logLine(event: InterloperEvent, least: LogLevel = "warn"): string | null {
  if (event.type !== "log" || LEVELS.indexOf(event.level) < LEVELS.indexOf(least)) return null;
  const word = event.level === "warn" ? "warning" : event.level;
  return `${word}: ${event.asset ? `${event.asset}: ` : ""}${event.message}`;
}
