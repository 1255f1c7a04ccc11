import { defaultListeners, Listeners } from "../asset/events.js";
import { Attempts } from "./attempt.js";
import { WorkerProcesses } from "./pool/processes.js";
import { Watchdog } from "./watchdog.js";

/**
 * What the runs of one session share, and nothing of another's: the listeners of their events,
 * the attempts they wait for (and those they abandoned still running), the watchdog over them,
 * and their pool workers. A session owns one; runs started outside any session share the
 * default one. Runs are handed it as an option (`RunInternals.context`), never find it globally.
 */
export class RunContext {
  readonly attempts = new Attempts();
  readonly watchdog = new Watchdog(this.attempts);
  readonly workers = new WorkerProcesses();

  constructor(readonly listeners: Listeners = new Listeners()) {}

  /** Ends its workers at once and forgets its listeners (the session closed). */
  close(): void {
    this.workers.kill();
    this.listeners.clear();
  }
}

/** The context of runs started outside any session: `il.backfill`, `DAG#materialize`, `il.materialize`. */
export const defaultRunContext = new RunContext(defaultListeners);
