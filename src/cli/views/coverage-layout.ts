import type { Coverage, PartitionCoverage, PartitionStatus } from "../../api/session/index.js";
import { TimeGranularity } from "../../partitioning/index.js";

/** One cell of a coverage picture: a partition, or a blank where the calendar has none. */
export interface Cell {
  readonly status: PartitionStatus | "none";
  /** The partition, for a cell that has one. */
  readonly partition?: PartitionCoverage;
  /** Shade of a materialized partition, 1 (fewest rows) to 4 (most). */
  readonly level: number;
  /** A missing partition that some destinations of the asset hold (the others lack it). */
  readonly partial?: boolean;
  /** A stored partition (materialized or empty) that is out of date: see PartitionCoverage.stale. */
  readonly stale?: true;
  /** A stored partition written with failed warn checks: see PartitionCoverage.warnings. */
  readonly warned?: true;
}

/** The mark of a stale partition: a shape unlike the shades, the circles, "·" and "✗", so it reads without colour. */
/**
 * Whether an asset's partitions are drawn as labelled bars rather than periods: those of a list,
 * and of a multi asset of lists alone (one with a time dimension is drawn one combination at a time).
 */
export const drawnAsList = (c: Pick<Coverage, "granularity">): boolean => c.granularity === null;

export const STALE_MARK = "▲";

/**
 * Whether a partition is drawn as stale: a stored one out of date. The period in progress keeps
 * its own mark (its data is still arriving); the explorer's status still gives its reasons.
 */
export function isStale(p: PartitionCoverage): boolean {
  return p.stale === true && (p.status === "materialized" || p.status === "empty");
}

/** The mark of a partition written with failed warn checks: a shape of its own, as the stale mark has. */
export const WARN_MARK = "◆";

/** Whether a partition is drawn as written with warnings: a stored one whose record has failed warn checks. */
export function isWarned(p: PartitionCoverage): boolean {
  return (p.warnings ?? 0) > 0 && (p.status === "materialized" || p.status === "empty");
}

/** A labelled row of cells. */
export interface CellRow {
  readonly label: string;
  readonly cells: readonly Cell[];
}

/** A titled grid: a year of days, a run of months, a strip of weeks... */
export interface Block {
  readonly title: string;
  /** A line above the cells (month names, hours), aligned with them. */
  readonly header: string | null;
  readonly rows: readonly CellRow[];
  readonly note: string | null;
  /**
   * Characters each cell takes: its mark, repeated, then a gap when wider than one. The header
   * is laid out in these characters, so a label sits over its cell at any width.
   */
  readonly cellWidth: number;
}

/** The characters of one cell drawn `width` wide: the mark, then a one-space gap when there is room. */
export function cellText(mark: string, width: number): string {
  return width <= 1 ? mark : mark.repeat(width - 1) + " ";
}

const NONE: Cell = { status: "none", level: 0 };
const WEEKDAYS = ["Mon", "", "Wed", "", "Fri", "", "Sun"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MAX_HOUR_DAYS = 62;
// Three characters (two marks and a gap) make a cell about as wide as it is tall; wider only
// stretches the picture.
const MAX_CELL_WIDTH = 3;
const WEEKDAY_LABEL = 4;
const DAY_MS = 86_400_000;

/** The picture of an asset's coverage that fits `width` columns. */
export function layoutCoverage(coverage: Coverage, width: number, options: { allHours?: boolean; hourDays?: number } = {}): Block[] {
  const expected = coverage.partitions.filter((p) => p.status !== "unexpected");
  if (expected.length === 0) return [];
  // The period under way is drawn after the expected ones, with its own mark.
  if (coverage.inProgress) expected.push(coverage.inProgress);
  const shade = shader(coverage);
  const destinations = coverage.destinations.length;
  const cell = (p: PartitionCoverage): Cell => ({
    status: p.status,
    level: shade(p),
    partition: p,
    ...(isPartial(p, destinations) ? { partial: true } : {}),
    ...(isStale(p) ? { stale: true as const } : {}),
    ...(isWarned(p) ? { warned: true as const } : {}),
  });
  switch (coverage.granularity) {
    case "day":
      return dayBlocks(expected, cell, width);
    case "hour":
      return [hourBlock(expected, cell, options.allHours ? Infinity : Math.max(1, options.hourDays ?? MAX_HOUR_DAYS))];
    case "month":
      return [monthBlock(expected, cell)];
    default:
      return [stripBlock(expected, cell, width, coverage.granularity ?? "partition")];
  }
}

/** Whether a partition is missing from some of the asset's `destinations` but held by others. */
export function isPartial(p: PartitionCoverage, destinations: number): boolean {
  return p.status === "missing" && p.missingIn !== undefined && p.missingIn.length > 0 && p.missingIn.length < destinations;
}

/** Whether any expected partition is missing from only some destinations. */
export function hasPartial(coverage: Coverage): boolean {
  return coverage.partitions.some((p) => isPartial(p, coverage.destinations.length));
}

/** Shades by share of the largest count, so one look shows a thin day. */
function shader(coverage: Coverage): (p: PartitionCoverage) => number {
  const max = coverage.maxRows ?? 0;
  return (p) => (p.status !== "materialized" || max === 0 ? 0 : Math.min(4, Math.max(1, Math.ceil((p.rows! / max) * 4))));
}

/** Days as a calendar: weeks as columns, weekdays as rows, one block per year (or half-year when narrow). */
function dayBlocks(partitions: readonly PartitionCoverage[], cell: (p: PartitionCoverage) => Cell, width: number): Block[] {
  const byKey = new Map(partitions.map((p) => [p.key, p]));
  const first = TimeGranularity.DAY.parse(partitions[0]!.key);
  const last = TimeGranularity.DAY.parse(partitions[partitions.length - 1]!.key);
  const halves = width < 62;
  const blocks: Block[] = [];
  for (let year = first.getUTCFullYear(); year <= last.getUTCFullYear(); year++) {
    const spans: Array<[number, number]> = halves
      ? [
          [0, 5],
          [6, 11],
        ]
      : [[0, 11]];
    for (const [fromMonth, toMonth] of spans) {
      const from = Math.max(Date.UTC(year, fromMonth, 1), first.getTime());
      const to = Math.min(Date.UTC(year, toMonth + 1, 1) - DAY_MS, last.getTime());
      if (from > to) continue;
      const monday = from - ((new Date(from).getUTCDay() + 6) % 7) * DAY_MS;
      const weeks = Math.floor((to - monday) / (7 * DAY_MS)) + 1;
      const rows = WEEKDAYS.map((label, weekday) => ({
        label,
        cells: Array.from({ length: weeks }, (_, w) => {
          const day = monday + (w * 7 + weekday) * DAY_MS;
          const p = day >= from && day <= to ? byKey.get(TimeGranularity.DAY.format(new Date(day))) : undefined;
          return p ? cell(p) : NONE;
        }),
      }));
      const cellWidth = cellWidthFor(weeks, width - WEEKDAY_LABEL);
      blocks.push({
        title: halves ? `${year} ${fromMonth === 0 ? "H1" : "H2"}` : String(year),
        header: monthHeader(monday, weeks, from, to, cellWidth, width - WEEKDAY_LABEL),
        rows,
        note: null,
        cellWidth,
      });
    }
  }
  return blocks;
}

/** The widest cell (at most MAX_CELL_WIDTH) with which `columns` cells fit `room` characters. */
function cellWidthFor(columns: number, room: number): number {
  return Math.max(1, Math.min(MAX_CELL_WIDTH, Math.floor(room / Math.max(1, columns))));
}

/**
 * Month names over the weeks of a calendar, each above the week holding its first shown day.
 * A name may run past the last week when there is room (a range ending early in a month still
 * names it); a name that would overlap the one before, or not fit `room`, is left out whole.
 */
function monthHeader(monday: number, weeks: number, from: number, to: number, cellWidth: number, room: number): string {
  let header = "";
  for (let w = 0; w < weeks; w++) {
    for (let d = 0; d < 7; d++) {
      const day = monday + (w * 7 + d) * DAY_MS;
      const date = new Date(day);
      if (day < from || day > to || (date.getUTCDate() !== 1 && day !== from)) continue;
      const name = MONTHS[date.getUTCMonth()]!;
      const column = w * cellWidth;
      // One space at least between two names, and the whole name within the room.
      if ((header.length === 0 || header.length < column) && column + name.length <= room) header = header.padEnd(column) + name;
      break;
    }
  }
  return header;
}

/** Hours as days by 24 hours; the most recent days when there are many. */
function hourBlock(partitions: readonly PartitionCoverage[], cell: (p: PartitionCoverage) => Cell, maxDays: number): Block {
  const days = new Map<string, Cell[]>();
  for (const p of partitions) {
    const day = p.key.slice(0, 10);
    const hour = Number(p.key.slice(11, 13));
    const cells = days.get(day) ?? Array.from({ length: 24 }, () => NONE);
    cells[hour] = cell(p);
    days.set(day, cells);
  }
  const all = [...days.entries()];
  const shown = all.slice(-maxDays);
  return {
    title: "hours (UTC)",
    header: "0     6     12    18   ",
    rows: shown.map(([label, cells]) => ({ label, cells })),
    note: all.length > shown.length ? `showing the last ${shown.length} of ${all.length} days` : null,
    cellWidth: 1,
  };
}

/** Months as years by 12. */
function monthBlock(partitions: readonly PartitionCoverage[], cell: (p: PartitionCoverage) => Cell): Block {
  const years = new Map<string, Cell[]>();
  for (const p of partitions) {
    const cells = years.get(p.key.slice(0, 4)) ?? Array.from({ length: 12 }, () => NONE);
    cells[Number(p.key.slice(5, 7)) - 1] = cell(p);
    years.set(p.key.slice(0, 4), cells);
  }
  return {
    title: "months",
    header: "JFMAMJJASOND",
    rows: [...years.entries()].map(([label, cells]) => ({ label, cells })),
    note: null,
    cellWidth: 1,
  };
}

/** Weeks, quarters and years as a strip, wrapped to the width. */
function stripBlock(partitions: readonly PartitionCoverage[], cell: (p: PartitionCoverage) => Cell, width: number, unit: string): Block {
  const labelWidth = partitions[0]!.key.length + 2;
  const perRow = Math.max(4, Math.min(52, width - labelWidth - 2));
  const rows: CellRow[] = [];
  for (let i = 0; i < partitions.length; i += perRow) {
    const slice = partitions.slice(i, i + perRow);
    rows.push({ label: slice[0]!.key, cells: slice.map(cell) });
  }
  return { title: `${unit}s`, header: null, rows, note: null, cellWidth: 1 };
}

/** The mark of a cell when colour cannot tell statuses apart. */
export function cellChar(c: Cell): string {
  // Stale first: a stale partition needs rebuilding whatever its checks said.
  if (c.stale) return STALE_MARK;
  if (c.warned) return WARN_MARK;
  switch (c.status) {
    case "none":
      return " ";
    case "missing":
      return c.partial ? "◐" : "·";
    case "empty":
      return "○";
    case "unreadable":
      return "✗";
    case "in-progress":
      return "◌";
    default:
      return " ░▒▓█"[c.level] ?? "█";
  }
}

/** A one-line bar of a whole asset's coverage, `width` characters long. */
export function coverageBar(coverage: Coverage, width: number): string {
  const expected = coverage.partitions.filter((p) => p.status !== "unexpected");
  if (expected.length === 0) return "".padEnd(width);
  const chars: string[] = [];
  const slots = Math.min(width, expected.length);
  for (let i = 0; i < slots; i++) {
    const bucket = expected.slice(Math.floor((i * expected.length) / slots), Math.floor(((i + 1) * expected.length) / slots));
    const present = bucket.filter((p) => p.status !== "missing" && p.status !== "unreadable").length;
    // What is missing shows first; a bucket all stored shows stale when any of it is out of date.
    const stored = bucket.some(isStale)
      ? STALE_MARK
      : bucket.some(isWarned)
        ? WARN_MARK
        : bucket.every((p) => p.status === "empty")
          ? "○"
          : "█";
    chars.push(present === bucket.length ? stored : present === 0 ? "·" : "▒");
  }
  return chars.join("").padEnd(width);
}
