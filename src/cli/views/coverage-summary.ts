// The one-line summaries of `coverage` with no asset named, and of the explorer's asset list:
// key, bar, counts and rows, then what needs attention (missing, unreadable, stale ranges).
import type { Coverage } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import { coverageBar } from "./coverage-layout.js";
import { cutToWidth, listWithin, MAX_RANGES, NEVER, wrapWords } from "./coverage-text.js";

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
  const where = lackingDestinations(c);
  const groups = [
    ...(c.missingRanges.length ? [[...rangeWords("missing", c.missingRanges), ...(where ? where.trim().split(" ") : [])]] : []),
    ...(broken.length ? [[`unreadable ${listWithin(broken, Infinity)}`]] : []),
    ...(c.stale > 0 ? [rangeWords(`stale ${formatCount(c.stale)}:`, c.staleRanges)] : []),
    ...(c.warnings > 0 ? [[`warnings ${formatCount(c.warnings)}`]] : []),
    // A multi asset's bar merges its combinations into each cell: one written empty throughout
    // (a feed that returned nothing for a region) would show as stored.
    ...(c.dimensions && !c.combination && c.emptyRanges.length ? [rangeWords("empty", c.emptyRanges)] : []),
  ];
  if (groups.length === 0) return [cutToWidth(head, width)];
  // Each group but the last ends with ";".
  const words = groups.flatMap((group, i) => (i < groups.length - 1 ? [...group.slice(0, -1), `${group.at(-1)!};`] : group));
  return wrapSummary(head, words, keyWidth, width);
}

/**
 * Ranges as words to wrap, after `label`: up to MAX_RANGES, then "and N more". The label stays
 * with the first range: never a label alone at the end of a line.
 */
function rangeWords(label: string, all: readonly string[]): string[] {
  const shown = all.slice(0, MAX_RANGES);
  const rest = all.length - shown.length;
  const ranges = shown.map((r, i) => (i < shown.length - 1 ? `${r},` : r));
  return [`${label} ${ranges[0]}`, ...ranges.slice(1), ...(rest > 0 ? ["and", `${formatCount(rest)} more`] : [])];
}

/** A summary's head, then its words on the same line when they fit `width`, else wrapped under the bar. */
function wrapSummary(head: string, words: readonly string[], keyWidth: number, width: number): string[] {
  const inline = `${head}  ${words.join(" ")}`;
  if (inline.length <= width) return [inline];
  // Under the bar, or at the margin when the key takes most of the width.
  const indent = " ".repeat(keyWidth + 2 <= width / 2 ? keyWidth + 2 : 2);
  return [cutToWidth(head, width), ...wrapWords(words, width, indent)];
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
