// The checking of what a check is declared with: each mistake is a one-line ConfigError naming
// the call (`il.checks.range("amount")`), what it was given and what it expects.
import { ConfigError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import type { Check, CheckAccumulator, CheckKind, CheckScope, CheckSeverity } from "./check.js";

/** What every check takes besides its own options. */
export interface CheckOptions {
  /** "error" (the default): a failure keeps the partition from being written; "warn": written, and reported. */
  readonly severity?: CheckSeverity;
}

const SEVERITIES: readonly CheckSeverity[] = ["error", "warn"];

/** How a message names the call being checked: `il.checks.unique("id")`. */
export function callName(type: string, args: readonly unknown[]): string {
  const shown = args.map((a) => (typeof a === "string" ? JSON.stringify(a) : "…")).join(", ");
  return type === "custom" ? `il.check(${shown})` : `il.checks.${type}(${shown})`;
}

/** Checks an options object against the fields it may have; undefined reads as {}. */
export function checkedOptions<T extends CheckOptions>(call: string, value: unknown, fields: readonly string[]): T {
  if (value === undefined) return {} as T;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`${call}: options must be an object ({ ${[...fields, "severity"].join(", ")} }), got ${describeValue(value)}`);
  }
  const unknown = Object.keys(value).filter((k) => k !== "severity" && !fields.includes(k));
  if (unknown.length > 0) {
    throw new ConfigError(`${call}: unknown option "${unknown[0]}": expected ${[...fields, "severity"].join(", ")}`);
  }
  const severity = (value as CheckOptions).severity;
  if (severity !== undefined && !SEVERITIES.includes(severity)) {
    throw new ConfigError(`${call}: severity must be "error" or "warn", got ${describeValue(severity)}`);
  }
  return value as T;
}

/** Splits `(...columns, options?)`: at least one column name, then an optional options object. */
export function columnsAndOptions(type: string, args: readonly unknown[]): { columns: string[]; options: unknown; call: string } {
  const last = args[args.length - 1];
  const hasOptions = typeof last === "object" && last !== null && !Array.isArray(last);
  const columns = hasOptions ? args.slice(0, -1) : [...args];
  const call = callName(type, columns);
  if (columns.length === 0) throw new ConfigError(`${call}: name at least one column`);
  for (const column of columns) {
    if (typeof column !== "string" || column === "") {
      throw new ConfigError(`${call}: a column must be a non-empty string, got ${describeValue(column)}`);
    }
  }
  const repeated = columns.find((c, i) => columns.indexOf(c) !== i);
  if (repeated !== undefined) throw new ConfigError(`${call}: column "${String(repeated)}" is named twice`);
  return { columns: columns as string[], options: hasOptions ? last : undefined, call };
}

/** A check from its parts, frozen. */
export function makeCheck(parts: {
  type: CheckKind;
  name: string;
  severity: CheckSeverity | undefined;
  columns?: readonly string[];
  needsPartitions?: boolean;
  start: (scope: CheckScope, check: Check) => CheckAccumulator;
}): Check {
  const check: Check = Object.freeze({
    kind: "check" as const,
    type: parts.type,
    name: parts.name,
    severity: parts.severity ?? "error",
    columns: Object.freeze([...(parts.columns ?? [])]),
    needsPartitions: parts.needsPartitions ?? false,
    start: (scope: CheckScope) => parts.start(scope, check),
  });
  return check;
}

/** A non-negative safe integer, or a ConfigError naming the option. */
export function countOption(call: string, name: string, value: unknown, least = 0): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least) {
    throw new ConfigError(`${call}: ${name} must be an integer of at least ${least}, got ${describeValue(value)}`);
  }
  return value;
}
