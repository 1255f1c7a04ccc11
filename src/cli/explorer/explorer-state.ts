import type { Coverage, PartitionCoverage } from "../../api/session/index.js";
import { TimeGranularity } from "../../partitioning/index.js";
import { drawnAsList } from "../views/coverage-layout.js";

/** Where the explorer stands: kept across a materialization, so the refreshed view opens there. */
export interface ExplorerPlace {
  /** The selected asset's key. */
  readonly asset: string | null;
  /** The selected partition's key. */
  readonly key: string | null;
  /** Assets whose key holds this text (any case) are shown; "" shows all. */
  readonly filter: string;
}

/** What the explorer asks its caller to do when it closes. */
export type ExplorerExit =
  | { readonly kind: "quit" }
  | { readonly kind: "materialize"; readonly asset: string; readonly window: string; readonly place: ExplorerPlace };

/** The assets the filter keeps. */
export function filtered(coverages: readonly Coverage[], filter: string): Coverage[] {
  const text = filter.toLowerCase();
  return coverages.filter((c) => c.asset.toLowerCase().includes(text));
}

/**
 * The partitions the cursor steps through, in order: every expected one, and the period in
 * progress. The picture scrolls to the cursor, so each of them can be reached.
 */
export function steps(c: Coverage): PartitionCoverage[] {
  const expected = c.partitions.filter((p) => p.status !== "unexpected");
  if (drawnAsList(c)) return expected;
  const all = c.inProgress ? [...expected, c.inProgress] : expected;
  return all.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** What PageUp and PageDown move by, per granularity (a list moves by 10 values). */
const JUMPS: Readonly<Record<string, { readonly word: string; readonly periods: number }>> = {
  hour: { word: "a day", periods: 24 },
  day: { word: "a month", periods: 0 },
  week: { word: "13 weeks", periods: 13 },
  month: { word: "a year", periods: 12 },
  quarter: { word: "a year", periods: 4 },
  year: { word: "10 years", periods: 10 },
};
const LIST_JUMP = { word: "10 values", periods: 10 };

/** What PageUp and PageDown move by in `c`, in words ("a day"). */
export function jumpWord(c: Coverage): string {
  return (drawnAsList(c) ? LIST_JUMP : (JUMPS[c.granularity ?? ""] ?? LIST_JUMP)).word;
}

/**
 * Where PageUp (`direction` -1) or PageDown (+1) takes the cursor from `at` in `path`: by the
 * granularity's jump (a day of hours, a month of days: the same day of the month, or its last),
 * to the nearest partition of the path at or beyond that period.
 */
export function jump(c: Coverage, path: readonly PartitionCoverage[], at: number, direction: -1 | 1): number {
  const from = path[at];
  if (!from) return at;
  const last = path.length - 1;
  const jump = JUMPS[c.granularity ?? ""];
  if (drawnAsList(c) || !jump) return Math.min(last, Math.max(0, at + direction * LIST_JUMP.periods));
  const target =
    c.granularity === "day" ? sameDayOfMonth(from.key, direction) : shiftKey(c.granularity!, from.key, direction * jump.periods);
  if (target === null) return Math.min(last, Math.max(0, at + direction));
  if (direction < 0) {
    let i = at;
    while (i > 0 && path[i]!.key > target) i--;
    return i;
  }
  let i = at;
  while (i < last && path[i]!.key < target) i++;
  return i;
}

/** A key `periods` periods after `key` (before, when negative); null when it is no key of the granularity. */
function shiftKey(granularity: string, key: string, periods: number): string | null {
  try {
    const g = TimeGranularity.named(granularity);
    return g.format(g.advance(key, periods));
  } catch {
    return null;
  }
}

/** The day key one month before or after `key`: the same day of the month, or the month's last. */
function sameDayOfMonth(key: string, direction: -1 | 1): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]) - 1 + direction;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return TimeGranularity.DAY.format(new Date(Date.UTC(year, month, Math.min(Number(m[3]), lastDay))));
}

/**
 * Where `g` then a key takes the cursor in `path`: that partition, else the first whose key
 * starts with the text (any case), else null.
 */
export function findKey(path: readonly PartitionCoverage[], text: string): number | null {
  const wanted = text.trim().toLowerCase();
  if (!wanted) return null;
  const exact = path.findIndex((p) => p.key.toLowerCase() === wanted);
  if (exact >= 0) return exact;
  const prefix = path.findIndex((p) => p.key.toLowerCase().startsWith(wanted));
  return prefix >= 0 ? prefix : null;
}

/**
 * The window `m` materializes from a partition: the whole run of missing partitions around a
 * missing one, else the partition alone.
 */
export function windowAround(c: Coverage, key: string): string {
  const expected = c.partitions.filter((p) => p.status !== "unexpected");
  const at = expected.findIndex((p) => p.key === key);
  if (at < 0 || expected[at]!.status !== "missing") return key;
  let from = at;
  let to = at;
  while (from > 0 && expected[from - 1]!.status === "missing") from--;
  while (to < expected.length - 1 && expected[to + 1]!.status === "missing") to++;
  return from === to ? key : `${expected[from]!.key}..${expected[to]!.key}`;
}
