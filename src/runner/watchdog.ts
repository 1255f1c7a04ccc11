import { AssetError } from "../errors.js";
import { checksNamed, currentAttempt, type Attempt, type Attempts, type RunControl } from "./attempt.js";

/**
 * The watchdogs with a run under way. A drained event loop is a fact of the whole process, so
 * one `beforeExit` listener serves them all; it is there only while one of them watches a run.
 */
const watching = new Set<Watchdog>();

function failStalledEverywhere(): void {
  for (const watchdog of [...watching]) watchdog.failStalled();
}

/**
 * The watch over one session's top-level runs and backfills (see RunContext). While one runs, a
 * drained event loop means every attempt in flight waits on a promise nothing can settle any
 * more: they are failed (their runs go on), instead of the process exiting as if the run had
 * ended. An error thrown outside every promise is handed to it with `takeEscapedError`.
 */
export class Watchdog {
  /** The controls of the runs and backfills under way. */
  private readonly active = new Set<RunControl>();

  constructor(private readonly attempts: Attempts) {}

  /** Registers a top-level run or backfill while it runs; returns its removal. */
  watch(control: RunControl): () => void {
    if (watching.size === 0) process.on("beforeExit", failStalledEverywhere);
    watching.add(this);
    this.active.add(control);
    return () => {
      this.active.delete(control);
      if (this.active.size > 0) return;
      watching.delete(this);
      if (watching.size === 0) process.off("beforeExit", failStalledEverywhere);
    };
  }

  /** Whether a run or backfill is under way. */
  get underWay(): boolean {
    return this.active.size > 0;
  }

  /** Fails every attempt in flight: nothing is left running that could settle them. */
  failStalled(): void {
    for (const attempt of [...this.attempts.inFlight]) {
      const io = attempt.io;
      const judging = attempt.judging;
      const what =
        judging.length > 0
          ? checksNamed(judging)
          : io
            ? `its ${io.kind} ${io.kind === "write" ? "to" : "of"} ${io.destination}`
            : "its promise";
      attempt.abandon({
        status: "failed",
        error: new AssetError(`${attempt.label} never finished: ${what} never settled (nothing was left running that could settle it)`),
      });
    }
  }

  /**
   * Takes an error thrown outside any promise (an uncaught exception or an unhandled rejection):
   * scheduling stops in every run under way here; the asset whose code scheduled the failing
   * callback, when it is known and still running, fails with it; otherwise the error fails the
   * runs themselves. Returns false when no run is under way here to take it, or when the
   * callback belongs to another session's asset.
   */
  takeEscapedError(caught: unknown): boolean {
    if (this.active.size === 0) return false;
    const attempt: Attempt | undefined = currentAttempt();
    if (attempt && attempt.registry !== this.attempts) return false;
    const error = caught instanceof Error ? caught : new Error(String(caught));
    const reason = "an asset threw outside its run";
    if (
      attempt?.abandon({
        status: "failed",
        error: new AssetError(`${attempt.label} threw outside its run: ${error.message}`, { cause: error }),
      })
    ) {
      for (const control of this.active) control.halt(reason);
      return true;
    }
    const who = attempt ? `${attempt.label} threw outside its run after it had ended` : reason;
    const failure = new AssetError(`${who}: ${error.message}`, { cause: error });
    for (const control of this.active) control.halt(reason, failure);
    return true;
  }
}
