import { defaultListeners, deliverTo, Listeners, notify, type AssetEvent, type ErrorInfo } from "../asset/events.js";

export type { AssetEvent, ErrorInfo, LogLevel } from "../asset/events.js";

interface RunEventBase {
  readonly time: string;
  readonly runId: string;
  readonly backfillId?: string;
  readonly partition?: string;
}

/** The start and end of a run (one window over a DAG). */
export type RunEvent =
  | (RunEventBase & { readonly type: "run:started"; readonly assets: readonly string[] })
  | (RunEventBase & {
      readonly type: "run:completed" | "run:failed" | "run:canceled";
      readonly durationMs: number;
      readonly completed: readonly string[];
      readonly failed: readonly string[];
      readonly canceled: readonly string[];
      /** An error that failed the run as a whole (thrown outside every asset's run). */
      readonly error?: ErrorInfo;
    });

interface BackfillEventBase {
  readonly time: string;
  readonly backfillId: string;
  /** The backfill's runId is its backfillId, so every event carries a runId. */
  readonly runId: string;
  readonly window: string;
}

/** The start and end of a backfill (one run per partition). */
export type BackfillEvent =
  | (BackfillEventBase & { readonly type: "backfill:started"; readonly partitions: readonly string[]; readonly order: "newest" | "oldest" })
  | (BackfillEventBase & {
      readonly type: "backfill:completed" | "backfill:failed" | "backfill:canceled";
      readonly durationMs: number;
      readonly completed: readonly string[];
      readonly failed: readonly string[];
      readonly canceled: readonly string[];
      readonly error?: ErrorInfo;
    });

/** Every event a run or backfill emits; each serialises to one JSON line. */
export type InterloperEvent = AssetEvent | RunEvent | BackfillEvent;

/** A listener of events. */
export type EventHandler = (event: InterloperEvent) => void;

/**
 * Receives every event of every run started outside a session (`il.backfill`, `DAG#materialize`,
 * `asset.materialize`, `il.materialize`); returns the unsubscribe function. A session's runs are
 * heard with `session.on`. To hear one run only, give it `onEvent`, or `events` and subscribe
 * there.
 */
export function subscribe(handler: EventHandler): () => void {
  return defaultListeners.add(handler as (event: { readonly type: string }) => void);
}

/**
 * The events of one run, or of one backfill and its runs: a listener subscribed here hears that
 * run and no other, however many run in this process at once. Pass it as a run's `events`.
 */
export class RunEvents extends Listeners<InterloperEvent> {
  /** Adds a listener of this run's events; returns the function that removes it. */
  subscribe(handler: EventHandler): () => void {
    return this.add(handler);
  }

  /** Whether anyone listens here now. */
  get listening(): boolean {
    return this.size > 0;
  }
}

/** Delivers an event to the run's own handler and listeners, then to its session's listeners. */
export function emitter(onEvent?: EventHandler, events?: RunEvents, listeners: Listeners = defaultListeners): EventHandler {
  if (!events) return deliverTo(onEvent, undefined, listeners);
  return deliverTo(
    (event: InterloperEvent) => {
      if (onEvent) notify(onEvent, event);
      events.deliver(event);
    },
    () => onEvent !== undefined || events.listening,
    listeners,
  );
}

/** One JSON line for an event. */
export function eventToJson(event: InterloperEvent): string {
  return JSON.stringify(event);
}
