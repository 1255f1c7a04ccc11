import { SUSPICIOUS_RATIO, type Coverage, type DestinationCoverage, type PartitionCoverage } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import {
  cellChar,
  cellText,
  drawnAsList,
  hasPartial,
  isPartial,
  isStale,
  isWarned,
  layoutCoverage,
  STALE_MARK,
  WARN_MARK,
  type Block,
} from "./coverage-layout.js";

export const MAX_RANGES = 8;

/**
 * The facts under every coverage picture, fitting `width`: a fact longer than the width wraps
 * at its spaces onto indented lines (ranges and keys stay whole), never cut.
 */
export function factLines(c: Coverage, width = Infinity): string[] {
  return facts(c, width).flatMap((line) => {
    if (line.length <= width) return [line];
    // An indented fact (a stale partition's reasons) keeps its indent on every line it takes.
    const indent = /^ */.exec(line)![0];
    return wrapWords(line.trimStart().split(" "), width, `${indent}  `, indent);
  });
}

/** A line no longer than `width`, cut with an ellipsis. */
export function cutToWidth(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

function facts(c: Coverage, width: number): string[] {
  // Wrapped, not cut: as many items as MAX_RANGES allows, whatever the width.
  const listed = (items: readonly string[]) => listWithin(items, Infinity);
  const scope = drawnAsList(c) ? `${c.kind} partitions on "${c.column}"` : `${c.granularity} partitions on "${c.column}"`;
  const lines = [
    `${c.asset}  ${scope}${c.first ? `, ${c.first === c.last ? c.first : `${c.first}..${c.last}`}` : ", nothing expected yet"}`,
    ...countLines(c, width),
    `rows ${formatCount(c.rows)}${c.medianRows !== null ? ` (per partition: min ${formatCount(c.minRows!)}, median ${formatCount(c.medianRows)}, max ${formatCount(c.maxRows!)})` : ""}`,
  ];
  if (c.inProgress) lines.push(inProgressLine(c.inProgress));
  if (c.missingRanges.length) lines.push(`missing: ${listed(c.missingRanges)}`);
  if (c.unreadable > 0) lines.push(unreadableLine(c));
  if (c.stale > 0) lines.push(...staleLines(c));
  if (c.warnings > 0) lines.push(warningsLine(c));
  if (c.destinations.length > 1) lines.push(...c.destinations.map((d) => destinationLine(c, d)));
  if (c.emptyRanges.length) lines.push(`empty: ${listed(c.emptyRanges)}`);
  if (c.suspicious.length) {
    const label = `suspicious (under ${SUSPICIOUS_RATIO * 100}% of the median): `;
    lines.push(`${label}${listed(c.suspicious.map((p) => `${p.key} (${count(p.rows!, "row")})`))}`);
  }
  const unexpected = c.partitions.filter((p) => p.status === "unexpected");
  const label = "unexpected (stored, outside the expected partitions): ";
  if (unexpected.length) lines.push(`${label}${listed(unexpected.map((p) => `${p.key} (${count(p.rows ?? 0, "row")})`))}`);
  return lines;
}

/** How many partitions are expected and in each state, on as few lines as fit `width`. */
export function countLines(c: Pick<Coverage, "expected" | CountedStatus | "stale" | "warnings">, width: number): string[] {
  return wrapped(
    [
      `expected ${formatCount(c.expected)}`,
      `materialized ${formatCount(c.materialized)}`,
      `empty ${formatCount(c.empty)}`,
      `missing ${formatCount(c.missing)}`,
      ...(c.unreadable > 0 ? [`unreadable ${formatCount(c.unreadable)}`] : []),
      ...(c.stale > 0 ? [`stale ${formatCount(c.stale)}`] : []),
      ...(c.warnings > 0 ? [`warnings ${formatCount(c.warnings)}`] : []),
      `unexpected ${formatCount(c.unexpected)}`,
    ],
    width,
  );
}

/** The states every coverage counts its partitions in. */
type CountedStatus = "materialized" | "empty" | "missing" | "unreadable" | "unexpected";

/** The partitions stored but unreadable, each with its file and why (`materialize --missing` rebuilds them). */
export function unreadableLine(c: Coverage): string {
  const broken = c.partitions.filter((p) => p.status === "unreadable");
  return `unreadable (stored, cannot be read; --missing rebuilds them): ${listWithin(
    broken.map((p) => `${p.key} (${p.file}: ${p.error})`),
    Infinity,
  )}`;
}

/** Stale partitions shown with their reasons, at most this many: the explorer (`-i`) gives any other's. */
const MAX_STALE_REASONS = 3;

/**
 * The runs of stale partitions, then why the first few are out of date, one partition a line
 * (its reasons joined): enough for a CI log to say what changed without opening the explorer.
 */
export function staleLines(c: Coverage): string[] {
  const stale = c.partitions.filter(isStale);
  const why = stale.slice(0, MAX_STALE_REASONS).map((p) => `  ${p.key}: ${(p.staleReasons ?? []).join("; ")}`);
  const rest = stale.length - why.length;
  return [
    `${STALE_LABEL}${listWithin(c.staleRanges, Infinity)}`,
    ...why,
    ...(rest > 0 ? [`  and ${count(rest, "more stale partition")} (coverage -i shows why each is)`] : []),
  ];
}

/** The partitions written with failed warn checks, each with the checks: `2026-01-05 (unique(order_id))`. */
function warningsLine(c: Coverage): string {
  const warned = c.partitions.filter(isWarned).map((p) => `${p.key} (${(p.warningChecks ?? []).join(", ")})`);
  return `${WARNINGS_LABEL}${listWithin(warned, Infinity)}`;
}

/** The head of the fact line of partitions written with warnings (the ink view colours the lines that start so). */
export const WARNINGS_LABEL = "warnings (failed warn checks when written): ";

/** The head of the fact line of stale partitions (the ink view colours the lines that start so). */
export const STALE_LABEL = "stale (out of date; materialize --stale rebuilds them): ";

/** The prefix of a destination's line: its name, and its kind when that says more. */
export const DESTINATION_LINE = "destination ";

/**
 * What one destination of several holds: `destination SQLiteDestination: 28/29 stored, 290 rows;
 * missing 2026-01-05`. Only the ranges this destination lacks.
 */
export function destinationLine(c: Coverage, d: DestinationCoverage): string {
  const name = `${DESTINATION_LINE}${d.key}${d.type && d.type !== d.key ? ` (${d.type})` : ""}: `;
  const head = `${name}${formatCount(d.materialized + d.empty)}/${formatCount(c.expected)} stored, ${count(d.rows, "row")}`;
  if (d.missingRanges.length === 0) return head;
  return `${head}; missing ${listWithin(d.missingRanges, Infinity)}`;
}

/** The current period: not expected yet, so never missing. */
export function inProgressLine(p: PartitionCoverage): string {
  return `in progress (not expected yet): ${p.key}, ${p.rows === null ? "nothing stored so far" : `${count(p.rows, "row")} so far`}`;
}

/** Parts joined by two spaces, on as few lines as fit `width`. */
function wrapped(parts: readonly string[], width: number): string[] {
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + 2 + part.length <= width) lines[lines.length - 1] = `${last}  ${part}`;
    else lines.push(part);
  }
  return lines;
}

/** As many items as fit in `room` characters (at most MAX_RANGES), then "and N more". */
export function listWithin(items: readonly string[], room: number): string {
  let shown = Math.min(items.length, MAX_RANGES);
  const text = (n: number) => `${items.slice(0, n).join(", ")}${n < items.length ? ` and ${items.length - n} more` : ""}`;
  while (shown > 1 && text(shown).length > room) shown--;
  return text(shown);
}

export const LEGEND = "legend: █▓▒░ rows, most to fewest   ○ empty (0 rows)   · missing";
const UNREADABLE = "   ✗ unreadable";
const SHORT_UNREADABLE = "  ✗ unreadable";
const SHORT_LEGEND = "█▓▒░ rows  ○ empty  · missing";
const IN_PROGRESS = "   ◌ in progress";
const SHORT_IN_PROGRESS = "  ◌ in progress";
const PARTIAL = "   ◐ partly missing";
const SHORT_PARTIAL = "  ◐ partly missing";
const STALE = `   ${STALE_MARK} stale (out of date)`;
const SHORT_STALE = `  ${STALE_MARK} stale`;
const WARNED = `   ${WARN_MARK} written with warnings`;
const SHORT_WARNED = `  ${WARN_MARK} warnings`;

/**
 * The legend that fits `width`; with the in-progress mark when the picture shows one, the
 * partly-missing mark when some partition is missing from only some destinations, and the
 * unreadable and stale marks when some partition is so.
 */
export function legend(width: number, inProgress = false, partial = false, unreadable = false, stale = false, warned = false): string {
  const marks = (partial ? PARTIAL : "") + (unreadable ? UNREADABLE : "") + (stale ? STALE : "") + (warned ? WARNED : "");
  const full = LEGEND + marks + (inProgress ? IN_PROGRESS : "");
  if (full.length <= width) return full;
  const short =
    SHORT_LEGEND +
    (partial ? SHORT_PARTIAL : "") +
    (unreadable ? SHORT_UNREADABLE : "") +
    (stale ? SHORT_STALE : "") +
    (warned ? SHORT_WARNED : "");
  return cutToWidth(short + (inProgress ? SHORT_IN_PROGRESS : ""), width);
}

/** The legend of an asset's picture: the marks it shows, fitting `width`. */
export function legendOf(c: Coverage, width: number): string {
  return legend(width, c.inProgress !== null, hasPartial(c), c.unreadable > 0, c.stale > 0, c.warnings > 0);
}

/** A block as plain text lines (labels padded to one width). */
export function blockLines(block: Block): string[] {
  const labelWidth = Math.max(0, ...block.rows.map((r) => r.label.length));
  const pad = labelWidth ? labelWidth + 1 : 0;
  const lines = [block.title];
  if (block.header) lines.push(" ".repeat(pad) + block.header);
  for (const row of block.rows)
    lines.push(
      `${row.label.padEnd(labelWidth)}${pad ? " " : ""}${row.cells.map((c) => cellText(cellChar(c), block.cellWidth)).join("")}`.trimEnd(),
    );
  if (block.note) lines.push(`(${block.note})`);
  return lines;
}

/** Coverage of one asset as plain text: the picture (or bars for a list), then the facts. */
export function coverageText(c: Coverage, width: number): string[] {
  const lines: string[] = c.neverMaterialized ? [neverLine(c, width), ""] : [];
  if (drawnAsList(c)) lines.push(...listBars(c, width));
  else for (const block of layoutCoverage(c, width)) lines.push(...blockLines(block), "");
  if (c.expected > 0) lines.push(legendOf(c, width), "");
  return [...lines.map((line) => cutToWidth(line, width)), ...factLines(c, width)];
}

/** After a list value's bar when it is stale (the ink view colours the lines holding it). */
export const LIST_STALE = `  ${STALE_MARK} stale`;

/** After a list value's bar when it was written with failed warn checks (and is not stale). */
export const LIST_WARNED = `  ${WARN_MARK} warnings`;

/** What follows a stored list value's bar: its stale mark, else its warnings mark, else nothing. */
const listMark = (p: PartitionCoverage): string => (isStale(p) ? LIST_STALE : isWarned(p) ? LIST_WARNED : "");

/** List partitions as labelled bars of row counts. */
export function listBars(c: Coverage, width: number): string[] {
  const expected = c.partitions.filter((p) => p.status !== "unexpected");
  const labelWidth = Math.max(...expected.map((p) => p.key.length));
  const barWidth = Math.max(10, Math.min(50, width - labelWidth - 20));
  const max = c.maxRows ?? 0;
  return expected.map((p) => {
    const label = p.key.padEnd(labelWidth);
    if (p.status === "missing")
      return isPartial(p, c.destinations.length) ? `${label}  ◐ missing in ${p.missingIn!.join(", ")}` : `${label}  · missing`;
    if (p.status === "empty") return `${label}  ○ empty (0 rows)${listMark(p)}`;
    if (p.status === "unreadable") return `${label}  ✗ unreadable: ${p.file}`;
    const length = max ? Math.max(1, Math.round((p.rows! / max) * barWidth)) : 1;
    return `${label}  ${"█".repeat(length)} ${formatCount(p.rows!)}${listMark(p)}`;
  });
}

/** What an asset with no start and nothing stored is: not complete, with no range to expect yet. */
export const NEVER = "never materialized (no start, no upstream with one, nothing stored): run it for a window, or declare its start";

/** The line that heads an asset never materialized (see NEVER), in the text and the ink views alike. */
export const neverLine = (c: Coverage, width: number): string => cutToWidth(`${c.asset}: ${NEVER}`, width);

/**
 * Words on lines no longer than `width`, the first after `first`, the others after `indent`;
 * a word longer than a whole line is cut with an ellipsis (a key that long cannot be shown whole).
 */
export function wrapWords(words: readonly string[], width: number, indent: string, first = indent): string[] {
  const lines: string[] = [];
  let line = "";
  const lead = () => (lines.length === 0 ? first : indent);
  for (const word of words) {
    if (line && lead().length + line.length + 1 + word.length > width) {
      lines.push(cutToWidth(lead() + line, width));
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(cutToWidth(lead() + line, width));
  return lines;
}
