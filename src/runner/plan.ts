// The one plan of an execution: what runs, in which order, over which partitions, and what is
// skipped and why. `plan` and `--dry-run` show it; the runner executes it (execute-plan.ts),
// in process or in a pool of workers.
import type { Asset } from "../asset/asset.js";
import type { AssetGraph } from "../asset/dependencies.js";
import { effectiveStart } from "../asset/effective-start.js";
import { ConfigError, PartitionError } from "../errors.js";
import {
  MultiPartitionConfig,
  MultiPartitionWindow,
  TimePartitionConfig,
  TimePartitionWindow,
  type MultiValues,
  type PartitionWindow,
} from "../partitioning/index.js";
import { formatCount } from "../text/english.js";
import { checkBackfillPartitions, checkRunWindow } from "./run-scope.js";
import { runsUnpartitioned, shardOf, type Shard } from "./shard.js";
import { startPhrase, needsStages, stagedPlan } from "./staged-plan.js";
import { stageNumbers, type Stage } from "./stages.js";

/** One run a plan makes. */
export interface PlannedRun {
  /** The run's window or partition key; null for a run of unpartitioned assets. */
  readonly partition: string | null;
  readonly assets: readonly string[];
}

/** A selected asset the window gives nothing to run. */
export interface SkippedAsset {
  readonly asset: string;
  /** Why: one line, true for any caller (the API's and the command line's). */
  readonly reason: string;
  /** Set when the asset is partitioned by a list and the window is one of time: its values, which the window does not name (run it without a window, or by one of them). */
  readonly listValues?: readonly string[];
  /**
   * Set when a window of time is shorter than one of the asset's periods: the first and last
   * (or only) key of its periods that hold the window, which run it (a week holding a day).
   */
  readonly holding?: readonly string[];
}

/** The runs an execution makes, in order, before anything executes. */
export interface Plan {
  /** "run": one execution (a partition, a window every asset takes whole, or no window); "backfill": one run per partition. */
  readonly mode: "run" | "backfill";
  readonly window: PartitionWindow | null;
  readonly assets: readonly Asset[];
  readonly order: "newest" | "oldest";
  readonly runs: readonly PlannedRun[];
  /** The partition keys a backfill runs, in dispatch order. */
  readonly partitions: readonly string[];
  /**
   * Set when assets of several partitionings run over one range of time, or read other
   * partitions than their own: the stages the backfill runs, one after the other.
   */
  readonly stages?: readonly Stage[];
  /** What the runner executes in a backfill: stages of slots, each after the one before; empty for one run. */
  readonly schedule: readonly Stage[];
  /** Selected assets the window gives nothing to run, each with why and what to run instead. */
  readonly skipped: readonly SkippedAsset[];
  /** A plan of `--stale`: by asset, the partitions it rebuilds and why each is stale (or made stale by this run). */
  readonly staleReasons?: ReadonlyMap<string, Readonly<Record<string, readonly string[]>>>;
}

/** How a selection is planned over its window. */
export interface PlanningOptions {
  /** Which end of the window runs first (default "newest": recent data lands first). */
  readonly order?: "newest" | "oldest";
  /** Only these partition keys of the window; forces one run per partition. */
  readonly only?: ReadonlySet<string>;
  /**
   * With `only`, in a staged plan (several partitionings): each asset's own keys, so that a
   * missing day of one asset does not re-run the same day of every daily asset.
   */
  readonly onlyByAsset?: ReadonlyMap<string, ReadonlySet<string>>;
  /** This worker's share of a backfill split across machines; forces one run per partition. */
  readonly shard?: Shard;
  /**
   * One run per partition even when every asset could take the window whole, and never staged
   * (as `backfill` runs a window).
   */
  readonly perPartition?: boolean;
  /**
   * The values of the list dimensions multi-partitioned assets run over a window of time, by
   * dimension name (`{ region: ["eu", "us"] }`); a dimension not named runs all its values.
   */
  readonly values?: MultiValues;
}

/**
 * Partitions of one asset a plan may hold. A window past it is nearly always a slip of the
 * keyboard (`..9999-12-31`), and planning it would take minutes and gigabytes before anything
 * ran; a million is over a century of hours, or 2,700 years of days.
 */
export const MAX_PLANNED_PARTITIONS = 1_000_000;

/**
 * Refuses a window holding more than MAX_PLANNED_PARTITIONS partitions of one selected asset,
 * before any is listed: a multi-partitioned asset counts its periods times its values.
 */
function checkPlanSize(assets: readonly Asset[], window: PartitionWindow | null, values: MultiValues | undefined): void {
  if (window instanceof MultiPartitionWindow) {
    const asset =
      assets.find((a) => a.partitioning === window.config) ?? assets.find((a) => a.partitioning instanceof MultiPartitionConfig);
    return refuseOver(window.length, String(window), "multi", asset);
  }
  if (!(window instanceof TimePartitionWindow)) return;
  const [start, end] = window.bounds;
  for (const asset of assets) {
    const config = asset.partitioning;
    const time = config instanceof MultiPartitionConfig ? config.timeDimension?.config : config;
    if (!(time instanceof TimePartitionConfig)) continue;
    // Only what lies after the asset's own start is planned.
    const from = time.start && time.start > start ? time.start : start;
    if (from >= end) continue;
    const periods = new TimePartitionWindow(from, new Date(end.getTime() - 1), time.granularity);
    const count = config instanceof MultiPartitionConfig ? multiCount(config, periods, values) : periods.length;
    const what = config instanceof MultiPartitionConfig ? `${time.granularity.name} x value` : time.granularity.name;
    refuseOver(count, String(window), what, asset);
  }
}

/** How many combinations a multi asset runs over its periods: values narrowed by name, all the others. */
function multiCount(config: MultiPartitionConfig, periods: TimePartitionWindow, values: MultiValues | undefined): number {
  return config.listDimensions.reduce((n, d) => n * (values?.[d.name]?.length ?? d.config.values.length), periods.length);
}

function refuseOver(count: number, window: string, what: string, asset: Asset | undefined): void {
  if (count <= MAX_PLANNED_PARTITIONS) return;
  throw new PartitionError(
    `window ${window} holds ${formatCount(count)} ${what} partitions${asset ? ` of asset "${asset.qualifiedKey}"` : ""}: expected at most ${formatCount(MAX_PLANNED_PARTITIONS)} in one plan (run it in parts)`,
  );
}

/**
 * Plans assets of a graph (selected, in dependency order) over a window (null: none given):
 * throws ConfigError or PartitionError, before anything runs, when they cannot run it.
 */
export function planExecution(
  graph: AssetGraph,
  assets: readonly Asset[],
  window: PartitionWindow | null,
  options: PlanningOptions = {},
): Plan {
  const order = checkOrder(options.order);
  checkPlanSize(assets, window, options.values);
  if (!options.perPartition && needsStages(graph, assets, window)) return stagedPlan(graph, assets, window, { ...options, order });
  checkDerivedStarts(graph, assets, window);
  const partitioned = assets.filter((a) => a.partitioning);
  const unpartitioned = assets.filter((a) => !a.partitioning);
  const whole =
    !options.perPartition &&
    !options.only &&
    !options.shard &&
    (!window || window.length === 1 || partitioned.every((a) => a.partitioning!.allowWindow));
  if (whole || !window) {
    checkRunWindow(assets, window);
    const runs = [{ partition: window ? String(window) : null, assets: assets.map((a) => a.qualifiedKey) }];
    return {
      mode: "run",
      window,
      assets,
      order,
      runs,
      partitions: window ? window.partitions.map((p) => p.key) : [],
      schedule: [],
      skipped: [],
    };
  }
  const ordered = window.ordered(order);
  const partitions = shardOf(ordered, options.shard).filter((p) => !options.only || options.only.has(p.key));
  checkBackfillPartitions(partitioned, window, partitions);
  const schedule: Stage[] = [];
  const runs: PlannedRun[] = [];
  const withUnpartitioned = unpartitioned.length > 0 && runsUnpartitioned(options.shard);
  if (withUnpartitioned) {
    schedule.push([{ partition: null, assets: unpartitioned }]);
    runs.push({ partition: null, assets: unpartitioned.map((a) => a.qualifiedKey) });
  }
  // Within the window, assets reading other partitions than their own wait for those.
  const numbers = stageNumbers(graph, partitioned);
  for (const stage of [...new Set(numbers.values())].sort((a, b) => a - b)) {
    const members = partitioned.filter((a) => numbers.get(a.qualifiedKey) === stage);
    schedule.push(partitions.map((partition) => ({ partition, assets: members })));
  }
  for (const partition of partitions) runs.push({ partition: partition.key, assets: partitioned.map((a) => a.qualifiedKey) });
  const inRuns = runsUnpartitioned(options.shard) ? assets : partitioned;
  return { mode: "backfill", window, assets: inRuns, order, runs, partitions: partitions.map((p) => p.key), schedule, skipped: [] };
}

/**
 * An asset with no `start` of its own begins where its upstreams do (see effectiveStart): a
 * window reaching before that is refused here, as one reaching before a declared start is, and
 * not when the run asks the upstream for periods it never had.
 */
function checkDerivedStarts(graph: AssetGraph, assets: readonly Asset[], window: PartitionWindow | null): void {
  if (!(window instanceof TimePartitionWindow)) return;
  for (const asset of assets) {
    const config = asset.partitioning;
    if (!(config instanceof TimePartitionConfig) || config.start || config.granularity !== window.granularity) continue;
    const bound = effectiveStart(graph, asset);
    if (bound && window.start < bound.start)
      throw new PartitionError(
        `asset "${asset.qualifiedKey}": the window ${String(window)} reaches before ${startPhrase(config.granularity, bound)}`,
      );
  }
}

/** The order given, checked; "newest" when none is. */
export function checkOrder(order: PlanningOptions["order"]): "newest" | "oldest" {
  const checked = order ?? "newest";
  if (checked !== "newest" && checked !== "oldest")
    throw new ConfigError(`order must be "newest" or "oldest", got ${JSON.stringify(order)}`);
  return checked;
}
