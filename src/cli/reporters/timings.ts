import { formatCount } from "../../text/english.js";
import { formatDuration, type AssetTiming } from "./tracker.js";
import { columnLines } from "../columns.js";
import type { CheckTally } from "./check-tally.js";

/**
 * The table that closes a run, one row per asset that ran: the partitions it completed (and
 * failed), the rows it wrote, and the time spent in it, summed over its partitions (so with
 * concurrency the sum exceeds the wall time). Numbers are right-aligned. Empty when nothing ran.
 * When an asset of the run has checks (`checked`: their keys), a `checks` column says how many
 * failed per asset (`2 failed`, `1 warn`, `ok`; `-` for an asset without checks).
 */
export function timingLines(timings: Iterable<AssetTiming>, checks?: { tally: CheckTally; checked: ReadonlySet<string> }): string[] {
  const rows = [...timings].map((t) => [
    t.asset,
    !t.partitioned ? "-" : `${formatCount(t.completed)}${t.failed ? ` (${t.failed} failed)` : ""}`,
    formatCount(t.rows),
    formatDuration(t.durationMs),
    ...(checks && checks.checked.size > 0 ? [checks.tally.cell(t.asset, checks.checked.has(t.asset))] : []),
  ]);
  if (rows.length === 0) return [];
  const header = ["asset", "partitions", "rows", "time", ...(checks && checks.checked.size > 0 ? ["checks"] : [])];
  return columnLines(header, rows, new Set([1, 2, 3]));
}
