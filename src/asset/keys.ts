import { ConfigError } from "../errors.js";

const KEY = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Checks an asset or source key: a letter, then letters, digits and underscores. */
export function checkKey(key: unknown, what: string): string {
  if (typeof key !== "string" || !KEY.test(key)) {
    throw new ConfigError(
      `${what} key ${JSON.stringify(key) ?? String(key)} is invalid: expected a letter followed by letters, digits or underscores (e.g. "daily_orders")`,
    );
  }
  return key;
}
