import { stat } from "node:fs/promises";
import { destinationCounts } from "./destinations.js";
import { assetWindow } from "../scope.js";
import type { Asset } from "../../asset/asset.js";
import type { Destination } from "../../destination/destination.js";
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
  /** Its file, or else the destination's location (a table's database, a bucket); null when unsaid. */
  readonly location: string | null;
}

/** A destination that keeps one file per partition (CSV, Parquet, JSON lines...). */
interface PartitionFiles {
  pathOf(context: ReturnType<Asset["ioContext"]>, partition: Partition | null): string;
}

const hasFiles = (d: Destination): d is Destination & PartitionFiles => typeof (d as Partial<PartitionFiles>).pathOf === "function";

/** The file of a partition in a destination that keeps files, else null. */
function fileOf(asset: Asset, index: number, partition: Partition): string | null {
  const destination = asset.destinations[index]!;
  return hasFiles(destination) ? destination.pathOf(asset.ioContext(null), partition) : null;
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
      const file = fileOf(asset, i, partition);
      const record = rows === null ? null : (ownEntry(await recordsIn(asset.destinations[i]!, asset, partition.window), key) ?? null);
      return {
        destination: store.key,
        rows,
        writtenAt: rows === null ? null : record ? new Date(record.endedAt) : await modified(file),
        record,
        location: file ?? asset.destinations[i]!.location,
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
    if (!hasFiles(asset.destinations[i]!)) continue;
    for (const key of storedKeys) files.push(fileOf(asset, i, partitionOf(asset, key))!);
  }
  let latest: Date | null = null;
  for (let from = 0; from < files.length; from += STAT_BATCH) {
    for (const time of await Promise.all(files.slice(from, from + STAT_BATCH).map(modified))) {
      if (time !== null && (latest === null || time > latest)) latest = time;
    }
  }
  return latest;
}
