// How a run ended for one unit of progress (a partition of a backfill, an asset of a single
// run), as the progress views, the plain log and the summary all name it. One classification,
// read from the events by the tracker and from the result by the summary, so that the bar and
// the summary count the same things the same way.
import { formatCount } from "../../text/english.js";

/**
 * What became of a unit: every unit of a run ends in exactly one of these. Abandoned: stopped
 * while one of its assets ran; canceled: stopped before some of its assets started.
 */
export type UnitStatus = "completed" | "failed" | "abandoned" | "canceled" | "skipped" | "waiting" | "notRun";

/** The order in which counts are printed. */
export const STATUS_ORDER: readonly UnitStatus[] = ["completed", "failed", "abandoned", "canceled", "skipped", "waiting", "notRun"];

/** The words of a count: "3 failed", "2 skipped (upstream failed)". */
export const STATUS_WORDS: Readonly<Record<UnitStatus, string>> = {
  completed: "completed",
  failed: "failed",
  abandoned: "abandoned",
  canceled: "canceled",
  skipped: "skipped (upstream failed)",
  waiting: "waiting for upstream data",
  notRun: "not run",
};

/**
 * Why an asset that never started was canceled, from its reason: the runner names a broken
 * dependency (`its dependency "x" failed`) or missing upstream data (`waiting for "x" ...`);
 * any other reason is the run stopping (interrupt, timeout, fail-fast) before it started.
 */
export function unstartedStatus(reason: string): "skipped" | "waiting" | "notRun" {
  if (reason.startsWith("its dependency ")) return "skipped";
  if (reason.startsWith("waiting for ")) return "waiting";
  return "notRun";
}

/** "12 completed, 1 failed, 2 canceled": the non-zero counts, in order (completed always). */
export function countsText(counts: Readonly<Record<UnitStatus, number>>, skip: readonly UnitStatus[] = []): string {
  return STATUS_ORDER.filter((s) => !skip.includes(s) && (s === "completed" || counts[s] > 0))
    .map((s) => `${formatCount(counts[s])} ${STATUS_WORDS[s]}`)
    .join(", ");
}

/** Zero of every status. */
export function noCounts(): Record<UnitStatus, number> {
  return { completed: 0, failed: 0, abandoned: 0, canceled: 0, skipped: 0, waiting: 0, notRun: 0 };
}
