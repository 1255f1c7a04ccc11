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

/**
 * What a stage needs of the stages before it: the outcome of each (asset, partition) the
 * backfill ran, and for the rest, what storage holds (counted once per upstream asset).
 */
export class Requirements {
  private readonly outcomes = new Map<string, boolean>();
  private readonly stored = new Map<string, Promise<ReadonlySet<string>>>();

  constructor(private readonly dag: AssetGraph) {}

  /** Records whether an asset's partition completed in this backfill. */
  record(asset: string, partition: string | null, completed: boolean): void {
    this.outcomes.set(slotKey(asset, partition), completed);
  }

  /**
   * The assets of a slot that cannot run, each with why: an upstream partition this backfill
   * ran did not complete (canceled), or one it did not run is not stored (waiting). A blocked
   * asset blocks those of the slot that read it.
   */
  async blocked(slot: Slot): Promise<Map<string, Blocked>> {
    const blocked = new Map<string, Blocked>();
    for (const asset of slot.assets) {
      for (const d of this.dag.dependencies(asset)) {
        const upstream = d.asset;
        if (!upstream || blocked.has(asset.qualifiedKey)) continue;
        if (aligned(asset, d)) {
          const before = blocked.get(upstream.qualifiedKey);
          if (before)
            blocked.set(asset.qualifiedKey, {
              kind: "canceled",
              reason: `its dependency "${upstream.qualifiedKey}" ${before.kind === "waiting" ? "is waiting for upstream data" : "did not run"}`,
            });
          continue;
        }
        if (!upstream.partitioning) continue;
        const need = upstreamWindow(upstream.partitioning, slot.partition?.window ?? null, d.mapping);
        if (!need) continue;
        const missing: string[] = [];
        let stored: ReadonlySet<string> | null = null;
        for (const p of need.partitions) {
          const outcome = this.outcomes.get(slotKey(upstream.qualifiedKey, p.key));
          if (outcome === false) {
            blocked.set(asset.qualifiedKey, {
              kind: "canceled",
              reason: `its dependency "${upstream.qualifiedKey}" ${p.key} did not complete`,
            });
            break;
          }
          if (outcome === true) continue;
          stored ??= await this.storedKeys(upstream);
          missing.push(stored.has(p.key) ? "" : p.key);
        }
        if (blocked.has(asset.qualifiedKey) || !missing.some(Boolean)) continue;
        const waiting = {
          asset: asset.qualifiedKey,
          partition: slot.partition?.key ?? null,
          upstream: upstream.qualifiedKey,
          missing: ranges(missing),
        };
        blocked.set(asset.qualifiedKey, { kind: "waiting", waiting });
      }
    }
    return blocked;
  }

  private storedKeys(asset: Asset): Promise<ReadonlySet<string>> {
    let keys = this.stored.get(asset.qualifiedKey);
    if (!keys) this.stored.set(asset.qualifiedKey, (keys = asset.partitionRowCounts().then((counts) => new Set(Object.keys(counts)))));
    return keys;
  }
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
