import { stat } from "node:fs/promises";
import { destinationCounts } from "./destinations.js";
import { assetWindow } from "../scope.js";
import type { Asset } from "../../asset/asset.js";
import { FileTableDestination } from "../../destination/file/file-table-destination.js";
import { LocalObjectStoreDestination, ObjectStoreDestination } from "../../destination/store/index.js";
import type { Partition } from "../../partitioning/index.js";
import type { Materialization } from "../../destination/provenance/materialization.js";
import { recordsIn } from "../../asset/staleness.js";
import { ownEntry } from "../../keyed.js";

/** What one destination holds of one partition. */
export interface PartitionInDestination {
  /** The destination's name on the asset. */
  readonly destination: string;
  /** Stored rows; null when this destination lacks the partition. */
  readonly rows: number | null;
  /** When its data was last written: its record's end, else its file's time; null when neither is known. */
  readonly writtenAt: Date | null;
  /** The record of the write it holds (see `Asset.history`); null when the destination keeps none. */
  readonly record: Materialization | null;
  /** Its file or its object's URI, or else the destination's location (a table's database); null when unsaid. */
  readonly location: string | null;
}

/**
 * Where a partition lives in one of the asset's destinations: its file, or its object's URI
 * (`local` when that is a file of this machine, whose time can be read); null when the
 * destination does not say (a table's rows). Asked of the classes that keep one file or object
 * per partition, each by its own method: an object store's `pathOf` takes an object's name.
 */
function placeOf(asset: Asset, index: number, partition: Partition): { readonly location: string; readonly local: boolean } | null {
  const destination = asset.destinations[index]!;
  const context = asset.ioContext(null);
  if (destination instanceof FileTableDestination) return { location: destination.pathOf(context, partition), local: true };
  if (destination instanceof ObjectStoreDestination) {
    const location = destination.objectUri(destination.objectName(context, partition));
    return { location, local: destination instanceof LocalObjectStoreDestination };
  }
  return null;
}

/** When a file was last modified; null when there is none. */
async function modified(path: string | null): Promise<Date | null> {
  if (path === null) return null;
  try {
    return (await stat(path)).mtime;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

const partitionOf = (asset: Asset, key: string): Partition => assetWindow(asset, key)!.partitions[0]!;

/** Row count, time written and location of one partition in every destination of an asset. */
export async function partitionDetails(asset: Asset, key: string): Promise<PartitionInDestination[]> {
  const partition = partitionOf(asset, key);
  const counts = await destinationCounts(asset);
  return Promise.all(
    counts.map(async (store, i) => {
      const rows = Object.hasOwn(store.counts, key) ? store.counts[key]! : null;
      const place = placeOf(asset, i, partition);
      const record = rows === null ? null : (ownEntry(await recordsIn(asset.destinations[i]!, asset, partition.window), key) ?? null);
      const file = place?.local ? place.location : null;
      return {
        destination: store.key,
        rows,
        writtenAt: rows === null ? null : record ? new Date(record.endedAt) : await modified(file),
        record,
        location: place?.location ?? asset.destinations[i]!.location,
      };
    }),
  );
}

// Files looked at together when an asset's last write is sought: enough to keep a disk busy,
// few enough to stay under the open-file limit.
const STAT_BATCH = 64;

/**
 * When any stored partition of an asset was last written, across its destinations that keep
 * files; null when none does (a database does not record it) or nothing is stored.
 */
export async function lastWritten(asset: Asset, storedKeys: readonly string[]): Promise<Date | null> {
  const files: string[] = [];
  for (let i = 0; i < asset.destinations.length; i++) {
    for (const key of storedKeys) {
      const place = placeOf(asset, i, partitionOf(asset, key));
      if (!place?.local) break;
      files.push(place.location);
    }
  }
  let latest: Date | null = null;
  for (let from = 0; from < files.length; from += STAT_BATCH) {
    for (const time of await Promise.all(files.slice(from, from + STAT_BATCH).map(modified))) {
      if (time !== null && (latest === null || time > latest)) latest = time;
    }
  }
  return latest;
}
