import type { PartitionConfig } from "../../partitioning/index.js";
import type { NameRange } from "./name-range.js";
import type { HiveLayout } from "../hive.js";
import { parseCount } from "./local/ledger.js";
import { orderedCounts } from "../row-count.js";
import type { StoredObject } from "./object-store-destination.js";
import type { Materialization } from "../provenance/materialization.js";
import { reasonOf, type PartitionCounts, type UnreadablePartition } from "../unreadable.js";

// Objects without a row_count are downloaded a few at a time: enough to hide latency, few
// enough not to hold many whole files in memory at once.
const PARALLEL_DOWNLOADS = 8;

/** Where a table's partitions are: `{tablePrefix}{column}={key}/{fileName}` (nested folders for a multi partitioning). */
export interface TablePartitions {
  /** The table's prefix, `/`-terminated: `{prefix}/{dataset}/{table}/`. */
  readonly tablePrefix: string;
  /** The partitions' hive folders: `{column}={key}`, or one level per dimension of a multi partitioning. */
  readonly layout: HiveLayout;
  /** The data file of each partition, `data.{ext}`. */
  readonly fileName: string;
  /** The names of a time window's partitions, when only those are asked: a listing may keep to them. */
  readonly range?: NameRange | null;
}

/** One partition a store's listing found under a table: `{column}={key}/{fileName}`. */
export interface ListedPartition {
  readonly key: string;
  /** Its object or file, as messages name it (a URI, a path). */
  readonly uri: string;
  /** Its row count, when the store holds one it trusts; null: the partition is counted by a read. */
  readonly rows: number | null;
  /** With a listing that reads records (`PartitionListing.records`): its current record, or null for none. */
  readonly record?: Materialization | null;
}

/**
 * What a store backend answers for the partitions of one table: each one found, with its trusted
 * count or none, and how to count one that has none. A remote store answers from a listing of
 * its objects' metadata (`listedObjects`); the local folder from one folder level, a stat of each
 * file and its ledger (local/folder-partitions.ts).
 */
export interface PartitionListing {
  readonly partitions: readonly ListedPartition[];
  /** Reads at most this many partitions at once. */
  readonly parallel: number;
  /** Counts the rows of a partition the listing gave no count for; null when it is gone since. */
  recount(partition: ListedPartition): Promise<number | null>;
  /** Runs once every partition is counted (the local folder compacts its ledger). */
  settle?(): Promise<void>;
  /**
   * Whether each partition carries its current record (the local folder's ledger lines hold
   * them), every record in it read whole: the count then gives them too (`PartitionCounts.records`).
   */
  readonly records?: boolean;
}

/**
 * Rows per partition key, the one count of every file store: a listed count is trusted, the
 * rest recounted, `parallel` at a time. A partition whose read fails (a file cut short) is
 * reported in `unreadable`, by key and named by its URI, and the others counted; one gone since
 * the listing holds nothing. Keys come back in the order of `orderedCounts` (a listing already in
 * that order, as a sorted folder is, is not sorted again).
 */
export async function countPartitions(
  listing: PartitionListing,
  asset: { readonly key: string; readonly partitioning: PartitionConfig | null },
): Promise<PartitionCounts> {
  const { partitioning } = asset;
  const { partitions } = listing;
  const found: Array<number | null> = new Array(partitions.length);
  const stale: number[] = [];
  for (let i = 0; i < partitions.length; i++) {
    const rows = partitions[i]!.rows;
    if (rows === null) stale.push(i);
    else found[i] = rows;
  }
  const unreadable: Record<string, UnreadablePartition> = Object.create(null);
  let next = 0;
  const worker = async () => {
    while (next < stale.length) {
      const at = stale[next++]!;
      const partition = partitions[at]!;
      found[at] = await listing.recount(partition).catch((error: unknown) => {
        unreadable[partition.key] = { file: partition.uri, error: reasonOf(error) };
        return null;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(listing.parallel, stale.length) }, worker));
  await listing.settle?.();
  const counts: Array<[string, number]> = [];
  for (let i = 0; i < partitions.length; i++) if (typeof found[i] === "number") counts.push([partitions[i]!.key, found[i]!]);
  if (!listing.records) return { counts: orderedCounts(counts, partitioning), unreadable };
  const records: Record<string, Materialization> = Object.create(null);
  for (let i = 0; i < partitions.length; i++) {
    const record = partitions[i]!.record;
    // A record of another asset or partition: no records then, for `materializations` to leave it out and say so (ForeignRecords).
    if (record && (record.asset !== asset.key || record.partition !== partitions[i]!.key))
      return { counts: orderedCounts(counts, partitioning), unreadable };
    if (record && typeof found[i] === "number") records[partitions[i]!.key] = record;
  }
  return { counts: orderedCounts(counts, partitioning), unreadable, records };
}

/** A partition of a listing of objects (`listedObjects`): the object listed, with the metadata its record is read from. */
export interface ListedObject extends ListedPartition {
  readonly object: StoredObject;
}

/** Whether a listed partition came from a listing of objects, and so carries its object. */
export const isListedObject = (partition: ListedPartition): partition is ListedObject => "object" in partition;

/**
 * The listing of a store that keeps each object's metadata: `{tablePrefix}{column}={key}/{fileName}`
 * objects only, counted from their `row_count` metadata, or by `download` (which gives null for
 * an object gone since) when it is missing or not a count.
 */
export async function listedObjects(
  objects: Iterable<StoredObject> | AsyncIterable<StoredObject>,
  where: TablePartitions,
  download: (name: string) => Promise<number | null>,
  uriOf: (name: string) => string,
): Promise<PartitionListing> {
  const { tablePrefix, fileName, layout } = where;
  const partitions: ListedObject[] = [];
  for await (const object of objects) {
    // Outside the range: a backend need not list in order, nor keep to it (see `listObjects`).
    const outside = where.range && (object.name <= where.range.startAfter || object.name >= where.range.before);
    if (outside || !object.name.startsWith(tablePrefix)) continue;
    const parts = object.name.slice(tablePrefix.length).split("/");
    if (parts[parts.length - 1] !== fileName) continue;
    const key = layout.keyOf(parts.slice(0, -1));
    if (key === null) continue;
    partitions.push({ key, object, uri: uriOf(object.name), rows: parseCount(object.metadata["row_count"]) });
  }
  return {
    partitions,
    parallel: PARALLEL_DOWNLOADS,
    recount: (partition) => download((partition as ListedObject).object.name),
  };
}
