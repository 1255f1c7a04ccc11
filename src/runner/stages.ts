import type { Asset } from "../asset/asset.js";
import type { AssetGraph, Dependency } from "../asset/dependencies.js";
import { MultiPartitionConfig, TimePartitionConfig, upstreamWindow, type Partition, type PartitionConfig } from "../partitioning/index.js";

// A backfill runs in stages: each stage's slots (assets of one partitioning over one of its
// partitions) run in any order, all after the stage before. Assets that read their upstream
// partition by partition (same partitioning, no mapping) share a slot, where the run orders
// them; any other edge (a month reading its days, a trailing window) starts a later stage, so
// that every partition it reads is settled before it runs.

/** Assets of one partitioning over one of its partitions; null for unpartitioned assets. */
export interface Slot {
  readonly partition: Partition | null;
  /** In dependency order. */
  readonly assets: readonly Asset[];
}

/** Slots that run in any order, all after the stage before. */
export type Stage = readonly Slot[];

/** An asset's partition left unrun because the partitions it reads are not stored. */
export interface WaitingPartition {
  readonly asset: string;
  readonly partition: string | null;
  readonly upstream: string;
  /** The upstream partitions that are missing, as ranges: "2026-01-05..2026-01-07, 2026-01-20". */
  readonly missing: string;
}

/** Which partitions share keys: the same granularity, or the same declared values. */
export function laneOf(config: PartitionConfig | null): string {
  if (!config) return "unpartitioned";
  if (config instanceof TimePartitionConfig) return `time:${config.granularity.name}`;
  // Multi keys are the same when the dimensions' names, granularity and values are (columns and starts aside).
  if (config instanceof MultiPartitionConfig) return `multi:${config.dimensions.map((d) => `${d.name}=${laneOf(d.config)}`).join("|")}`;
  const { column: _column, ...rest } = config.toDefinition();
  return `${config.kind}:${JSON.stringify(rest)}`;
}

/** Whether a downstream partition reads exactly the upstream partition of its own key. */
export function aligned(asset: Asset, dependency: Dependency): boolean {
  return (
    dependency.asset !== undefined && dependency.mapping === null && laneOf(asset.partitioning) === laneOf(dependency.asset.partitioning)
  );
}

/**
 * Each asset's stage among `assets` (in dependency order): after every upstream of the run,
 * in the same stage as those it reads partition by partition.
 */
export function stageNumbers(dag: AssetGraph, assets: readonly Asset[]): Map<string, number> {
  const stages = new Map<string, number>();
  for (const asset of assets) {
    let stage = 0;
    for (const d of dag.dependencies(asset)) {
      const upstream = d.asset && stages.get(d.asset.qualifiedKey);
      if (upstream !== undefined && upstream !== null) stage = Math.max(stage, upstream + (aligned(asset, d) ? 0 : 1));
    }
    stages.set(asset.qualifiedKey, stage);
  }
  return stages;
}

/** Whether any asset reads a partitioned upstream other than partition by partition. */
export function readsAcrossPartitions(dag: AssetGraph, assets: readonly Asset[]): boolean {
  return assets.some((asset) => dag.dependencies(asset).some((d) => d.asset?.partitioning && !aligned(asset, d)));
}

/** Why an asset of a slot cannot run: an upstream partition did not complete, or is not stored. */
export type Blocked =
  { readonly kind: "canceled"; readonly reason: string } | { readonly kind: "waiting"; readonly waiting: WaitingPartition };

/** How an asset's partition ended in a backfill: completed, failed, or skipped (never run, or canceled). */
export type SlotOutcome = "completed" | "failed" | "skipped";

/**
 * What a stage needs of the stages before it: the outcome of each (asset, partition) the
 * backfill ran, and for the rest, what storage holds (counted once per upstream asset).
 */
export class Requirements {
  private readonly outcomes = new Map<string, SlotOutcome>();
  private readonly stored = new Map<string, Promise<ReadonlySet<string>>>();

  constructor(private readonly dag: AssetGraph) {}

  /** Records how an asset's partition ended in this backfill. */
  record(asset: string, partition: string | null, outcome: SlotOutcome): void {
    this.outcomes.set(slotKey(asset, partition), outcome);
  }

  /**
   * The assets of a slot that cannot run, each with why: an upstream partition this backfill
   * ran failed or was skipped (canceled), in this slot or in an earlier stage, or one it did
   * not run is not stored (waiting). A blocked asset blocks those of the slot that read it.
   */
  async blocked(slot: Slot): Promise<Map<string, Blocked>> {
    const blocked = new Map<string, Blocked>();
    for (const asset of slot.assets) {
      for (const d of this.dag.dependencies(asset)) {
        if (blocked.has(asset.qualifiedKey)) break;
        const why = d.asset ? await this.blockedBy(asset, d, d.asset, slot, blocked) : null;
        if (why) blocked.set(asset.qualifiedKey, why);
      }
    }
    return blocked;
  }

  /** Why `asset`'s partition of `slot` cannot run for what it reads of `upstream` (null: it can). */
  private async blockedBy(
    asset: Asset,
    d: Dependency,
    upstream: Asset,
    slot: Slot,
    blocked: ReadonlyMap<string, Blocked>,
  ): Promise<Blocked | null> {
    const key = slot.partition?.key ?? null;
    if (aligned(asset, d)) {
      const before = blocked.get(upstream.qualifiedKey);
      if (before) return canceled(upstream, key, before.kind === "waiting" ? "is waiting for upstream data" : "was skipped");
      // The same partition of an upstream run in an earlier stage (it reads something else across partitions).
      const outcome = this.outcomes.get(slotKey(upstream.qualifiedKey, key));
      return outcome && outcome !== "completed" ? canceled(upstream, key, ended(outcome)) : null;
    }
    if (!upstream.partitioning) {
      const outcome = this.outcomes.get(slotKey(upstream.qualifiedKey, null));
      return outcome && outcome !== "completed" ? canceled(upstream, null, ended(outcome)) : null;
    }
    const need = upstreamWindow(upstream.partitioning, slot.partition?.window ?? null, d.mapping);
    if (!need) return null;
    const missing: string[] = [];
    let stored: ReadonlySet<string> | null = null;
    for (const p of need.partitions) {
      const outcome = this.outcomes.get(slotKey(upstream.qualifiedKey, p.key));
      if (outcome === "completed") continue;
      if (outcome) return canceled(upstream, p.key, ended(outcome));
      stored ??= await this.storedKeys(upstream);
      missing.push(stored.has(p.key) ? "" : p.key);
    }
    if (!missing.some(Boolean)) return null;
    return {
      kind: "waiting",
      waiting: { asset: asset.qualifiedKey, partition: key, upstream: upstream.qualifiedKey, missing: ranges(missing) },
    };
  }

  private storedKeys(asset: Asset): Promise<ReadonlySet<string>> {
    let keys = this.stored.get(asset.qualifiedKey);
    if (!keys) this.stored.set(asset.qualifiedKey, (keys = asset.partitionRowCounts().then((counts) => new Set(Object.keys(counts)))));
    return keys;
  }
}

/** `its dependency "ads.s" 2026-11-05|us failed`: names the upstream partition and how it ended. */
function canceled(upstream: Asset, partition: string | null, how: string): Blocked {
  return { kind: "canceled", reason: `its dependency "${upstream.qualifiedKey}"${partition === null ? "" : ` ${partition}`} ${how}` };
}

function ended(outcome: Exclude<SlotOutcome, "completed">): string {
  return outcome === "failed" ? "failed" : "was skipped";
}

function slotKey(asset: string, partition: string | null): string {
  return `${asset}\u0000${partition ?? ""}`;
}

/** Runs of consecutive keys ("" marks a key that is present), as "a..b, c". */
function ranges(keys: readonly string[]): string {
  const out: string[] = [];
  let first: string | null = null;
  let last: string | null = null;
  for (const key of [...keys, ""]) {
    if (key && first === null) first = key;
    if (key) last = key;
    if (!key && first !== null) {
      out.push(first === last ? first : `${first}..${last}`);
      first = last = null;
    }
  }
  return out.join(", ");
}
