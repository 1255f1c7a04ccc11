// Helpers many test files share: a UTC date from its ISO text, and the error a call throws.
import { expect } from "vitest";
import { PartitionError } from "../../src/errors.js";

/** The instant an ISO text names; a bare date (`2026-01-01`) is UTC midnight. */
export function D(iso: string): Date {
  return new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
}

/** What `fn` throws; fails the test when it returns instead. */
export function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to throw, but it returned");
}

/** What `promise` rejects with, or undefined when it resolves. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** Asserts that `fn` throws a PartitionError whose message holds every one of `mentions`. */
export function expectPartitionError(fn: () => unknown, ...mentions: string[]): void {
  const error = errorOf(fn);
  expect(error).toBeInstanceOf(PartitionError);
  for (const mention of mentions) expect(error.message).toContain(mention);
}
