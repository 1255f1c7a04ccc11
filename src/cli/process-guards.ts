import { closeCommandSessions, takeEscapedError } from "./command-session.js";
import { debugging, reportError } from "./errors.js";
import { printableLines } from "./printable.js";

/** How long closing the destinations may take before a process with abandoned work exits anyway. */
const CLOSE_LIMIT_MS = 2_000;

/**
 * While a command runs: an error thrown outside every promise (an uncaught exception, an
 * unhandled rejection) goes to the runs under way, which fail in order and end with their
 * summary; with no run to take it, the command ends with one line and exit 1. Never a raw
 * crash. Returns the function that removes the guard.
 */
export function guardEscapedErrors(verbose: boolean | undefined): () => void {
  const onEscape = (error: unknown) => {
    if (debugging(verbose))
      process.stderr.write(`${printableLines((error instanceof Error ? (error.stack ?? error.message) : String(error)).split("\n"))}\n`);
    if (takeEscapedError(error)) return;
    process.exitCode = 1;
    reportError(error, false);
    void exitOnceFlushed(1);
  };
  process.on("uncaughtException", onEscape);
  process.on("unhandledRejection", onEscape);
  return () => {
    process.off("uncaughtException", onEscape);
    process.off("unhandledRejection", onEscape);
  };
}

/**
 * Ends a process whose run abandoned work that may still hold timers, sockets or the CPU
 * (a hung asset, a write that never returns): they would keep it alive forever after its
 * summary. For CLOSE_LIMIT_MS at most, the abandoned work ends what it was told to stop
 * (`settled`: a write removes its temporary file) and the destinations close.
 */
export async function exitLeavingAbandonedWork(code: number, settled: Promise<void> = Promise.resolve()): Promise<never> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all([settled, closeCommandSessions().catch(() => undefined)]),
    new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_LIMIT_MS))),
  ]);
  clearTimeout(timer);
  return exitOnceFlushed(code);
}

/** Exits once what was written to stdout and stderr has been handed to the system. */
export function exitOnceFlushed(code: number): Promise<never> {
  return new Promise<never>(() => {
    process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
  });
}
