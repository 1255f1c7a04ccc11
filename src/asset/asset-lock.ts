import { AssetLock } from "../destination/asset-lock.js";
import { MemoryDestination } from "../destination/index.js";
import type { PartitionWindow } from "../partitioning/index.js";
import type { Asset } from "./asset.js";

const locks = new WeakMap<Asset, AssetLock>();

/**
 * The lock of an asset's storage (see AssetLock): named after its key and where each of its
 * destinations keeps data, so that the processes of one project share it. Memory, and a
 * destination that says no location, cannot be shared or told apart: the lock is then this
 * process's own.
 */
export function lockOf(asset: Asset): AssetLock {
  let lock = locks.get(asset);
  if (!lock) {
    const local = asset.destinations.some((d) => d.location === null || d instanceof MemoryDestination);
    lock = AssetLock.of(
      asset.qualifiedKey,
      asset.destinations.map((d) => `${d.displayName}@${d.location ?? ""}`),
      local,
    );
    locks.set(asset, lock);
  }
  return lock;
}

/**
 * Runs a write of the asset under its lock: shared with other writes (a full refresh waits for
 * it), and holding the window's partitions when it writes to several destinations, so that
 * writers of one partition take turns across all of them.
 */
export function underWriteLock<T>(asset: Asset, window: PartitionWindow | null, write: () => Promise<T>): Promise<T> {
  const keys = asset.destinations.length > 1 ? (window ? window.partitions.map((p) => p.key) : [""]) : [];
  return lockOf(asset).writing(keys, write);
}
