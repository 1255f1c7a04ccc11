import type { Check } from "./check.js";

/**
 * A check as one line of plain text, for `list`: `unique(order_id)`, `range(amount, min 0) warn`,
 * `check("no refund above 10k")`. The severity is said only when it is "warn".
 */
export function describeCheck(check: Check): string {
  const text = check.type === "custom" ? `check(${JSON.stringify(check.name)})` : check.name;
  return check.severity === "warn" ? `${text} warn` : text;
}
