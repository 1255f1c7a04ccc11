import { SUSPICIOUS_RATIO, type Coverage, type DestinationCoverage, type PartitionCoverage } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import { cellChar, cellText, coverageBar, hasPartial, isPartial, layoutCoverage, type Block } from "./coverage-layout.js";

const MAX_RANGES = 8;

/**
 * The facts under every coverage picture, fitting `width`: a fact longer than the width wraps
 * at its spaces onto indented lines (ranges and keys stay whole), never cut.
 */
export function factLines(c: Coverage, width = Infinity): string[] {
  return facts(c, width).flatMap((line) => (line.length <= width ? [line] : wrapWords(line.split(" "), width, "  ", "")));
}

/** A line no longer than `width`, cut with an ellipsis. */
export function cutToWidth(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

function facts(c: Coverage, width: number): string[] {
  // Wrapped, not cut: as many items as MAX_RANGES allows, whatever the width.
  const listed = (items: readonly string[]) => listWithin(items, Infinity);
  const scope = c.kind === "time" ? `${c.granularity} partitions on "${c.column}"` : `list partitions on "${c.column}"`;
  const lines = [
    `${c.asset}  ${scope}${c.first ? `, ${c.first === c.last ? c.first : `${c.first}..${c.last}`}` : ", nothing expected yet"}`,
    ...wrapped(
      [
        `expected ${formatCount(c.expected)}`,
        `materialized ${formatCount(c.materialized)}`,
        `empty ${formatCount(c.empty)}`,
        `missing ${formatCount(c.missing)}`,
        ...(c.unreadable > 0 ? [`unreadable ${formatCount(c.unreadable)}`] : []),
        `unexpected ${formatCount(c.unexpected)}`,
      ],
      width,
    ),
    `rows ${formatCount(c.rows)}${c.medianRows !== null ? ` (per partition: min ${formatCount(c.minRows!)}, median ${formatCount(c.medianRows)}, max ${formatCount(c.maxRows!)})` : ""}`,
  ];
  if (c.inProgress) lines.push(inProgressLine(c.inProgress));
  if (c.missingRanges.length) lines.push(`missing: ${listed(c.missingRanges)}`);
  if (c.unreadable > 0) lines.push(unreadableLine(c));
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

/** The partitions stored but unreadable, each with its file and why (`materialize --missing` rebuilds them). */
export function unreadableLine(c: Coverage): string {
  const broken = c.partitions.filter((p) => p.status === "unreadable");
  return `unreadable (stored, cannot be read; --missing rebuilds them): ${listWithin(
    broken.map((p) => `${p.key} (${p.file}: ${p.error})`),
    Infinity,
  )}`;
}

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
function listWithin(items: readonly string[], room: number): string {
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

/**
 * The legend that fits `width`; with the in-progress mark when the picture shows one, and the
 * partly-missing mark when some partition is missing from only some destinations.
 */
export function legend(width: number, inProgress = false, partial = false, unreadable = false): string {
  const full = LEGEND + (partial ? PARTIAL : "") + (unreadable ? UNREADABLE : "") + (inProgress ? IN_PROGRESS : "");
  return full.length <= width
    ? full
    : cutToWidth(
        SHORT_LEGEND + (partial ? SHORT_PARTIAL : "") + (unreadable ? SHORT_UNREADABLE : "") + (inProgress ? SHORT_IN_PROGRESS : ""),
        width,
      );
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
  if (c.kind === "list") lines.push(...listBars(c, width));
  else for (const block of layoutCoverage(c, width)) lines.push(...blockLines(block), "");
  if (c.expected > 0) lines.push(legend(width, c.inProgress !== null, hasPartial(c), c.unreadable > 0), "");
  return [...lines.map((line) => cutToWidth(line, width)), ...factLines(c, width)];
}

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
    if (p.status === "empty") return `${label}  ○ empty (0 rows)`;
    if (p.status === "unreadable") return `${label}  ✗ unreadable: ${p.file}`;
    const length = max ? Math.max(1, Math.round((p.rows! / max) * barWidth)) : 1;
    return `${label}  ${"█".repeat(length)} ${formatCount(p.rows!)}`;
  });
}

/** What an asset with no start and nothing stored is: not complete, with no range to expect yet. */
const NEVER = "never materialized (no start, no upstream with one, nothing stored): run it for a window, or declare its start";

/** The line that heads an asset never materialized (see NEVER), in the text and the ink views alike. */
export const neverLine = (c: Coverage, width: number): string => cutToWidth(`${c.asset}: ${NEVER}`, width);

/** Column widths shared by the summary lines of several assets. */
export interface SummaryColumns {
  readonly key: number;
  readonly bar: number;
  readonly counts?: number;
  readonly rows?: number;
}

const countsOf = (c: Coverage) => `${formatCount(c.materialized + c.empty)}/${formatCount(c.expected)}`;
const rowsOf = (c: Coverage) => count(c.rows, "row");

/**
 * One asset for `coverage` with no asset: key, bar, present/expected and rows on one line, then
 * its missing ranges, on the same line when they fit `width`, else wrapped onto lines of their
 * own under the bar: every range shown whole (up to MAX_RANGES, then "and N more"), never cut.
 */
export function summaryEntry(
  c: Coverage,
  keyWidth: number,
  barWidth: number,
  width = Infinity,
  columns: Partial<SummaryColumns> = {},
): string[] {
  const head = `${c.asset.padEnd(keyWidth)}  ${coverageBar(c, barWidth)}  ${countsOf(c).padStart(columns.counts ?? 0)}  ${rowsOf(c).padStart(columns.rows ?? 0)}`;
  if (c.neverMaterialized) return [cutToWidth(`${head}  ${NEVER}`, width)];
  const broken = c.partitions.filter((p) => p.status === "unreadable").map((p) => p.key);
  if (c.missingRanges.length === 0 && broken.length === 0) return [cutToWidth(head, width)];
  if (c.missingRanges.length === 0) return wrapSummary(head, [`unreadable ${listWithin(broken, Infinity)}`], keyWidth, width);
  const where = lackingDestinations(c);
  const shown = c.missingRanges.slice(0, MAX_RANGES);
  const rest = c.missingRanges.length - shown.length;
  // "missing" stays with the first range: never a label alone at the end of a line.
  const ranges = shown.map((r, i) => (i < shown.length - 1 ? `${r},` : r));
  const words = [
    `missing ${ranges[0]}`,
    ...ranges.slice(1),
    ...(rest > 0 ? ["and", `${formatCount(rest)} more`] : []),
    ...(where ? where.trim().split(" ") : []),
  ];
  if (broken.length > 0) words.push(`${words.pop()!};`, `unreadable ${listWithin(broken, Infinity)}`);
  return wrapSummary(head, words, keyWidth, width);
}

/** A summary's head, then its words on the same line when they fit `width`, else wrapped under the bar. */
function wrapSummary(head: string, words: readonly string[], keyWidth: number, width: number): string[] {
  const inline = `${head}  ${words.join(" ")}`;
  if (inline.length <= width) return [inline];
  // Under the bar, or at the margin when the key takes most of the width.
  const indent = " ".repeat(keyWidth + 2 <= width / 2 ? keyWidth + 2 : 2);
  return [cutToWidth(head, width), ...wrapWords(words, width, indent)];
}

/**
 * Words on lines no longer than `width`, the first after `first`, the others after `indent`;
 * a word longer than a whole line is cut with an ellipsis (a key that long cannot be shown whole).
 */
function wrapWords(words: readonly string[], width: number, indent: string, first = indent): string[] {
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

/** " in X, Y" when only some of several destinations lack partitions; "" otherwise. */
function lackingDestinations(c: Coverage): string {
  if (c.destinations.length < 2) return "";
  const lacking = c.destinations.filter((d) => d.missing > 0);
  return lacking.length < c.destinations.length ? ` in ${lacking.map((d) => d.key).join(", ")}` : "";
}

/** The columns of several assets' summaries in a terminal of `width`: the bar takes what is left. */
export function summaryColumns(coverages: readonly Coverage[], width: number): SummaryColumns {
  const key = Math.max(...coverages.map((c) => c.asset.length));
  const counts = Math.max(...coverages.map((c) => countsOf(c).length));
  const rows = Math.max(...coverages.map((c) => rowsOf(c).length));
  // Leave room for about two missing ranges after the numbers.
  const bar = Math.max(10, Math.min(40, width - key - counts - rows - 8 - 56));
  return { key, bar, counts, rows };
}

/** The summaries of several assets, aligned, fitting `width`. */
export function summaryLines(coverages: readonly Coverage[], width: number): string[] {
  const columns = summaryColumns(coverages, width);
  return coverages.flatMap((c) => summaryEntry(c, columns.key, columns.bar, width, columns));
}
