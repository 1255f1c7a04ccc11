// `coverage ASSET` of a multi-partitioned asset with a time dimension, cut into combinations of
// its list values: one heatmap row per combination (its periods oldest to newest, left to
// right), what each lacks, then the asset's totals and how to see one combination's calendar.
import type { Coverage } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import { STALE_MARK, WARN_MARK } from "./coverage-layout.js";
import { summaryEntry } from "./coverage-summary.js";
import { countLines, cutToWidth } from "./coverage-text.js";

/** Whether coverage results are the combinations of one multi asset (see `byCombination`), more than one. */
export function isCombinations(results: readonly Coverage[]): boolean {
  return results.length > 1 && results.every((c) => c.combination !== undefined && c.combination.asset === results[0]!.combination!.asset);
}

/** The label of a combination's row: its values in brackets, as its asset key ends (`[eu]`). */
const labelOf = (c: Coverage): string => c.asset.slice(c.combination!.asset.length);

/** The picture of one multi asset's combinations as plain text lines fitting `width`. */
export function combinationsText(slices: readonly Coverage[], width: number): string[] {
  const first = slices[0]!;
  const asset = first.combination!.asset;
  const dimensions = first
    .dimensions!.map((d) => (d.kind === "time" ? `${d.name} (${d.granularity})` : `${d.name} (${valuesText(d.values!)})`))
    .join(" x ");
  const range = first.first === null ? "nothing expected yet" : first.first === first.last ? first.first : `${first.first}..${first.last}`;
  const head = `${asset}  ${dimensions}: ${count(slices.length, "combination")}, ${range}`;
  const labelled = slices.map((c) => ({ ...c, asset: labelOf(c) }));
  const key = Math.max(...labelled.map((c) => c.asset.length));
  const counts = Math.max(...labelled.map((c) => `${formatCount(c.materialized + c.empty)}/${formatCount(c.expected)}`.length));
  const rows = Math.max(...labelled.map((c) => count(c.rows, "row").length));
  // The row takes what the numbers and about one missing range leave, at most a cell a period.
  const periods = Math.max(1, ...slices.map((c) => c.expected));
  const bar = Math.min(periods, Math.max(10, Math.min(60, width - key - counts - rows - 8 - 30)));
  const total = (field: "expected" | "materialized" | "empty" | "missing" | "unreadable" | "unexpected" | "stale" | "warnings" | "rows") =>
    slices.reduce((sum, c) => sum + c[field], 0);
  const marks = { stale: total("stale") > 0, warned: total("warnings") > 0 };
  const totals = {
    expected: total("expected"),
    materialized: total("materialized"),
    empty: total("empty"),
    missing: total("missing"),
    unreadable: total("unreadable"),
    unexpected: total("unexpected"),
    stale: total("stale"),
    warnings: total("warnings"),
  };
  const values = Object.entries(first.combination!.values)
    .map(([name, value]) => `--values ${name}=${value}`)
    .join(" ");
  return [
    cutToWidth(head, width),
    ...labelled.flatMap((c) => summaryEntry(c, key, bar, width, { counts, rows })),
    "",
    cutToWidth(rowLegend(marks.stale, marks.warned), width),
    "",
    ...countLines(totals, width),
    `rows ${formatCount(total("rows"))}`,
    cutToWidth(`one combination's calendar: ${values}; step through them: -i`, width),
  ];
}

/** A list's values, or how many there are when listing them would crowd the head line. */
const valuesText = (values: readonly string[]): string => (values.length <= 6 ? values.join(", ") : `${formatCount(values.length)} values`);

/** What a heatmap row's cells say (a cell stands for one period or several). */
function rowLegend(stale: boolean, warned: boolean): string {
  return `legend: █ stored  ○ empty  ▒ partly missing  · missing${stale ? `  ${STALE_MARK} stale` : ""}${warned ? `  ${WARN_MARK} warnings` : ""}`;
}
