import { formatCount } from "../../text/english.js";
import { formatDuration, type AssetTiming } from "./tracker.js";

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
  const header = ["asset", "partitions", "rows", "time"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
