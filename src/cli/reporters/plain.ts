import type { InterloperEvent, LogLevel } from "../../runner/events.js";
import { count } from "../../text/english.js";
import { formatDuration, logLine, RunTracker, type FinishedUnit } from "./tracker.js";
import { STATUS_WORDS, type UnitStatus } from "./unit-status.js";

/** The first word of a unit's line in the plain log: fixed width, greppable. */
const MARKS: Readonly<Record<UnitStatus, string>> = {
  completed: "ok  ",
  failed: "FAIL",
  abandoned: "STOP",
  canceled: "STOP",
  skipped: "SKIP",
  waiting: "WAIT",
  notRun: "    ",
};

/** One line per finished run (or asset), for logs and CI: no colour, no cursor movement. */
export class PlainReporter {
  readonly tracker: RunTracker;

  constructor(
    mode: "run" | "backfill",
    private readonly write: (line: string) => void,
    logLevel: LogLevel = "warn",
  ) {
    this.tracker = new RunTracker(mode, logLevel);
  }

  readonly onEvent = (event: InterloperEvent): void => {
    // The log line first: a warning an asset logged comes before the line of its partition.
    const text = logLine(event, this.tracker.logLevel);
    if (text !== null) this.write(text);
    for (const unit of this.tracker.apply(event)) this.write(this.line(unit));
  };

  /** A line of the command itself (the interrupt), in the log where it happened. */
  notice(text: string): void {
    this.write(text);
  }

  private line(unit: FinishedUnit): string {
    const { done, total } = this.tracker;
    const progress = total > 1 ? `[${String(done).padStart(String(total).length)}/${total}] ` : "";
    const detail = unit.ok
      ? count(unit.rows, "row")
      : `${unit.status === "failed" ? "" : `${STATUS_WORDS[unit.status]}: `}${unit.failures.join("; ")}`;
    return `${MARKS[unit.status]} ${progress}${unit.label}  ${detail}  ${formatDuration(unit.durationMs)}`;
  }
}
