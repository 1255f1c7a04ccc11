import { InterloperError } from "../errors.js";
import { flagOf } from "./flags.js";
import { printable, printableLines } from "./printable.js";

/**
 * Prints an error for a person: one line, no stack unless verbose (or DEBUG=interloper).
 * Returns the exit code: 2 for bad input or configuration, 1 for anything unexpected.
 */
export function reportError(error: unknown, verbose: boolean): number {
  const debug = debugging(verbose);
  const err = error instanceof Error ? error : new Error(String(error));
  const known = err instanceof InterloperError;
  // The API's messages name its options; a person at the command line reads the flags.
  const line = (known ? err.messageNaming(flagOf) : err.message).split("\n")[0]!.trim();
  process.stderr.write(`interloper: ${known ? "" : "unexpected error: "}${printable(line)}\n`);
  if (debug) {
    const trace = `${err.stack ?? ""}${err.cause ? `\ncaused by: ${(err.cause as Error).stack ?? String(err.cause)}` : ""}`;
    process.stderr.write(`${printableLines(trace.split("\n"))}\n`);
  }
  return known ? 2 : 1;
}

/** Whether stack traces are printed: --verbose or DEBUG=interloper. */
export function debugging(verbose: boolean | undefined): boolean {
  return verbose === true || /(^|,)\s*interloper\b/.test(process.env["DEBUG"] ?? "");
}
