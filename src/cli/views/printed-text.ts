import { count } from "../../text/english.js";
import { printable } from "../printable.js";
import { formatDuration, type FinishedUnit, type PrintedLine } from "../reporters/tracker.js";
import { STATUS_WORDS, type UnitStatus } from "../reporters/unit-status.js";

// The lines printed above the progress bar (finished units, notices, log lines) as the text the
// terminal receives, colours included. They are written once and never redrawn, so they skip
// ink's layout: measuring thousands of lines cost more than the run they reported (issue 32.4).

/** The mark and colour of a finished unit's line. */
export const MARKS: Readonly<Record<UnitStatus, { mark: string; color: Color }>> = {
  completed: { mark: "✓", color: "green" },
  failed: { mark: "✗", color: "red" },
  abandoned: { mark: "⊘", color: "yellow" },
  canceled: { mark: "⊘", color: "yellow" },
  skipped: { mark: "↷", color: "yellow" },
  waiting: { mark: "↷", color: "yellow" },
  notRun: { mark: " ", color: "gray" },
};

type Color = "red" | "green" | "yellow" | "gray";
/** SGR foreground codes, the ones ink (chalk) writes for these names. */
const FOREGROUND: Readonly<Record<Color, number>> = { red: 31, green: 32, yellow: 33, gray: 90 };

const paint = (text: string, color: Color | undefined): string => (color ? `\u001b[${FOREGROUND[color]}m${text}\u001b[39m` : text);
const bold = (text: string): string => `\u001b[1m${text}\u001b[22m`;
const dim = (text: string): string => `\u001b[2m${text}\u001b[22m`;

/** One finished unit: its mark (coloured), label and rows and time, or why it did not complete. */
function finishedText(unit: FinishedUnit, color: boolean): string {
  const { mark, color: tint } = MARKS[unit.status];
  const detail =
    unit.status === "completed"
      ? `${count(unit.rows, "row")}  ${formatDuration(unit.durationMs)}`
      : `${unit.status === "failed" ? "" : `${STATUS_WORDS[unit.status]}: `}${unit.failures.join("; ")}`;
  return `${paint(`${mark} `, color ? tint : undefined)}${printable(`${unit.label}  ${detail}`)}`;
}

/** One printed line as written to the terminal: a finished unit, a notice of the command, or an asset's log line. */
export function printedText(line: PrintedLine, color: boolean): string {
  if (line.kind === "unit") return finishedText(line.unit, color);
  const text = printable(line.text);
  if (!color) return text;
  if (line.kind === "notice") return bold(text);
  if (line.level === "error") return paint(text, "red");
  if (line.level === "warn") return paint(text, "yellow");
  return line.level === "info" || line.level === "debug" ? dim(text) : text;
}
