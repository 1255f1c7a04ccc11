import type { Asset } from "../asset/asset.js";
import { effectiveStart, type EffectiveStart } from "../asset/effective-start.js";
import type { AssetGraph } from "../asset/dependencies.js";
import { PartitionError } from "../errors.js";
import {
  ListPartitionConfig,
  MultiPartitionConfig,
  MultiPartitionWindow,
  PartitionWindow,
  type MultiValues,
  periodsWithin,
  TimePartitionConfig,
  TimePartitionWindow,
  type Partition,
  type TimeGranularity,
  type PartitionConfig,
} from "../partitioning/index.js";
import type { Plan, PlanningOptions, SkippedAsset } from "./plan.js";
import { runsUnpartitioned, shardOf } from "./shard.js";
import { laneOf, readsAcrossPartitions, stageNumbers, type Slot, type Stage } from "./stages.js";

// A window over a whole project: each asset runs the partitions of its own partitioning that
// lie wholly inside the window's range of time, in stages (stages.ts) so that a month runs
// after its days.

/**
 * Whether a selection over a window needs stages: assets of several partitionings, a window
 * of another granularity than the assets', assets reading other partitions than their own (an
 * unpartitioned asset reading a partitioned one included),
 * or, with no window, assets partitioned by a list only (each runs all its values).
 */
export function needsStages(dag: AssetGraph, assets: readonly Asset[], window: PartitionWindow | null): boolean {
  const partitioned = assets.filter((a) => a.partitioning);
  if (!window) return partitioned.length > 0 && partitioned.every((a) => listsOnly(a.partitioning));
  const lanes = new Set(partitioned.map((a) => laneOf(a.partitioning)));
  if (lanes.size > 1) return true;
  const windowLane = window instanceof TimePartitionWindow ? `time:${window.granularity.name}` : null;
  if (
    partitioned.some((a) => (a.partitioning instanceof TimePartitionConfig ? laneOf(a.partitioning) !== windowLane : windowLane !== null))
  )
    return true;
  // An unpartitioned asset reading a partitioned one runs after it, as a month after its days.
  return readsAcrossPartitions(dag, assets);
}

/** Whether a partitioning runs all its values without a window: a list, or a multi partitioning of lists only. */
function listsOnly(config: PartitionConfig | null): boolean {
  return config instanceof ListPartitionConfig || (config instanceof MultiPartitionConfig && !config.timeDimension);
}

/** An asset's partitions in a window: a window (its `ordered` says how a run takes them) or a list. */
type Partitions = PartitionWindow | readonly Partition[];

/** The partitions in run order: a multi window takes the newest period first, each period's values in declared order. */
function inOrder(partitions: Partitions, order: "newest" | "oldest"): readonly Partition[] {
  if (partitions instanceof PartitionWindow) return partitions.ordered(order);
  return order === "newest" ? [...partitions].reverse() : partitions;
}

const keysOf = (partitions: Partitions) => (partitions instanceof PartitionWindow ? partitions.keys : partitions.map((p) => p.key));

/**
 * The window gives no selected asset anything to run. The message says why for each asset;
 * `skipped` holds the reasons apart, for a front end to add its own advice to.
 */
export class NothingToRunError extends PartitionError {
  constructor(
    readonly window: PartitionWindow | null,
    readonly skipped: readonly SkippedAsset[],
  ) {
    super(
      nothingToRun(
        window,
        skipped.map((s) => `${s.asset}: ${s.reason}`),
      ),
    );
  }
}

/** The message of a NothingToRunError, with each asset's reason as `reasons` say it. */
export function nothingToRun(window: PartitionWindow | null, reasons: readonly string[]): string {
  return `nothing to run${window ? ` in ${String(window)}` : ""}: ${reasons.join("; ")}`;
}

/** The staged plan of a selection over a window (null: each list asset over all its values). */
export function stagedPlan(
  dag: AssetGraph,
  assets: readonly Asset[],
  window: PartitionWindow | null,
  options: PlanningOptions & { readonly order: "newest" | "oldest" },
): Plan {
  const numbers = stageNumbers(dag, assets);
  const skipped: SkippedAsset[] = [];
  // Per stage and partitioning, the assets and each one's partitions (their starts may differ).
  const groups = new Map<string, { stage: number; members: Array<{ asset: Asset; partitions: Partitions | null }> }>();
  for (const asset of assets) {
    const partitions = partitionsOf(dag, asset, window, options.values);
    if (partitions !== null && "reason" in partitions) {
      skipped.push({ asset: asset.qualifiedKey, ...partitions });
      continue;
    }
    const stage = numbers.get(asset.qualifiedKey)!;
    const id = `${stage}\u0000${laneOf(asset.partitioning)}`;
    if (!groups.has(id)) groups.set(id, { stage, members: [] });
    groups.get(id)!.members.push({ asset, partitions });
  }
  const stages: Slot[][] = [];
  for (const { stage, members } of [...groups.values()].sort((a, b) => a.stage - b.stage)) {
    // A loop, not push(...): a window of a few hundred thousand partitions would overflow the stack.
    const slots = (stages[stage] ??= []);
    for (const slot of slotsOf(members, options)) slots.push(slot);
  }
  const planned: Stage[] = stages.filter((stage) => stage && stage.length > 0);
  const runs = planned.flat().map((slot) => ({ partition: slot.partition?.key ?? null, assets: slot.assets.map((a) => a.qualifiedKey) }));
  // Unpartitioned assets alone are not what a window asks for: nothing runs, nothing is written.
  const partitionedRuns = runs.some((run) => run.partition !== null);
  if ((runs.length === 0 || (!partitionedRuns && skipped.length > 0 && !options.shard)) && !options.only)
    throw new NothingToRunError(window, skipped);
  const ran = new Set(runs.flatMap((run) => run.assets));
  return {
    mode: "backfill",
    window,
    assets: assets.filter((a) => ran.has(a.qualifiedKey)),
    order: options.order,
    runs,
    partitions: runs.flatMap((run) => (run.partition === null ? [] : [run.partition])),
    stages: planned,
    schedule: planned,
    skipped,
  };
}

/** The slots of one stage and partitioning: each partition, with the members that have it. */
function slotsOf(
  members: ReadonlyArray<{ asset: Asset; partitions: Partitions | null }>,
  options: PlanningOptions & { readonly order: "newest" | "oldest" },
): Slot[] {
  if (members[0]!.partitions === null) {
    return runsUnpartitioned(options.shard) ? [{ partition: null, assets: members.map((m) => m.asset) }] : [];
  }
  // The members share a partitioning; the one starting first has every partition of the others.
  const widest = members.reduce((a, b) => (b.partitions!.length > a.partitions!.length ? b : a)).partitions!;
  const ordered = inOrder(widest, options.order);
  const keys = members.map((m) => new Set(keysOf(m.partitions!)));
  const wanted = (asset: Asset, key: string) => !options.onlyByAsset || (options.onlyByAsset.get(asset.qualifiedKey)?.has(key) ?? false);
  return shardOf(ordered, options.shard)
    .filter((p) => !options.only || options.only.has(p.key))
    .map((partition) => ({
      partition,
      assets: members.filter((m, i) => keys[i]!.has(partition.key) && wanted(m.asset, partition.key)).map((m) => m.asset),
    }))
    .filter((slot) => slot.assets.length > 0);
}

/** Why an asset has no partitions in a window. */
type Skip = Omit<SkippedAsset, "asset">;

/**
 * A time-partitioned asset's periods lying wholly inside a window of time, from its first one
 * on (declared, or given by its upstreams); else why none: the window ends before that first
 * one, or is shorter than one period (then `holding` names the periods that hold it).
 */
function timePartitionsOf(
  dag: AssetGraph,
  asset: Asset,
  config: TimePartitionConfig,
  window: TimePartitionWindow,
): TimePartitionWindow | Skip {
  const g = config.granularity;
  const bound = effectiveStart(dag, asset);
  const windowEnd = window.granularity.advance(window.end, 1);
  if (bound && windowEnd <= bound.start) return { reason: `the window ${String(window)} ends before ${startPhrase(g, bound)}` };
  const within = periodsWithin(window, config);
  const from = within && bound && within.start < bound.start ? bound.start : within?.start;
  if (within && from! <= within.end) return from === within.start ? within : new TimePartitionWindow(from!, within.end, g);
  const first = bound && bound.start > window.start ? bound.start : g.truncate(window.start);
  const holding = new TimePartitionWindow(first, g.truncate(new Date(windowEnd.getTime() - 1)), g);
  return {
    reason: `no ${g.name} of it lies wholly inside ${String(window)}; ${holding.length === 1 ? `the ${g.name} holding it is` : `the ${g.name}s holding it are`} ${String(holding)}`,
    holding: holding.length === 1 ? holding.keys : [holding.keys[0]!, holding.keys[holding.length - 1]!],
  };
}

/** `its start 2025-W01 (the first week reading its upstream "shop.orders")`. */
export function startPhrase(g: TimeGranularity, bound: EffectiveStart): string {
  return `its start ${g.format(bound.start)}${bound.upstream ? ` (the first ${g.name} reading its upstream "${bound.upstream}")` : ""}`;
}

/** An asset's partitions in the window (null: unpartitioned), or why it has none. */
function partitionsOf(
  dag: AssetGraph,
  asset: Asset,
  window: PartitionWindow | null,
  values: MultiValues | undefined,
): Partitions | null | Skip {
  const config = asset.partitioning;
  if (!config) return null;
  if (config instanceof MultiPartitionConfig) return multiPartitionsOf(dag, asset, config, window, values);
  if (config instanceof TimePartitionConfig) {
    if (!(window instanceof TimePartitionWindow))
      return {
        reason: `partitioned by ${config.granularity.name}, and the window ${window ? `${String(window)} names list values` : "is missing"}: give a window of time`,
      };
    return timePartitionsOf(dag, asset, config, window);
  }
  if (config instanceof ListPartitionConfig) {
    if (!window) return config.all().partitions;
    // How to run it instead is the caller's to say, in its own terms (a command, a function call).
    if (window instanceof TimePartitionWindow)
      return {
        reason: `partitioned by a list (${config.values.join(", ")}), which a window of time does not name`,
        listValues: config.values,
      };
    const values = new Set(config.values);
    const inList = window.partitions.filter((p) => values.has(p.key));
    // Every value declared: the window's text must mean the same range in the asset's own order.
    if (inList.length === window.length) config.check(window, asset.qualifiedKey, true);
    return inList.length > 0 ? inList : { reason: `none of its values (${config.values.join(", ")}) is in the window ${String(window)}` };
  }
  return { reason: `partitioned by ${config.kind}, which a project-wide window does not reach: select it alone` };
}

/**
 * A multi-partitioned asset's partitions in a window: a range of time gives its periods lying
 * wholly inside it (as a time asset's) crossed with its values, narrowed by `values`; a multi
 * window of its own is taken as it is; no window gives a partitioning of lists all its values.
 */
function multiPartitionsOf(
  dag: AssetGraph,
  asset: Asset,
  config: MultiPartitionConfig,
  window: PartitionWindow | null,
  values: MultiValues | undefined,
): Partitions | Skip {
  const time = config.timeDimension;
  const share: Record<string, readonly string[]> = {};
  for (const d of config.listDimensions) if (values?.[d.name]) share[d.name] = values[d.name]!;
  if (window instanceof MultiPartitionWindow) {
    if (window.config.compatible(config)) return window;
    return {
      reason: `partitioned by ${config.describe()}, which the window ${String(window)} of ${window.config.describe()} does not name`,
    };
  }
  if (!time) {
    if (!window) return config.all(share);
    return { reason: `partitioned by lists (${config.describe()}), which the window ${String(window)} does not name` };
  }
  if (!(window instanceof TimePartitionWindow))
    return {
      reason: `partitioned by ${config.describe()}, and the window ${window ? `${String(window)} names list values` : "is missing"}: give a window of time`,
    };
  const periods = timePartitionsOf(dag, asset, time.config, window);
  return periods instanceof TimePartitionWindow ? config.over(periods, share) : periods;
}
