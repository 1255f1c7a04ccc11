// The commands a failed materialize prints to finish its work: "Re-run what did not complete"
// names only the assets' partitions that failed or were skipped (never one that completed), and
// "Upstream data is missing" those that lacked upstream data, with everything upstream (`+`).
// Each command is one the command line accepts as printed, run in the order printed (upstream
// first): `--partition KEY`, or `--window` over a contiguous range in the asset's own order (a
// multi asset's by a range of time and its values, `2026-11-01..2026-11-05|eu,us`).
import type { MaterializeOutcome } from "../../api/session/index.js";
import type { Asset } from "../../asset/asset.js";
import {
  ListPartitionConfig,
  type MultiPartition,
  MultiPartitionConfig,
  TimePartitionConfig,
  type PartitionConfig,
} from "../../partitioning/index.js";
import type { RunResult } from "../../runner/run-result.js";
import { laneOf } from "../../runner/stages.js";
import { printable } from "../printable.js";

/** How the command was invoked, to print the command that re-runs what failed. */
export interface Invocation {
  /** The selectors given, and those of `--exclude`. */
  readonly assets: readonly string[];
  readonly exclude?: readonly string[] | undefined;
  readonly config?: string | undefined;
}

/** By asset's qualified key, its partitions to name (null: the asset's one unpartitioned run). */
type Keys = Map<string, Set<string | null>>;

/** How one key is named: `--partition`, or a window of one where a partition would leave out assets of other granularities. */
type OneKey = "--partition" | "--window";

/** How the commands are written: the config to pass, each asset's word, and how one key is named. */
interface CommandForm {
  readonly config: string | undefined;
  readonly word: (asset: string) => string;
  readonly one: OneKey;
}

/** Commands of one group of assets past which the rest are counted, not printed. */
const MAX_COMMANDS = 5;

/** The commands that re-run exactly what failed or was skipped (not what waits for upstream data: see upstreamCommands). */
export function rerunCommands(outcome: MaterializeOutcome, invocation: Invocation): string[] {
  const waiting = new Set("waiting" in outcome.result ? outcome.result.waiting.map((w) => pairKey(w.asset, w.partition)) : []);
  const keys: Keys = new Map();
  for (const [asset, partition] of incompletePairs(outcome)) if (!waiting.has(pairKey(asset, partition))) add(keys, asset, partition);
  // Every asset of the run over the same partitions: the selection as the user wrote it.
  const exclude = (invocation.exclude ?? []).flatMap((selector) => ["--exclude", selector]);
  return commandLines(outcome, keys, { config: invocation.config, word: (asset) => asset, one: "--partition" }, [
    ...invocation.assets,
    ...exclude,
  ]);
}

/**
 * For assets that failed because an upstream holds no data (DataNotFoundError, by name so that
 * failures reported by child processes count too), and those left waiting for upstream data:
 * the commands that materialize them with everything upstream, over those partitions.
 */
export function upstreamCommands(outcome: MaterializeOutcome, invocation: Invocation): string[] {
  const keys: Keys = new Map();
  const result = outcome.result;
  const starved = (run: RunResult) =>
    Object.values(run.assetExecutions).filter((e) => e.status === "failed" && e.error?.name === "DataNotFoundError");
  if ("partitions" in result) {
    for (const e of result.unpartitioned ? starved(result.unpartitioned) : []) add(keys, e.asset, null);
    for (const p of result.partitions) for (const e of p.result ? starved(p.result) : []) add(keys, e.asset, p.key);
    for (const w of result.waiting) add(keys, w.asset, w.partition);
  } else {
    for (const e of starved(result)) for (const key of runKeys(outcome)) add(keys, e.asset, key);
  }
  // A window, even of one key: a partition runs only the assets of its own granularity, where
  // `+` takes in upstream assets of others (the days of a month).
  return commandLines(outcome, keys, { config: invocation.config, word: (asset) => `+${asset}`, one: "--window" });
}

/** Every (asset, partition) of the outcome that did not complete. */
function incompletePairs(outcome: MaterializeOutcome): Array<[string, string | null]> {
  const result = outcome.result;
  if (!("partitions" in result)) {
    const assets = Object.values(result.assetExecutions).filter((e) => e.status !== "completed");
    return assets.flatMap((e) => runKeys(outcome).map((key): [string, string | null] => [e.asset, key]));
  }
  const unpartitioned = Object.values(result.unpartitioned?.assetExecutions ?? {})
    .filter((e) => e.status !== "completed")
    .map((e): [string, string | null] => [e.asset, null]);
  return unpartitioned.concat(
    result.partitions.flatMap((p) =>
      p.status === "completed"
        ? []
        : p.assets
            .filter((asset) => p.result?.assetExecutions[asset]?.status !== "completed")
            .map((asset): [string, string | null] => [asset, p.key]),
    ),
  );
}

/** The partitions a single run covered: each of its window's, or the unpartitioned run. */
function runKeys(outcome: MaterializeOutcome): Array<string | null> {
  return outcome.plan.window ? outcome.plan.window.partitions.map((p) => p.key) : [null];
}

/**
 * One command per group of assets that follow one another in dependency order with the same
 * partitions to name, and per range of those partitions: printed upstream first, so that
 * running them in order runs each asset after what it reads.
 */
function commandLines(outcome: MaterializeOutcome, keys: Keys, form: CommandForm, selection?: readonly string[]): string[] {
  const { config, word, one } = form;
  const groups: Array<{ assets: Asset[]; keys: Set<string | null> }> = [];
  for (const asset of outcome.plan.assets) {
    const own = keys.get(asset.qualifiedKey);
    if (!own) continue;
    const last = groups[groups.length - 1];
    if (last && laneOf(last.assets[0]!.partitioning) === laneOf(asset.partitioning) && sameKeys(last.keys, own)) last.assets.push(asset);
    else groups.push({ assets: [asset], keys: own });
  }
  return groups.flatMap((group) => {
    const all = selection && group.assets.length === outcome.plan.assets.length;
    const words = all ? selection : group.assets.map((a) => word(a.qualifiedKey));
    const base = ["interloper", "materialize", ...words, ...(config ? ["-c", config] : [])];
    // A single run re-runs its window as it ran (whole, when its assets take windows whole).
    const window = outcome.plan.mode === "run" ? outcome.plan.window : null;
    const scopes = window ? [["--window", String(window)]] : scopeArgs(group.assets[0]!.partitioning, [...group.keys], one);
    const shown = scopes.slice(0, MAX_COMMANDS).map((scope) => [...base, ...scope].map(quote).join(" "));
    if (scopes.length > MAX_COMMANDS) shown.push(`(and ${scopes.length - MAX_COMMANDS} more ranges)`);
    return shown;
  });
}

/** The `--partition`/`--window` arguments naming these partitions of a partitioning, oldest (or first declared) first. */
export function scopeArgs(config: PartitionConfig | null, keys: ReadonlyArray<string | null>, one: OneKey = "--partition"): string[][] {
  const asArgs = (range: string) => [range.includes("..") ? "--window" : one, range];
  const named = keys.filter((k): k is string => k !== null);
  if (!config || named.length === 0) return [[]];
  if (config instanceof TimePartitionConfig) return ranges(named, timePosition(config)).map(asArgs);
  if (config instanceof ListPartitionConfig) return ranges(named, (key) => config.values.indexOf(key)).map(asArgs);
  if (config instanceof MultiPartitionConfig && config.timeDimension) return multiArgs(config, named, one);
  return [...named].sort().map((key) => [one, key]);
}

/** A time key's position: its period's index counted from the epoch, so neighbours differ by one. */
function timePosition(config: TimePartitionConfig): (key: string) => number {
  const origin = new Date(0);
  return (key) => config.granularity.periodsBetween(origin, config.partition(key).value);
}

/**
 * A multi asset's partitions: per combination of its list values, each range of periods; the
 * combinations sharing a range, when they differ in one list dimension only, in one window
 * (`2026-11-01..2026-11-05|eu,us`); a single partition by its key.
 */
function multiArgs(config: MultiPartitionConfig, keys: readonly string[], one: OneKey): string[][] {
  const time = config.timeDimension!;
  const byCombination = new Map<string, { partition: MultiPartition; periods: string[] }>();
  for (const key of keys) {
    const partition = config.partition(key);
    const combination = partition.dimensions.map((p) => (p.kind === "time" ? "" : p.key)).join("|");
    if (!byCombination.has(combination)) byCombination.set(combination, { partition, periods: [] });
    byCombination.get(combination)!.periods.push(partition.time!.key);
  }
  const windows = new Map<string, { parts: string[][]; range: string; at: number }>();
  const oneList = config.listDimensions.length === 1;
  const position = timePosition(time.config);
  for (const { partition, periods } of [...byCombination.values()].sort((a, b) => compareValues(config, a.partition, b.partition))) {
    for (const range of ranges(periods, position)) {
      const id = oneList ? range : `${range}\u0000${partition.key}`;
      const parts = partition.dimensions.map((p) => (p.kind === "time" ? [] : [p.key]));
      const found = windows.get(id);
      if (found) found.parts.forEach((values, i) => values.push(...parts[i]!));
      else windows.set(id, { parts, range, at: position(range.split("..")[0]!) });
    }
  }
  // Oldest first, as the other kinds' ranges; a period's combinations in declared order.
  const ordered = [...windows.values()].sort((a, b) => a.at - b.at);
  return ordered.map(({ parts, range }) => {
    const text = config.dimensions
      .map((d, i) => (d.kind === "time" ? range : orderedValues(config, d.name, parts[i]!).join(",")))
      .join("|");
    const single = !range.includes("..") && parts.every((values) => values.length <= 1);
    return [single ? one : "--window", text];
  });
}

/** Two combinations in declared order: by the first list dimension's values, then the next. */
function compareValues(config: MultiPartitionConfig, a: MultiPartition, b: MultiPartition): number {
  for (const d of config.listDimensions) {
    const diff = d.config.values.indexOf(a.keys[d.name]!) - d.config.values.indexOf(b.keys[d.name]!);
    if (diff !== 0) return diff;
  }
  return 0;
}

function orderedValues(config: MultiPartitionConfig, dimension: string, values: readonly string[]): string[] {
  const declared = config.listDimensions.find((d) => d.name === dimension)!.config.values;
  return declared.filter((value) => values.includes(value));
}

/** Runs of neighbouring keys by position, oldest first: "a..b", or "a" alone. */
function ranges(keys: readonly string[], position: (key: string) => number): string[] {
  const sorted = [...new Set(keys)].map((key) => ({ key, at: position(key) })).sort((a, b) => a.at - b.at);
  const out: string[] = [];
  let first = sorted[0];
  for (let i = 1; i <= sorted.length; i++) {
    const current = sorted[i];
    if (current && current.at === sorted[i - 1]!.at + 1) continue;
    const last = sorted[i - 1]!;
    out.push(first!.key === last.key ? first!.key : `${first!.key}..${last.key}`);
    first = current;
  }
  return out;
}

function sameKeys(a: ReadonlySet<string | null>, b: ReadonlySet<string | null>): boolean {
  return a.size === b.size && [...a].every((key) => b.has(key));
}

function add(keys: Keys, asset: string, partition: string | null): void {
  if (!keys.has(asset)) keys.set(asset, new Set());
  keys.get(asset)!.add(partition);
}

const pairKey = (asset: string, partition: string | null) => `${asset}\u0000${partition ?? ""}`;

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted (control characters as $'...'). */
export function quote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  const escaped = word.replace(/[\\']/g, (char) => `\\${char}`);
  const shown = printable(escaped);
  return shown === escaped ? `'${word.replace(/'/g, `'\\''`)}'` : `$'${shown}'`;
}
