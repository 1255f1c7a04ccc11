import type { MaterializeOutcome } from "../../api/session/index.js";
import { rerunCommands, upstreamCommands, type Invocation } from "./rerun.js";
import type { RunResult } from "../../runner/run-result.js";
import { count, formatCount, nounFor } from "../../text/english.js";
import type { BackfillResult } from "../../runner/backfill.js";
import { formatDuration } from "./tracker.js";
import { countsText, noCounts, unstartedStatus, type UnitStatus } from "./unit-status.js";

export type { Invocation };

/** The closing lines of a materialize: counts, failures, and how to re-run them. */
export function summaryLines(outcome: MaterializeOutcome, rows: number, invocation: Invocation): string[] {
  const lines: string[] = [];
  const result = outcome.result;
  const seconds = formatDuration(result.executionTime);
  const verdict = outcome.status === "completed" ? "Done" : outcome.status === "canceled" ? "Interrupted" : "Failed";
  const counts = outcomeCounts(outcome);
  if ("partitions" in result) {
    const failed = result.failedPartitions;
    const abandoned = result.abandonedPartitions;
    lines.push(
      `${verdict}: ${formatCount(counts.completed)} of ${count(result.partitions.length, "partition")} completed${restOf(counts)}, ${count(rows, "row")} in ${seconds}`,
    );
    if (failed.length) lines.push(`Failed partitions: ${compactKeys(failed)}`);
    const reasons = result.partitions.flatMap((p) =>
      p.status === "failed" && p.result?.error ? [`  ${p.key}: ${firstFailure(p.result)}`] : [],
    );
    lines.push(
      ...reasons.slice(0, MAX_REASONS),
      ...(reasons.length > MAX_REASONS
        ? [`  (and ${reasons.length - MAX_REASONS} more failed ${nounFor(reasons.length - MAX_REASONS, "partition")})`]
        : []),
    );
    if (abandoned.length)
      lines.push(`Abandoned (${abandonedWhy(result.partitions.find((p) => p.key === abandoned[0])!.result!)}): ${compactKeys(abandoned)}`);
  } else {
    const failed = result.failedAssets;
    lines.push(
      `${verdict}: ${formatCount(counts.completed)} of ${count(Object.keys(result.assetExecutions).length, "asset")} completed` +
        `${result.partitionOrWindow ? ` for ${result.partitionOrWindow}` : ""}${restOf(counts)}, ${count(rows, "row")} in ${seconds}`,
    );
    for (const key of failed) lines.push(`  ${key}: ${oneLine(result.assetExecutions[key]!.error?.message ?? "failed")}`);
    for (const key of result.abandonedAssets)
      lines.push(`  ${key}: ${oneLine(result.assetExecutions[key]!.error?.message ?? "abandoned")}`);
  }
  if (result.runError) lines.push(`Error: ${oneLine(result.runError.message)}`);
  if ("waiting" in result && result.waiting.length > 0) {
    lines.push(`Not run, waiting for upstream data that is not stored:`);
    const shown = result.waiting
      .slice(0, MAX_REASONS)
      .map((w) => `  ${w.asset}${w.partition === null ? "" : ` ${w.partition}`}: "${w.upstream}" ${w.missing}`);
    lines.push(...shown, ...(result.waiting.length > MAX_REASONS ? [`  (and ${result.waiting.length - MAX_REASONS} more)`] : []));
  }
  if ("notRun" in result && result.notRun.length > 0) {
    lines.push(`Not run, an upstream partition did not complete:`);
    const shown = result.notRun
      .slice(0, MAX_REASONS)
      .map((n) => `  ${n.asset}${n.partition === null ? "" : ` ${n.partition}`}: ${n.reason}`);
    lines.push(...shown, ...(result.notRun.length > MAX_REASONS ? [`  (and ${result.notRun.length - MAX_REASONS} more)`] : []));
  }
  const rerun = rerunCommands(outcome, invocation);
  if (rerun.length) lines.push(`Re-run what did not complete with:`, ...rerun.map((c) => `  ${c}`));
  const upstream = upstreamCommands(outcome, invocation);
  if (upstream.length)
    lines.push(`Upstream data is missing: materialize it too (+ selects everything upstream) with:`, ...upstream.map((c) => `  ${c}`));
  return lines;
}

/**
 * How many units (partitions of a backfill, assets of a single run) ended in each status, as
 * the progress views' tracker classifies them from the events.
 */
export function outcomeCounts(outcome: MaterializeOutcome): Record<UnitStatus, number> {
  const counts = noCounts();
  const result = outcome.result;
  if ("partitions" in result) {
    const skipped = new Set(result.notRun.map((n) => n.partition));
    const waiting = new Set(result.waiting.map((w) => w.partition));
    for (const p of result.partitions) counts[partitionStatus(p, skipped, waiting)]++;
  } else {
    for (const e of Object.values(result.assetExecutions)) {
      counts[e.status !== "canceled" ? e.status : e.startTime !== null ? "abandoned" : unstartedStatus(e.error?.message ?? "")]++;
    }
  }
  return counts;
}

function partitionStatus(
  p: BackfillResult["partitions"][number],
  skipped: ReadonlySet<string | null>,
  waiting: ReadonlySet<string | null>,
): UnitStatus {
  if (p.status !== "canceled") return p.status;
  if (skipped.has(p.key)) return "skipped";
  if (waiting.has(p.key)) return "waiting";
  if (!p.result) return "notRun";
  return p.result.abandonedAssets.length > 0 ? "abandoned" : "canceled";
}

/** ", 1 failed, 2 not run": the counts after the completed ones. */
function restOf(counts: Record<UnitStatus, number>): string {
  const rest = countsText(counts, ["completed"]);
  return rest ? `, ${rest}` : "";
}

/** Failed partitions whose reason the summary prints, one line each. */
const MAX_REASONS = 5;

/** `asset: message` of a run's first failed asset, on one line. */
function firstFailure(run: RunResult): string {
  const failed = Object.values(run.assetExecutions).find((e) => e.status === "failed");
  return failed ? `${failed.asset}: ${oneLine(failed.error?.message ?? "failed")}` : oneLine(run.error?.message ?? "failed");
}

/** Why a run's assets were abandoned: "still running 10s after SIGTERM". */
function abandonedWhy(run: RunResult): string {
  const message = run.assetExecutions[run.abandonedAssets[0]!]?.error?.message ?? "abandoned";
  return oneLine(message.replace(/^abandoned: /, ""));
}

function oneLine(text: string): string {
  return text.split("\n")[0]!.trim();
}

function compactKeys(keys: readonly string[]): string {
  const sorted = [...keys].sort();
  return sorted.length > 12 ? `${sorted.slice(0, 12).join(", ")} and ${sorted.length - 12} more` : sorted.join(", ");
}

/**
 * A word as a POSIX shell reads it back: as it is, in single quotes, or, when it holds a control
 * character, in ANSI-C quotes (`$'...'`, bash, zsh and ksh), whose escapes are the ones
 * `printable` writes, so the command shows no raw control and still names the same partition.
 */
