import type { Asset } from "../asset/asset.js";
import type { PartitionWindow } from "../partitioning/index.js";
import { destinationCounts } from "./coverage/destinations.js";
import { spanOf } from "./missing.js";
import type { Plan, PlanOptions } from "./plan.js";
import { assetWindow } from "./scope.js";

/** What a full refresh rebuilds after its drop. */
export interface RefreshScope {
  /** The plan options of the rebuild: those given, or widened to every stored partition. */
  readonly options: PlanOptions;
  /** The window given, when the rebuild was widened past it; else null. */
  readonly widenedFrom: PartitionWindow | null;
  /** Stored partitions outside the window given (dropped, so rebuilt too). */
  readonly outside: number;
}

/**
 * A full refresh drops every partition of its assets. With a window that leaves some stored
 * partitions out, rebuilding only the window would lose them: the rebuild then runs the window
 * and every stored partition outside it (each asset its own keys, within the span of both), so
 * that every partition dropped is rebuilt, and nothing else outside the window.
 */
export async function refreshScope(plan: Plan, options: PlanOptions): Promise<RefreshScope> {
  const unchanged = { options, widenedFrom: null, outside: 0 };
  if (!plan.window) return unchanged;
  const text = String(plan.window);
  const partitioned = plan.assets.filter((asset) => asset.partitioning);
  const byAsset = new Map<string, Set<string>>();
  let outside = 0;
  for (const asset of partitioned) {
    const keys = new Set(assetWindow(asset, text)?.keys ?? []);
    for (const key of await storedKeys(asset)) {
      if (keys.has(key)) continue;
      keys.add(key);
      outside++;
    }
    byAsset.set(asset.qualifiedKey, keys);
  }
  if (outside === 0) return unchanged;
  const ranges = partitioned.map((asset) => {
    const keys = [...byAsset.get(asset.qualifiedKey)!].sort();
    return { first: keys[0] ?? null, last: keys[keys.length - 1] ?? null };
  });
  const span = spanOf(partitioned, ranges);
  const { partition: _p, lookback: _l, offset: _o, tz: _t, exclude: _e, ...rest } = options;
  return {
    options: {
      ...rest,
      assets: plan.assets.map((asset) => asset.qualifiedKey),
      ...(span ? { window: String(span) } : {}),
      only: new Set([...byAsset.values()].flatMap((keys) => [...keys])),
      onlyByAsset: byAsset,
    },
    widenedFrom: plan.window,
    outside,
  };
}

/** Every partition key any destination of the asset holds, readable or not. */
async function storedKeys(asset: Asset): Promise<string[]> {
  const keys = new Set<string>();
  for (const store of await destinationCounts(asset)) {
    for (const key of Object.keys(store.counts)) keys.add(key);
    for (const key of Object.keys(store.unreadable ?? {})) keys.add(key);
  }
  return [...keys];
}
