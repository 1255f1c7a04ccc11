import type { MaterializeOutcome } from "../../api/session/index.js";
import type { Plan } from "../../api/session/index.js";
import { printable } from "../printable.js";
import type { RunResult } from "../../runner/run-result.js";
import { count, formatCount, nounFor } from "../../text/english.js";
import type { BackfillResult } from "../../runner/backfill.js";
import { formatDuration } from "./tracker.js";
import { countsText, noCounts, unstartedStatus, type UnitStatus } from "./unit-status.js";

/** How the command was invoked, to print the command that re-runs what failed. */
export interface Invocation {
  /** The selectors given, and those of `--exclude`. */
  readonly assets: readonly string[];
  readonly exclude?: readonly string[] | undefined;
  readonly config?: string | undefined;
}

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

/** One command per contiguous range of incomplete partitions (oldest first). */
export function rerunCommands(outcome: MaterializeOutcome, invocation: Invocation): string[] {
  const exclude = (invocation.exclude ?? []).flatMap((selector) => ["--exclude", selector]);
  return commandsFor([...invocation.assets, ...exclude], outcome, outcome.incomplete, invocation.config);
}

/**
 * For assets that failed because an upstream holds no data (DataNotFoundError, by name so that
 * failures reported by child processes count too): the command that materializes them with
 * everything upstream, over the partitions that failed so.
 */
export function upstreamCommands(outcome: MaterializeOutcome, invocation: Invocation): string[] {
  const assets = new Set<string>();
  const partitions: string[] = [];
  const result = outcome.result;
  const starved = (run: RunResult) =>
    Object.values(run.assetExecutions)
      .filter((e) => e.status === "failed" && e.error?.name === "DataNotFoundError")
      .map((e) => e.asset);
  if ("partitions" in result) {
    for (const p of result.partitions) {
      const keys = p.status === "failed" && p.result ? starved(p.result) : [];
      if (keys.length) partitions.push(p.key);
      for (const key of keys) assets.add(key);
    }
  } else {
    for (const key of starved(result)) assets.add(key);
    if (assets.size) for (const key of outcome.incomplete) partitions.push(key);
  }
  if ("waiting" in result && outcome.plan.stages) {
    // Assets left waiting: the command that runs them with their upstream, over their partitions.
    const waiting = new Set(result.waiting.map((w) => w.asset));
    const keys = result.waiting.flatMap((w) => (w.partition === null ? [] : [w.partition]));
    // An unpartitioned asset has no partition to name: its command takes no window.
    const once = [...new Set(result.waiting.filter((w) => w.partition === null).map((w) => w.asset))];
    const base =
      once.length > 0
        ? [
            ["interloper", "materialize", ...once.map((key) => `+${key}`), ...(invocation.config ? ["-c", invocation.config] : [])]
              .map(quote)
              .join(" "),
          ]
        : [];
    return [
      ...base,
      ...stagedCommands(outcome.plan, keys, invocation.config, (group) => group.filter((key) => waiting.has(key)).map((key) => `+${key}`)),
    ];
  }
  if (assets.size === 0) return [];
  return commandsFor(
    [...assets].map((key) => `+${key}`),
    outcome,
    partitions,
    invocation.config,
  );
}

/** `interloper materialize WORDS` over the given partitions of the outcome's window, one command per contiguous range. */
function commandsFor(
  words: readonly string[],
  outcome: MaterializeOutcome,
  partitions: readonly string[],
  config: string | undefined,
): string[] {
  if (partitions.length === 0) return [];
  if (outcome.plan.stages) return stagedCommands(outcome.plan, partitions, config);
  const base = ["interloper", "materialize", ...words, ...(config ? ["-c", config] : [])].map(quote).join(" ");
  const window = outcome.plan.window;
  if (!window || outcome.plan.mode === "run") return [window ? `${base} --window ${quote(String(window))}` : base];
  return rangeCommands(
    base,
    window.partitions.map((p) => p.key),
    new Set(partitions),
  );
}

/**
 * For a staged plan (several partitionings): per group of assets sharing partitions, the
 * command that re-runs those assets over their incomplete partitions, a range each.
 */
function stagedCommands(
  plan: Plan,
  partitions: readonly string[],
  config: string | undefined,
  words: (assets: readonly string[]) => string[] = (assets) => [...assets],
): string[] {
  const incomplete = new Set(partitions);
  const groups = new Map<string, { assets: readonly string[]; keys: string[] }>();
  // Groups in stage order (days before their month), so that the commands run in the order
  // printed; within a group, oldest (or first declared) first, as windows are written.
  for (const run of plan.runs) {
    if (run.partition === null) continue;
    const id = run.assets.join("\u0000");
    if (!groups.has(id)) groups.set(id, { assets: run.assets, keys: [] });
    groups.get(id)!.keys.push(run.partition);
  }
  if (plan.order === "newest") for (const group of groups.values()) group.keys.reverse();
  return [...groups.values()].flatMap(({ assets, keys }) => {
    const selection = words(assets);
    if (selection.length === 0 || !keys.some((key) => incomplete.has(key))) return [];
    const base = ["interloper", "materialize", ...selection, ...(config ? ["-c", config] : [])].map(quote).join(" ");
    return rangeCommands(base, keys, incomplete);
  });
}

/** `base --window a..b` (or `--partition a`) per run of consecutive incomplete keys, at most five. */
function rangeCommands(base: string, keys: readonly string[], incomplete: ReadonlySet<string>): string[] {
  const ranges: string[] = [];
  let start: string | null = null;
  let previous: string | null = null;
  for (const key of keys) {
    if (incomplete.has(key)) {
      start ??= key;
      previous = key;
    } else if (start) {
      ranges.push(start === previous ? start : `${start}..${previous}`);
      start = null;
    }
  }
  if (start) ranges.push(start === previous ? start : `${start}..${previous}`);
  const shown = ranges.slice(0, 5).map((r) => `${base} ${r.includes("..") ? "--window" : "--partition"} ${quote(r)}`);
  if (ranges.length > 5) shown.push(`(and ${ranges.length - 5} more ranges)`);
  return shown;
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
function quote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  const escaped = word.replace(/[\\']/g, (char) => `\\${char}`);
  const shown = printable(escaped);
  return shown === escaped ? `'${word.replace(/'/g, `'\\''`)}'` : `$'${shown}'`;
}
