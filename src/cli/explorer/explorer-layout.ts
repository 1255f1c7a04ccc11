// What the explorer shows in a terminal of `width` x `height`: every line fits the width, and
// the lines together fit the height. What does not fit scrolls to the cursor: the rows of the
// picture (the days of an hourly asset, the years of a calendar) and the list of assets; the
// title, the cursor's line, the keys and an opened partition's details always show whole.
import type { Coverage, PartitionCoverage } from "../../api/session/index.js";
import { count, formatCount } from "../../text/english.js";
import { printable } from "../printable.js";
import { drawnAsList, isStale, isWarned, layoutCoverage, type CellRow } from "../views/coverage-layout.js";
import { cutToWidth } from "../views/coverage-text.js";
import { summaryColumns, summaryEntry } from "../views/coverage-summary.js";
import type { PartitionInDestination } from "../../api/session/index.js";
import { jumpWord, windowAround } from "./explorer-state.js";

/** A block of the picture as the explorer draws it: labelled rows of cells, each with text after it. */
export interface PictureBlock {
  readonly title: string | null;
  readonly header: string | null;
  readonly rows: ReadonlyArray<{ readonly row: CellRow; readonly suffix: string }>;
  readonly note: string | null;
  readonly cellWidth: number;
  readonly labelWidth: number;
}

/** An opened partition's details: loading, failed, or per destination. */
export type Details =
  | { readonly key: string; readonly state: "loading" }
  | { readonly key: string; readonly state: "ready"; readonly rows: readonly PartitionInDestination[] }
  | { readonly key: string; readonly state: "failed"; readonly error: string };

/** A partition's state in words; a stale one's reasons after it. */
export function statusOf(p: PartitionCoverage): string {
  const state = stateOf(p);
  // The checks that failed when it was written, named: `coverage -i` is where one looks why.
  const warned = p.warningChecks?.length ? `; written with failed warn checks: ${p.warningChecks.join(", ")}` : "";
  return p.stale ? `${state}${warned}; stale: ${(p.staleReasons ?? []).join("; ")}` : `${state}${warned}`;
}

function stateOf(p: PartitionCoverage): string {
  switch (p.status) {
    case "missing":
      return p.missingIn ? `missing in ${p.missingIn.join(", ")}` : "missing";
    case "empty":
      return "empty (0 rows)";
    case "unreadable":
      return `unreadable: ${p.file ?? "?"}: ${p.error ?? ""}`;
    case "in-progress":
      return `in progress, ${p.rows === null ? "nothing stored so far" : `${count(p.rows, "row")} so far`}`;
    default:
      return count(p.rows ?? 0, "row");
  }
}

/** `  checks   unique(order_id) failed (warn)` for a record with failed checks, else nothing. */
function failedChecksLine(record: PartitionInDestination["record"], inner: number): string[] {
  const failed = record?.checks?.filter((c) => !c.passed) ?? [];
  if (failed.length === 0) return [];
  return [cutToWidth(printable(`  checks   ${failed.map((c) => `${c.name} failed (${c.severity})`).join(", ")}`), inner)];
}

/** The whole picture of `c`: every row of every block (an hourly asset's every day). */
export function pictureOf(c: Coverage, width: number): PictureBlock[] {
  if (drawnAsList(c)) {
    const expected = c.partitions.filter((p) => p.status !== "unexpected");
    const labelWidth = Math.max(0, ...expected.map((p) => p.key.length));
    const rows = expected.map((p) => ({
      row: {
        label: p.key,
        cells: [
          {
            status: p.status,
            level: p.status === "materialized" ? 4 : 0,
            partition: p,
            ...(isStale(p) ? { stale: true as const } : isWarned(p) ? { warned: true as const } : {}),
          },
        ],
      },
      suffix: cutToWidth(` ${statusOf(p)}`, Math.max(1, width - labelWidth - 2)),
    }));
    return rows.length ? [{ title: null, header: null, rows, note: null, cellWidth: 1, labelWidth }] : [];
  }
  return layoutCoverage(c, width, { allHours: true }).map((b) => ({
    title: b.title,
    header: b.header,
    rows: b.rows.map((row) => ({ row, suffix: "" })),
    note: b.note,
    cellWidth: b.cellWidth,
    labelWidth: Math.max(0, ...b.rows.map((r) => r.label.length)),
  }));
}

const blockHeight = (b: PictureBlock) =>
  (b.title === null ? 0 : 1) + (b.header === null ? 0 : 1) + b.rows.length + (b.note === null ? 0 : 1);

/** Lines the picture takes, with the blank line above it. */
export const pictureHeight = (blocks: readonly PictureBlock[]) => (blocks.length ? 1 + blocks.reduce((n, b) => n + blockHeight(b), 0) : 0);

/**
 * The picture within `budget` lines (the blank line above included): all of it when it fits,
 * else the cursor's block, its rows scrolled to keep the cursor's row in the middle, with a
 * note of what is shown (drawn in parentheses: two characters less than the width). Empty when
 * not even one row fits.
 */
export function fitPicture(blocks: readonly PictureBlock[], selected: string | null, budget: number, width: number): PictureBlock[] {
  if (pictureHeight(blocks) <= budget) return [...blocks];
  const has = (r: PictureBlock["rows"][number]) => r.row.cells.some((cell) => cell.partition?.key === selected);
  const found = blocks.findIndex((b) => b.rows.some(has));
  const index = found >= 0 ? found : blocks.length - 1;
  let block = blocks[index]!;
  let room = budget - 2 - (block.title === null ? 0 : 1) - (block.header === null ? 0 : 1);
  // Short of room, the cursor's row goes before the header (month names, hours).
  if (room < 1 && block.header !== null) {
    block = { ...block, header: null };
    room++;
  }
  if (room < 1) return [];
  const others = blocks.length - 1;
  if (room >= block.rows.length) {
    const note = `${block.title ?? "block"}: ${index + 1} of ${blocks.length}; PgUp/PgDn or ←→ go on to the others`;
    return [{ ...block, note: others ? cutToWidth(note, width - 2) : block.note }];
  }
  const row = Math.max(0, block.rows.findIndex(has));
  const start = Math.min(block.rows.length - room, Math.max(0, row - Math.floor(room / 2)));
  const rows = block.rows.slice(start, start + room);
  const labels = `${rows[0]!.row.label}..${rows.at(-1)!.row.label}`;
  const unit = block.title === "hours (UTC)" ? "days" : "rows";
  const note = `${unit} ${formatCount(start + 1)}-${formatCount(start + rows.length)} of ${formatCount(block.rows.length)}${labels.trim() !== ".." ? ` (${labels})` : ""}${others ? `; ${count(others, "more block")}` : ""}`;
  return [{ ...block, rows, note: cutToWidth(note, width - 2) }];
}

/** The cursor's line: asset, key and state, then what `m` would do, on a line of its own when the two do not fit one. */
export function statusLines(c: Coverage, p: PartitionCoverage, width: number): string[] {
  const state = `${c.asset} ${p.key}: ${statusOf(p)}`;
  if (p.status !== "missing") return [cutToWidth(state, width)];
  const action = `m materializes ${windowAround(c, p.key)}`;
  const whole = `${state}; ${action}`;
  return whole.length <= width ? [whole] : [cutToWidth(`${state};`, width), cutToWidth(`  ${action}`, width)];
}

/** The keys, in groups that stay whole, on as many lines as the width needs. */
export function helpLines(c: Coverage | null, typing: "filter" | "goto" | null, width: number): string[] {
  if (typing === "filter") return wrapGroups(["type to filter", "enter keep", "esc clear"], width);
  if (typing === "goto") return wrapGroups(["type a key or its start", "enter go", "esc cancel"], width);
  const rest = ["↑↓ asset", "enter details", "m materialize", "/ filter", "q quit"];
  const full = wrapGroups(
    ["←→ period", ...(c ? [`PgUp/PgDn ${jumpWord(c)}`] : []), "Home/End first/last", "g go to a key", ...rest],
    width,
  );
  // The period keys in one group when the whole help would take more than a line.
  return full.length === 1 ? full : wrapGroups(["←→ PgUp PgDn Home End g: period", ...rest], width);
}

function wrapGroups(groups: readonly string[], width: number): string[] {
  const lines: string[] = [];
  for (const group of groups) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 2 + group.length <= width) lines[lines.length - 1] = `${last}  ${group}`;
    else lines.push(cutToWidth(group, width));
  }
  return lines;
}

/**
 * Why a stale partition is out of date, for the details: each reason whole, wrapped at its
 * spaces to `inner` characters (the cursor's line may have cut them).
 */
function staleSection(reasons: readonly string[], inner: number, maxLines: number): string[] {
  if (reasons.length === 0) return [];
  const lines = ["stale: out of date since it was written"];
  for (const reason of reasons) {
    let line = "  -";
    let words = 0;
    for (const word of printable(reason).split(" ")) {
      if (words > 0 && line.length + 1 + word.length > inner) {
        lines.push(cutToWidth(line, inner));
        line = "   ";
        words = 0;
      }
      line = `${line} ${word}`;
      words++;
    }
    lines.push(cutToWidth(line, inner));
  }
  // Room kept for a destination's first lines (the border takes two).
  const room = Math.max(1, maxLines - 5);
  if (lines.length <= room) return lines;
  return [...lines.slice(0, room - 1), cutToWidth("  … (a taller terminal shows every reason)", inner)];
}

/**
 * The details of an opened partition as lines inside a border (`width` minus the border and its
 * padding), at most `maxLines` of them: why it is stale first, when it is (`stale`, its
 * reasons), then its destinations; those that do not fit are counted on a last line.
 */
export function detailLines(details: Details, width: number, maxLines: number, stale: readonly string[] = []): string[] {
  if (details.state === "loading") return [cutToWidth(`${details.key}: reading the destinations…`, width)];
  if (details.state === "failed") return [cutToWidth(printable(`${details.key}: ${details.error}`), width)];
  const inner = width - 4;
  const sections = details.rows.map((d) => {
    const written = d.writtenAt
      ? `${d.writtenAt.toISOString().replace("T", " ").slice(0, 19)} UTC`
      : d.rows === null
        ? "never"
        : "not recorded by this destination";
    const where = d.location === null ? "not said by this destination" : printable(d.location);
    // The location whole, in pieces as wide as the line (a path has no spaces to wrap at).
    const room = Math.max(10, inner - 11);
    const pieces = Array.from({ length: Math.ceil(where.length / room) }, (_, i) => where.slice(i * room, (i + 1) * room));
    const by = d.record
      ? `${d.record.backfillId ? `backfill ${d.record.backfillId.slice(0, 8)}` : `run ${d.record.runId.slice(0, 8)}`}`
      : null;
    return [
      cutToWidth(printable(d.destination), inner),
      cutToWidth(`  rows     ${d.rows === null ? "missing here" : formatCount(d.rows)}`, inner),
      cutToWidth(`  written  ${written}${by ? ` by ${by}` : ""}`, inner),
      ...pieces.map((piece, i) => `${i === 0 ? "  where    " : "           "}${piece}`),
      // The checks that failed on the data of the write it holds (a warn check's: it was written).
      ...failedChecksLine(d.record, inner),
    ];
  });
  const lines: string[] = staleSection(stale, inner, maxLines);
  for (const [i, section] of sections.entries()) {
    const rest = sections.length - i - 1;
    if (lines.length + section.length + (rest ? 1 : 0) + 2 > maxLines) {
      lines.push(cutToWidth(`and ${count(sections.length - i, "more destination")} (a taller terminal shows them)`, inner));
      break;
    }
    lines.push(...section);
  }
  return lines;
}

/** Lines the details take on screen: a border around them when ready. */
export const detailsHeight = (details: Details, lines: readonly string[]) => lines.length + (details.state === "ready" ? 2 : 0);

/** One summary line of the asset list: which asset, which line of its entry. */
export interface ListLine {
  readonly asset: string;
  readonly first: boolean;
  readonly text: string;
}

/**
 * The assets' summary lines within `budget` lines: all when they fit, else whole entries around
 * the current one, and a line saying how many are above and below.
 */
export function fitList(shown: readonly Coverage[], current: Coverage | null, width: number, budget: number): ListLine[] {
  if (!shown.length) return [];
  const columns = summaryColumns(shown, width - 2);
  const entries = shown.map((c) =>
    summaryEntry(c, columns.key, columns.bar, width - 2, columns).map((text, i) => ({ asset: c.asset, first: i === 0, text })),
  );
  if (entries.flat().length <= budget) return entries.flat();
  const at = Math.max(0, current ? shown.indexOf(current) : 0);
  let from = at;
  let to = at + 1;
  let used = entries[at]!.length + 1;
  for (let grew = true; grew;) {
    grew = false;
    if (to < entries.length && used + entries[to]!.length <= budget) {
      used += entries[to]!.length;
      to++;
      grew = true;
    }
    if (from > 0 && used + entries[from - 1]!.length <= budget) {
      from--;
      used += entries[from]!.length;
      grew = true;
    }
  }
  const lines = entries.slice(from, to).flat();
  if (from === 0 && to === entries.length) return lines;
  const more = `(${formatCount(from)} more above, ${formatCount(entries.length - to)} below: ↑↓)`;
  return [...lines, { asset: "", first: false, text: cutToWidth(more, width - 2) }];
}
