import { AssetError, ConfigError } from "../errors.js";
import { checksNamed, type Attempt, type RunControl } from "./attempt.js";

/** The time limits a run takes, checked before anything runs. */
export function checkLimits(options: { readonly timeoutMs?: number; readonly graceMs?: number }): void {
  const { timeoutMs, graceMs } = options;
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
    throw new ConfigError(
      `timeoutMs must be a number of milliseconds above 0 and at most ${MAX_TIMER_MS} (24 days), got ${String(timeoutMs)}`,
    );
  }
  if (graceMs !== undefined && !(Number.isFinite(graceMs) && graceMs >= 0 && graceMs <= MAX_TIMER_MS)) {
    throw new ConfigError(`graceMs must be a number of milliseconds from 0 to ${MAX_TIMER_MS} (24 days), got ${String(graceMs)}`);
  }
}

/** How long a child process that was asked to stop may run past its limit or grace before it is killed with SIGKILL. */
export const CHILD_KILL_DELAY_MS = 15_000;

/** The time running partitions get to finish after an interrupt, unless told otherwise (the CLI's --grace). */
export const DEFAULT_GRACE_MS = 10_000;

/** The longest delay a timer keeps (a longer one fires at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A limit as messages print it: "30s", "1.5s", "250ms", "10m", "2h". */
export function formatLimit(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/** What interrupted a run, from its signal's reason: "SIGTERM" when the CLI aborted it, else "the interrupt". */
export function interruptName(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  const message =
    reason instanceof Error || (typeof DOMException !== "undefined" && reason instanceof DOMException)
      ? (reason as Error).message
      : typeof reason === "string"
        ? reason
        : "";
  return /^SIG[A-Z]+$/.test(message) ? message : "the interrupt";
}

/**
 * A run's time limits, each abandoning the attempts still running when it passes: the timeout
 * from the run's start (they fail); the grace once its signal aborts or its control halts
 * (they are canceled).
 */
export class RunLimits {
  /** Whether the timeout passed. */
  timedOut = false;
  private readonly timeout: ReturnType<typeof setTimeout> | null = null;
  private grace: ReturnType<typeof setTimeout> | null = null;
  private readonly unlisten: Array<() => void> = [];

  constructor(
    private readonly attempts: ReadonlyMap<string, Attempt>,
    options: { readonly timeoutMs?: number; readonly graceMs?: number },
    control: RunControl,
  ) {
    const { timeoutMs, graceMs } = options;
    // Unref'd: a run whose every attempt waits on a promise nothing can settle is failed as soon
    // as the event loop drains (watchdog.ts), not only once a limit passes.
    if (timeoutMs !== undefined) this.timeout = setTimeout(() => this.timeOut(timeoutMs), timeoutMs).unref();
    if (graceMs === undefined) return;
    this.unlisten.push(
      control.onInterrupt(() => this.startGrace(graceMs, interruptName(control.signal!))),
      control.onHalt(() => this.startGrace(graceMs, `the run stopped (${control.haltReason})`)),
    );
  }

  /** Stops the timers: the run is over. */
  dispose(): void {
    if (this.timeout) clearTimeout(this.timeout);
    if (this.grace) clearTimeout(this.grace);
    for (const unlisten of this.unlisten) unlisten();
  }

  private startGrace(graceMs: number, after: string): void {
    if (this.grace) return;
    const why = `abandoned: still running ${formatLimit(graceMs)} after ${after}`;
    this.grace = setTimeout(() => {
      for (const attempt of this.attempts.values()) attempt.abandon({ status: "canceled", error: new Error(why) });
    }, graceMs).unref();
  }

  private timeOut(timeoutMs: number): void {
    this.timedOut = true;
    for (const attempt of this.attempts.values()) {
      const io = attempt.io;
      // A check awaited inside a write (over a stream) is what holds it: named first.
      const judging = attempt.judging;
      const doing =
        judging.length > 0
          ? ` waiting for ${checksNamed(judging)}`
          : io
            ? io.kind === "write"
              ? ` writing to ${io.destination}`
              : ` reading ${io.destination}`
            : "";
      attempt.abandon({ status: "failed", error: new AssetError(`${attempt.label} timed out after ${formatLimit(timeoutMs)}${doing}`) });
    }
  }
}
