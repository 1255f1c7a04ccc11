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

const TAG = /^[A-Za-z0-9_-]+$/;

/** Checks an asset's tags: an array of non-empty strings of letters, digits, `_` and `-`; returns them frozen, each once. */
export function checkTags(tags: unknown, owner: string): readonly string[] {
  if (tags === undefined) return Object.freeze([]);
  if (!Array.isArray(tags))
    throw new ConfigError(`${owner}: tags must be an array of strings, got ${JSON.stringify(tags) ?? String(tags)}`);
  for (const tag of tags) {
    if (typeof tag !== "string" || !TAG.test(tag)) {
      throw new ConfigError(
        `${owner}: tag ${JSON.stringify(tag) ?? String(tag)} is invalid: expected a non-empty string of letters, digits, _ or - (e.g. "finance")`,
      );
    }
  }
  return Object.freeze([...new Set(tags as string[])]);
}
