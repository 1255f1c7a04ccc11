import { render } from "ink";
import type { InterloperEvent, LogLevel } from "../../runner/events.js";
import { ProgressView, type ProgressFeed } from "../views/progress-view.js";
import { withKnownSize } from "../terminal-size.js";
import { RunTracker } from "./tracker.js";

/**
 * The least time between two redraws. A redraw (finished lines printed above, the bar drawn again)
 * costs a layout and a write of the whole frame: at one per event, a run of quick partitions spent
 * more time drawing than working. Five a second still reads as live (elapsed times, the rate);
 * finished lines come in batches.
 */
export const FRAME_MS = 200;

/** The live terminal view of a materialize, fed by the runner's events. */
export class InkReporter implements ProgressFeed {
  readonly tracker: RunTracker;
  private readonly listeners = new Set<() => void>();
  private readonly app: ReturnType<typeof render>;
  private readonly tick: NodeJS.Timeout;
  /** The redraw waiting for its turn, when one is. */
  private pending: NodeJS.Timeout | null = null;
  private lastDrawn = 0;
  private readonly color = !process.env["NO_COLOR"];
  private stopped = false;

  constructor(
    mode: "run" | "backfill",
    private readonly title: string,
    logLevel: LogLevel = "warn",
    /** The terminal drawn on (stderr: stdout stays for data). */
    output: NodeJS.WriteStream = process.stderr,
  ) {
    this.tracker = new RunTracker(mode, logLevel);
    this.app = render(this.view(null), {
      stdout: withKnownSize(output),
      exitOnCtrlC: false,
      patchConsole: false,
      // ink's own limit on its redraws, the same as ours.
      maxFps: 1000 / FRAME_MS,
    });
    // Elapsed times and the rate move even when no event arrives (seconds are what they show).
    this.tick = setInterval(() => this.notify(), 1000);
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

  /**
   * A line of the command itself (the interrupt): printed above the bar by the view, so the
   * frame is redrawn once below it, where a direct write to the terminal would leave the old
   * frame behind and a second one under it.
   */
  notice(text: string): void {
    this.tracker.notice(text);
    if (!this.stopped) this.app.rerender(this.view(null));
  }

  /**
   * Draws the last frame and releases the terminal: the finished units not printed yet, then
   * `closing` (the timing table and the summary) in place of the bar. ink's rerender is
   * synchronous, so nothing of the last events is lost to a state update still pending.
   */
  async stop(closing: readonly string[] = []): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.tick);
    if (this.pending) clearTimeout(this.pending);
    this.app.rerender(this.view(closing));
    this.app.unmount();
    await this.app.waitUntilExit();
  }

  private view(closing: readonly string[] | null) {
    return <ProgressView feed={this} title={this.title} color={this.color} closing={closing} />;
  }

  /** Redraws once the frame interval since the last redraw has passed; events in between share it. */
  private notify(): void {
    if (this.pending || this.stopped) return;
    const wait = Math.max(0, this.lastDrawn + FRAME_MS - Date.now());
    this.pending = setTimeout(() => {
      this.pending = null;
      this.lastDrawn = Date.now();
      for (const listener of this.listeners) listener();
    }, wait);
    this.pending.unref();
  }
}
