import type { InterloperEvent, LogLevel } from "../../runner/events.js";
import { count } from "../../text/english.js";
import { formatDuration, RunTracker, UNPARTITIONED, type FinishedUnit } from "./tracker.js";
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
    // What the event printed, in order: a warning (an asset's log, a warn check) comes before
    // the line of its partition.
    const before = this.tracker.printed.length;
    this.tracker.apply(event);
    for (const printed of this.tracker.printed.slice(before)) this.write(printed.kind === "unit" ? this.line(printed.unit) : printed.text);
  };

  /** A line of the command itself (the interrupt), in the log where it happened. */
  notice(text: string): void {
    this.write(text);
  }

  private line(unit: FinishedUnit): string {
    const { done, total } = this.tracker;
    // The unpartitioned run is no partition of the count: it gets no number of its own.
    const counted = total > 1 && unit.label !== UNPARTITIONED;
    const progress = counted ? `[${String(done).padStart(String(total).length)}/${total}] ` : "";
    // A partition's line names the assets it wrote (a failure's reasons name theirs); a single
    // run's unit is an asset already.
    const assets = unit.ok && this.tracker.mode === "backfill" && unit.assets.length ? `  ${assetList(unit.assets)}` : "";
    const detail = unit.ok
      ? count(unit.rows, "row")
      : `${unit.status === "failed" ? "" : `${STATUS_WORDS[unit.status]}: `}${unit.failures.join("; ")}`;
    return `${MARKS[unit.status]} ${progress}${unit.label}${assets}  ${detail}  ${formatDuration(unit.durationMs)}`;
  }
}

/** Assets named in a line: all of a few, else the first ones and how many more. */
const MAX_ASSETS_NAMED = 3;

function assetList(assets: readonly string[]): string {
  if (assets.length <= MAX_ASSETS_NAMED) return assets.join(", ");
  return `${assets.slice(0, MAX_ASSETS_NAMED - 1).join(", ")} and ${assets.length - MAX_ASSETS_NAMED + 1} more`;
}
