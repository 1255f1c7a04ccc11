import { formatCount } from "../../text/english.js";
import { formatDuration, type AssetTiming } from "./tracker.js";
import { columnLines } from "../columns.js";

/**
 * The table that closes a run, one row per asset that ran: the partitions it completed (and
 * failed), the rows it wrote, and the time spent in it, summed over its partitions (so with
 * concurrency the sum exceeds the wall time). Numbers are right-aligned. Empty when nothing ran.
 */
export function timingLines(timings: Iterable<AssetTiming>): string[] {
  const rows = [...timings].map((t) => [
    t.asset,
    !t.partitioned ? "-" : `${formatCount(t.completed)}${t.failed ? ` (${t.failed} failed)` : ""}`,
    formatCount(t.rows),
    formatDuration(t.durationMs),
  ]);
  if (rows.length === 0) return [];
  return columnLines(["asset", "partitions", "rows", "time"], rows, new Set([1, 2, 3]));
}
