import type { Asset } from "../asset/asset.js";
import type { AssetGraph, Dependency } from "../asset/dependencies.js";
import { upstreamWindow, type PartitionWindow } from "../partitioning/index.js";
import { aligned, type Stage } from "../runner/stages.js";

// A backfill on the queue: one job per slot of the plan's schedule (an asset group over one
// partition), and the edges between them. Where the runner waits for a whole stage, a job
// waits only for the slots holding partitions it reads: a month for its days' slots, a
// trailing window for those days; when the partition arithmetic cannot tell, for every slot
// of the earlier stages holding the upstream asset.

/** One job of a backfill. */
export interface JobSlot {
  /** Its position in the plan's schedule, stage by stage. */
  readonly id: number;
  readonly stage: number;
  /** The partition key, or null for unpartitioned assets. */
  readonly partition: string | null;
  /** Asset keys, in dependency order. */
  readonly assets: readonly string[];
}

/** A child's job becomes available when all its parents completed. */
export interface JobEdge {
  readonly parent: number;
  readonly child: number;
}

export interface JobGraph {
  readonly slots: readonly JobSlot[];
  readonly edges: readonly JobEdge[];
}

/** The jobs of a schedule and the slots each waits for. */
export function jobGraph(dag: AssetGraph, schedule: readonly Stage[]): JobGraph {
  const placed = schedule.flatMap((stage, stageNumber) => stage.map((slot) => ({ slot, stage: stageNumber })));
  const slots: JobSlot[] = placed.map(({ slot, stage }, id) => ({
    id,
    stage,
    partition: slot.partition?.key ?? null,
    assets: slot.assets.map((a) => a.qualifiedKey),
  }));
  // Which slots hold each asset, by partition key ("" for unpartitioned).
  const holders = new Map<string, Map<string, JobSlot>>();
  for (const slot of slots) {
    for (const asset of slot.assets) {
      if (!holders.has(asset)) holders.set(asset, new Map());
      holders.get(asset)!.set(slot.partition ?? "", slot);
    }
  }
  const edges: JobEdge[] = [];
  placed.forEach(({ slot }, child) => {
    const parents = new Set<number>();
    for (const asset of slot.assets) {
      for (const dependency of dag.dependencies(asset)) {
        const upstream = dependency.asset;
        const held = upstream && holders.get(upstream.qualifiedKey);
        if (!upstream || !held) continue;
        for (const parent of parentsOf(asset, upstream, dependency, slot.partition?.window ?? null, slot.partition?.key ?? null, held))
          if (parent.id !== child) parents.add(parent.id);
      }
    }
    for (const parent of [...parents].sort((a, b) => a - b)) edges.push({ parent, child });
  });
  return { slots, edges };
}

/** The slots holding the partitions of `upstream` that `asset`'s partition reads. */
function parentsOf(
  asset: Asset,
  upstream: Asset,
  dependency: Dependency,
  window: PartitionWindow | null,
  key: string | null,
  held: ReadonlyMap<string, JobSlot>,
): JobSlot[] {
  if (aligned(asset, dependency)) {
    const same = held.get(key ?? "");
    return same ? [same] : [];
  }
  if (!upstream.partitioning) return [...held.values()];
  const need = window ? upstreamWindow(upstream.partitioning, window, dependency.mapping) : null;
  if (!need) return [...held.values()];
  return need.partitions.flatMap((p) => {
    const slot = held.get(p.key);
    return slot ? [slot] : [];
  });
}
