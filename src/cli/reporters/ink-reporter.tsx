import { render } from "ink";
import type { InterloperEvent } from "../../runner/events.js";
import { ProgressView, type ProgressFeed } from "../views/progress-view.js";
import { RunTracker } from "./tracker.js";

/** The live terminal view of a materialize, fed by the runner's events. */
export class InkReporter implements ProgressFeed {
  readonly tracker: RunTracker;
  private readonly listeners = new Set<() => void>();
  private readonly app: ReturnType<typeof render>;
  private readonly tick: NodeJS.Timeout;

  constructor(mode: "run" | "backfill", title: string) {
    this.tracker = new RunTracker(mode);
    const color = !process.env["NO_COLOR"];
    this.app = render(<ProgressView feed={this} title={title} color={color} />, { stdout: process.stderr, exitOnCtrlC: false, patchConsole: false });
    // Elapsed times and the rate move even when no event arrives.
    this.tick = setInterval(() => this.notify(), 250);
    this.tick.unref();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  readonly onEvent = (event: InterloperEvent): void => {
    this.tracker.apply(event);
    this.notify();
  };

  /** Draws the last frame and releases the terminal. */
  async stop(): Promise<void> {
    clearInterval(this.tick);
    this.notify();
    this.app.unmount();
    await this.app.waitUntilExit();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
