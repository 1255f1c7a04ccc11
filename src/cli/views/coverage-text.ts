import { SUSPICIOUS_RATIO, type Coverage } from "../../api/coverage/index.js";
import { formatCount } from "../reporters/tracker.js";
import { cellChar, coverageBar, layoutCoverage, type Block } from "./coverage-layout.js";

const MAX_RANGES = 8;

/** The facts under every coverage picture: totals, ranges, anomalies. */
export function factLines(c: Coverage): string[] {
  const scope = c.kind === "time" ? `${c.granularity} partitions on "${c.column}"` : `list partitions on "${c.column}"`;
  const lines = [
    `${c.asset}  ${scope}${c.first ? `, ${c.first === c.last ? c.first : `${c.first}..${c.last}`}` : ", nothing expected yet"}`,
    `expected ${formatCount(c.expected)}  materialized ${formatCount(c.materialized)}  empty ${formatCount(c.empty)}  missing ${formatCount(c.missing)}  unexpected ${formatCount(c.unexpected)}`,
    `rows ${formatCount(c.rows)}${c.medianRows !== null ? ` (per partition: min ${formatCount(c.minRows!)}, median ${formatCount(c.medianRows)}, max ${formatCount(c.maxRows!)})` : ""}`,
  ];
  if (c.missingRanges.length) lines.push(`missing: ${listed(c.missingRanges)}`);
  if (c.emptyRanges.length) lines.push(`empty: ${listed(c.emptyRanges)}`);
  if (c.suspicious.length) {
    lines.push(`suspicious (under ${SUSPICIOUS_RATIO * 100}% of the median): ${listed(c.suspicious.map((p) => `${p.key} (${formatCount(p.rows!)} rows)`))}`);
  }
  const unexpected = c.partitions.filter((p) => p.status === "unexpected");
  if (unexpected.length) lines.push(`unexpected (stored, outside the expected partitions): ${listed(unexpected.map((p) => `${p.key} (${formatCount(p.rows ?? 0)} rows)`))}`);
  return lines;
}

function listed(items: readonly string[]): string {
  return items.length > MAX_RANGES ? `${items.slice(0, MAX_RANGES).join(", ")} and ${items.length - MAX_RANGES} more` : items.join(", ");
}

export const LEGEND = "legend: █▓▒░ rows, most to fewest   ○ empty (0 rows)   · missing";

/** A block as plain text lines (labels padded to one width). */
export function blockLines(block: Block): string[] {
  const labelWidth = Math.max(0, ...block.rows.map((r) => r.label.length));
  const pad = labelWidth ? labelWidth + 1 : 0;
  const lines = [block.title];
  if (block.header) lines.push(" ".repeat(pad) + block.header);
  for (const row of block.rows) lines.push(`${row.label.padEnd(labelWidth)}${pad ? " " : ""}${row.cells.map(cellChar).join("")}`.trimEnd());
  if (block.note) lines.push(`(${block.note})`);
  return lines;
}

/** Coverage of one asset as plain text: the picture (or bars for a list), then the facts. */
export function coverageText(c: Coverage, width: number): string[] {
  const lines: string[] = [];
  if (c.kind === "list") lines.push(...listBars(c, width));
  else for (const block of layoutCoverage(c, width)) lines.push(...blockLines(block), "");
  if (c.expected > 0) lines.push(LEGEND, "");
  return [...lines, ...factLines(c)];
}

/** List partitions as labelled bars of row counts. */
export function listBars(c: Coverage, width: number): string[] {
  const expected = c.partitions.filter((p) => p.status !== "unexpected");
  const labelWidth = Math.max(...expected.map((p) => p.key.length));
  const barWidth = Math.max(10, Math.min(50, width - labelWidth - 20));
  const max = c.maxRows ?? 0;
  return expected.map((p) => {
    const label = p.key.padEnd(labelWidth);
    if (p.status === "missing") return `${label}  · missing`;
    if (p.status === "empty") return `${label}  ○ empty (0 rows)`;
    const length = max ? Math.max(1, Math.round((p.rows! / max) * barWidth)) : 1;
    return `${label}  ${"█".repeat(length)} ${formatCount(p.rows!)}`;
  });
}

/** One line per asset, for `coverage` with no asset. */
export function summaryLine(c: Coverage, keyWidth: number, barWidth: number): string {
  const missing = c.missingRanges.length ? `  missing ${c.missingRanges.slice(0, 2).join(", ")}${c.missingRanges.length > 2 ? ", ..." : ""}` : "";
  return `${c.asset.padEnd(keyWidth)}  ${coverageBar(c, barWidth)}  ${formatCount(c.materialized + c.empty)}/${formatCount(c.expected)}  ${formatCount(c.rows)} rows${missing}`;
}
