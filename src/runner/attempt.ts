import { AsyncLocalStorage } from "node:async_hooks";
import type { AssetEvent } from "../asset/events.js";
import type { ExecutionStatus } from "./run-result.js";

/** How an execution the runner stopped waiting for ends in its run's result. */
export interface Abandonment {
  readonly status: Exclude<ExecutionStatus, "completed">;
  readonly error: Error;
}

/** What an attempt was doing when it was abandoned, as its messages say it. */
export type AttemptIo = { readonly kind: "write" | "read"; readonly destination: string } | null;

/** The checks an attempt awaits, as messages name them: `check "no refunds"`, `checks "a", "b"`. */
export function checksNamed(names: readonly string[]): string {
  return `${names.length === 1 ? "check" : "checks"} ${names.map((name) => JSON.stringify(name)).join(", ")}`;
}

/**
 * What stops a run and, inside a backfill, every run of it: its interrupt (the `signal` it was
 * given) and halts (an error thrown outside any asset's run). Runs and attempts listen here, so
 * the caller's signal carries one listener however many runs and assets are in flight.
 */
export class RunControl {
  /** Why scheduling stopped for an error outside any asset's run, once it did. */
  haltReason: string | null = null;
  /** An error outside any asset's run that no asset could be blamed for: it fails the run itself. */
  error: Error | null = null;
  private readonly interruptListeners = new Set<() => void>();
  private readonly haltListeners = new Set<() => void>();
  private readonly detach: () => void;

  constructor(readonly signal?: AbortSignal) {
    const onAbort = () => fire(this.interruptListeners);
    signal?.addEventListener("abort", onAbort, { once: true });
    this.detach = () => signal?.removeEventListener("abort", onAbort);
  }

  /** Calls `listener` once the signal aborts (at once if it has); returns its removal. */
  onInterrupt(listener: () => void): () => void {
    return this.signal?.aborted ? (listener(), () => undefined) : listen(this.interruptListeners, listener);
  }

  /** Calls `listener` once the run halts (at once if it has); returns its removal. */
  onHalt(listener: () => void): () => void {
    return this.haltReason !== null ? (listener(), () => undefined) : listen(this.haltListeners, listener);
  }

  /** Stops scheduling in every run of this control; `error` fails the whole run. */
  halt(reason: string, error?: Error): void {
    if (error) this.error ??= error;
    if (this.haltReason !== null) return;
    this.haltReason = reason;
    fire(this.haltListeners);
  }

  /** Stops listening to the signal: the run is over. */
  dispose(): void {
    this.detach();
  }
}

function listen(listeners: Set<() => void>, listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function fire(listeners: Set<() => void>): void {
  const all = [...listeners];
  listeners.clear();
  for (const listener of all) listener();
}

/** The attempt whose asset code is running, as seen from any callback it scheduled. */
const scope = new AsyncLocalStorage<Attempt>();

/**
 * The attempts of one session's runs (see RunContext): those its runs wait for, and those they
 * abandoned whose promise is still pending (work left running in this process).
 */
export class Attempts {
  readonly inFlight = new Set<Attempt>();
  readonly leftRunning = new Set<Attempt>();

  private readonly whenNoneLeft = new Set<() => void>();

  /** How many abandoned executions have not settled (they may hold timers, sockets, CPU). */
  get stillRunning(): number {
    return this.leftRunning.size;
  }

  /**
   * Resolves once no abandoned execution is left running: each was told to stop and may still
   * be cleaning up (a file store removing its temporary file). A hung one never settles: bound it.
   */
  leftSettled(): Promise<void> {
    if (this.leftRunning.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.whenNoneLeft.add(resolve));
  }

  /** Removes a settled attempt from both sets; tells the waiters once none is left running. */
  settle(attempt: Attempt): void {
    this.inFlight.delete(attempt);
    if (!this.leftRunning.delete(attempt) || this.leftRunning.size > 0) return;
    for (const resolve of this.whenNoneLeft) resolve();
    this.whenNoneLeft.clear();
  }
}

/**
 * One execution of one asset that its run waits for. The runner can stop waiting (a timeout,
 * the grace after an interrupt, a drained event loop, an error thrown outside the asset's own
 * promise): the attempt then ends at once with the outcome given, its `signal` (the asset's
 * `context.signal`) is aborted, `abandoned` tells the write path that nothing more may be
 * written, and its later events are dropped.
 */
export class Attempt {
  private readonly abandonment = new AbortController();
  private readonly context = new AbortController();
  private readonly detach: () => void;
  private outcome: Abandonment | null = null;
  private release: ((outcome: Abandonment) => void) | null = null;
  private settled = false;
  private current: AttemptIo = null;
  private readonly stored: string[] = [];
  /** The checks whose verdicts it awaits, with how many partitions await each. */
  private readonly awaited = new Map<string, number>();

  constructor(
    readonly asset: string,
    /** The run's window as a string, or null for an unpartitioned asset. */
    readonly partition: string | null,
    control: RunControl,
    /** Where its session keeps track of it. */
    readonly registry: Attempts,
  ) {
    this.detach = control.onInterrupt(() => this.context.abort(control.signal?.reason));
  }

  /** The asset's `context.signal`: the run's interrupt, or this attempt's abandonment. */
  get signal(): AbortSignal {
    return this.context.signal;
  }

  /** Aborted once the runner gave up on this attempt: no destination write of it may start. */
  get abandoned(): AbortSignal {
    return this.abandonment.signal;
  }

  /** Whether the run still waits for it. */
  get waiting(): boolean {
    return !this.settled && this.outcome === null;
  }

  /** The destination it is writing to or reading from, if any. */
  get io(): AttemptIo {
    return this.current;
  }

  /** The checks whose verdicts it awaits (a custom check, rowCountChange), by name: what it is stuck on, if anything, rather than the write they hold. */
  get judging(): readonly string[] {
    return [...this.awaited.keys()];
  }

  /** The destinations it had written to when it was abandoned. */
  get written(): readonly string[] {
    return this.stored;
  }

  /** `asset "x" for 2024-01-03`: how messages name this attempt. */
  get label(): string {
    return `asset "${this.asset}"${this.partition ? ` for ${this.partition}` : ""}`;
  }

  /**
   * Runs `work` with this attempt as the context of everything it schedules; settles as it
   * does, or rejects with `AbandonedAttempt` as soon as the attempt is abandoned.
   */
  async watch<T>(work: () => Promise<T>): Promise<T> {
    const abandoned = new Promise<never>((_, reject) => {
      this.release = (outcome) => reject(new AbandonedAttempt(outcome));
    });
    this.registry.inFlight.add(this);
    const running = scope.run(this, work);
    const done = () => {
      this.settled = true;
      this.detach();
      this.registry.settle(this);
    };
    running.then(done, done);
    return Promise.race([running, abandoned]);
  }

  /** Stops waiting for it: the run records `outcome`. Once only; false when it already ended. */
  abandon(outcome: Abandonment): boolean {
    if (!this.waiting) return false;
    this.outcome = outcome;
    this.registry.inFlight.delete(this);
    this.registry.leftRunning.add(this);
    this.detach();
    this.abandonment.abort(outcome.error);
    if (!this.context.signal.aborted) this.context.abort(outcome.error);
    this.release?.(outcome);
    return true;
  }

  /** Wraps the emitter it is given: follows its reads and writes, drops its events once abandoned. */
  observe(emit: (event: AssetEvent) => void): (event: AssetEvent) => void {
    return (event) => {
      if (this.outcome) return;
      if (event.type === "check:started") this.awaited.set(event.check, (this.awaited.get(event.check) ?? 0) + 1);
      else if (event.type === "check:completed") {
        const left = (this.awaited.get(event.check) ?? 1) - 1;
        if (left > 0) this.awaited.set(event.check, left);
        else this.awaited.delete(event.check);
      } else if (event.type === "destination:write:started" || event.type === "destination:read:started") {
        this.current = { kind: event.type === "destination:write:started" ? "write" : "read", destination: event.destination };
      } else if (event.type.startsWith("destination:")) {
        this.current = null;
        if (event.type === "destination:write:completed") this.stored.push(event.destination);
      }
      emit(event);
    };
  }
}

/** The rejection of a watched attempt that was abandoned. */
export class AbandonedAttempt extends Error {
  constructor(readonly outcome: Abandonment) {
    super(outcome.error.message);
    this.name = "AbandonedAttempt";
  }
}

/** The attempt whose code scheduled the callback running now, if any. */
export function currentAttempt(): Attempt | undefined {
  return scope.getStore();
}
