import { warnUnheard } from "../destination/unheard-warnings.js";

/** An error as events carry it: plain data that serialises to JSON. */
export interface ErrorInfo {
  readonly name: string;
  readonly code?: string;
  readonly message: string;
}

interface EventBase {
  /** ISO timestamp of when the event happened. */
  readonly time: string;
  readonly runId: string;
  readonly backfillId?: string;
  /** The run's window or partition key, when partitioned. */
  readonly partition?: string;
}

interface AssetEventBase extends EventBase {
  /** The asset's qualified key (`source.asset`). */
  readonly asset: string;
}

/** What happens to one asset during a run. */
export type AssetEvent =
  | (AssetEventBase & { readonly type: "asset:queued" })
  | (AssetEventBase & { readonly type: "asset:started" })
  | (AssetEventBase & { readonly type: "asset:completed"; readonly rows: number | null; readonly durationMs: number })
  | (AssetEventBase & { readonly type: "asset:failed"; readonly error: ErrorInfo; readonly durationMs: number })
  | (AssetEventBase & {
      readonly type: "asset:canceled";
      readonly reason: string;
      /** Set when the asset had started: it was abandoned while running. */
      readonly durationMs?: number;
    })
  | (AssetEventBase & { readonly type: "destination:write:started" | "destination:read:started"; readonly destination: string })
  | (AssetEventBase & {
      readonly type: "destination:write:completed" | "destination:read:completed";
      readonly destination: string;
      readonly rows: number | null;
      readonly durationMs: number;
    })
  | (AssetEventBase & {
      readonly type: "destination:write:failed" | "destination:read:failed";
      readonly destination: string;
      readonly error: ErrorInfo;
    })
  | (AssetEventBase & {
      /** A check failed on a partition's data (`partition`: that stored partition's key); an "error" one kept the execution from writing. */
      readonly type: "check_failed";
      readonly check: string;
      readonly severity: "error" | "warn";
      readonly failures: number;
      readonly examples: readonly string[];
      readonly message: string;
    })
  | (AssetEventBase & {
      /**
       * A check's verdict on a partition's data is awaited (a custom check, rowCountChange:
       * `partition` is that stored partition's key), and then given: what a run stuck on a
       * check names it by.
       */
      readonly type: "check:started" | "check:completed";
      readonly check: string;
    })
  | (EventBase & { readonly type: "log"; readonly asset?: string; readonly level: LogLevel; readonly message: string });

export type LogLevel = "debug" | "info" | "warn" | "error";

/** Receives events; must not throw (a throwing listener is reported, never breaks a run). */
export type EventListener<E> = (event: E) => void;

/** Plain data for an error, safe to print and serialise. */
export function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === "string" ? { code } : {}) };
  }
  return { name: "Error", message: String(error) };
}

/**
 * Listeners of every event of some runs: a session's (`session.on`), or, for runs started outside
 * any session (`asset.materialize`, `il.backfill`, `DAG#materialize`), the default ones that
 * `il.subscribe` adds to. Runs deliver to the set they were started with and to no other.
 */
export class Listeners<E extends { readonly type: string } = { readonly type: string }> {
  private readonly handlers = new Set<(event: E) => void>();

  /** Adds a listener; returns the function that removes it. */
  add(handler: (event: E) => void): () => void {
    this.handlers.add(handler);
    return () => void this.handlers.delete(handler);
  }

  get size(): number {
    return this.handlers.size;
  }

  /** Hands an event to each listener (one that throws is reported and the run goes on). */
  deliver(event: E): void {
    for (const handler of this.handlers) notify(handler, event);
  }

  /** Forgets every listener (the session closed). */
  clear(): void {
    this.handlers.clear();
  }
}

/** The listeners of runs started outside any session. */
export const defaultListeners = new Listeners();

/**
 * An emit function that delivers to a run's own handler and to `listeners` (its session's). A
 * throwing listener is reported as an unheard warning (see unheard-warnings.ts) and never breaks the run that emitted the
 * event. A warning or error that nobody hears (no handler, `listening` false, no listener)
 * becomes an unheard warning (a process warning of type InterloperWarning, or where the
 * program routes them): `asset.materialize()` or
 * `dag.materialize()` without a listener must not lose "reads will not find these rows".
 */
export function deliverTo<E extends { readonly type: string }>(
  onEvent?: (event: E) => void,
  listening?: () => boolean,
  listeners: Listeners = defaultListeners,
): (event: E) => void {
  return (event) => {
    if (onEvent) notify(onEvent, event);
    listeners.deliver(event);
    if (listeners.size === 0 && (onEvent === undefined || listening?.() === false)) unheard(event);
  };
}

function unheard(event: { readonly type: string }): void {
  if (event.type !== "log") return;
  const { level, message } = event as { level?: unknown; message?: unknown };
  if ((level === "warn" || level === "error") && typeof message === "string") warnUnheard(message);
}

/** Calls one listener; one that throws is reported as an unheard warning, and the run goes on. */
export function notify<E extends { readonly type: string }>(handler: (event: E) => void, event: E): void {
  try {
    handler(event);
  } catch (error) {
    warnUnheard(`an interloper event listener threw on ${event.type}: ${(error as Error)?.message ?? String(error)}`);
  }
}
