import type { InterloperEvent } from "../../runner/events.js";
import { count } from "../../text/english.js";
import { formatDuration, logLine, RunTracker, type FinishedUnit } from "./tracker.js";

/** One line per finished run (or asset), for logs and CI: no colour, no cursor movement. */
export class PlainReporter {
  readonly tracker: RunTracker;

  constructor(
    mode: "run" | "backfill",
    private readonly write: (line: string) => void,
  ) {
    this.tracker = new RunTracker(mode);
  }

  readonly onEvent = (event: InterloperEvent): void => {
    for (const unit of this.tracker.apply(event)) this.write(this.line(unit));
    const text = logLine(event);
    if (text !== null) this.write(text);
  };

  private line(unit: FinishedUnit): string {
    const { done, total } = this.tracker;
    const progress = total > 1 ? `[${String(done).padStart(String(total).length)}/${total}] ` : "";
    const mark = unit.ok ? "ok  " : "FAIL";
    const detail = unit.ok ? count(unit.rows, "row") : unit.failures.join("; ");
    return `${mark} ${progress}${unit.label}  ${detail}  ${formatDuration(unit.durationMs)}`;
  }
}
