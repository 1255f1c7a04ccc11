import { AssetError } from "../errors.js";
import { attemptsInFlight, currentAttempt, type Attempt, type RunControl } from "./attempt.js";

/** The controls of the top-level runs and backfills under way in this process. */
const active = new Set<RunControl>();

/**
 * Registers a top-level run or backfill while it runs. Meanwhile a drained event loop means
 * every attempt in flight waits on a promise nothing can settle any more: they are failed
 * (their runs go on), instead of the process exiting as if the run had ended.
 */
export function watchRun(control: RunControl): () => void {
  if (active.size === 0) process.on("beforeExit", failStalled);
  active.add(control);
  return () => {
    active.delete(control);
    if (active.size === 0) process.off("beforeExit", failStalled);
  };
}

/** Whether a run or backfill is under way in this process. */
export function runsUnderWay(): boolean {
  return active.size > 0;
}

function failStalled(): void {
  for (const attempt of attemptsInFlight()) {
    const io = attempt.io;
    const what = io ? `its ${io.kind} ${io.kind === "write" ? "to" : "of"} ${io.destination}` : "its promise";
    attempt.abandon({
      status: "failed",
      error: new AssetError(`${attempt.label} never finished: ${what} never settled (nothing was left running that could settle it)`),
    });
  }
}

/**
 * Takes an error thrown outside any promise (an uncaught exception or an unhandled rejection):
 * scheduling stops in every run under way; the asset whose code scheduled the failing callback,
 * when it is known and still running, fails with it; otherwise the error fails the runs
 * themselves. Returns false when no run is under way to take it.
 */
export function takeEscapedError(caught: unknown): boolean {
  if (active.size === 0) return false;
  const error = caught instanceof Error ? caught : new Error(String(caught));
  const attempt: Attempt | undefined = currentAttempt();
  const reason = "an asset threw outside its run";
  if (
    attempt?.abandon({
      status: "failed",
      error: new AssetError(`${attempt.label} threw outside its run: ${error.message}`, { cause: error }),
    })
  ) {
    for (const control of active) control.halt(reason);
    return true;
  }
  const who = attempt ? `${attempt.label} threw outside its run after it had ended` : reason;
  const failure = new AssetError(`${who}: ${error.message}`, { cause: error });
  for (const control of active) control.halt(reason, failure);
  return true;
}
