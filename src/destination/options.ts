import { closest } from "../suggest.js";
import { ConfigError } from "../errors.js";

/**
 * Refuses an options object that names a key `owner` does not know, or lacks a required one: a
 * mistyped option (`basepath` for `basePath`) must never fall back to a default silently.
 */
export function checkOptions(given: unknown, known: readonly string[], required: readonly string[], owner: string): void {
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new ConfigError(`${owner}: expected an options object, got ${describe(given)}`);
  }
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) throw new ConfigError(unknownOption(owner, key, known));
  }
  for (const key of required) {
    if ((given as Record<string, unknown>)[key] === undefined) throw new ConfigError(`${owner}: option "${key}" is required`);
  }
}

/** The message for an option no field or known key takes, with the nearest known key. */
export function unknownOption(owner: string, key: string, known: readonly string[]): string {
  const nearest = closest(key, known);
  const hint = nearest ? `; did you mean "${nearest}"?` : "";
  return `${owner}: unknown option "${key}"${hint} (known: ${known.join(", ") || "none"})`;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return `${typeof value} ${String(value)}`;
}
