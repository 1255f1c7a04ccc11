import type { PartitionConfig } from "../../partitioning/index.js";
import { parseCount } from "./local/ledger.js";
import { orderedCounts } from "../row-count.js";
import type { StoredObject } from "./object-store-destination.js";
import { reasonOf, type PartitionCounts, type UnreadablePartition } from "../unreadable.js";

// Objects without a row_count are downloaded a few at a time: enough to hide latency, few
// enough not to hold many whole files in memory at once.
const PARALLEL_DOWNLOADS = 8;

interface Lister {
  listObjects(prefix: string): Iterable<StoredObject> | AsyncIterable<StoredObject>;
}

/**
 * Rows per partition key under a table prefix: `{tablePrefix}{column}={key}/{fileName}` objects
 * only, counted from their `row_count` metadata, or by `download` when it is missing or not a
 * count. Keys come back in the order of `orderedCounts`; objects `download` fails to count are
 * reported in `unreadable`, by key, named by `uriOf`.
 */
export async function countRows(
  store: Lister,
  tablePrefix: string,
  columnPrefix: string,
  fileName: string,
  download: (name: string) => Promise<number | null>,
  uriOf: (name: string) => string,
  partitioning: PartitionConfig | null,
): Promise<PartitionCounts> {
  const counts = new Map<string, number>();
  const uncounted: Array<[string, string]> = [];
  const unreadable: Record<string, UnreadablePartition> = Object.create(null);
  for await (const object of store.listObjects(tablePrefix)) {
    if (!object.name.startsWith(tablePrefix)) continue;
    const parts = object.name.slice(tablePrefix.length).split("/");
    if (parts.length !== 2 || parts[1] !== fileName || !parts[0]!.startsWith(columnPrefix)) continue;
    const key = parts[0]!.slice(columnPrefix.length);
    if (key === "") continue;
    const rows = parseCount(object.metadata["row_count"]);
    if (rows === null) uncounted.push([key, object.name]);
    else counts.set(key, rows);
  }
  for (let start = 0; start < uncounted.length; start += PARALLEL_DOWNLOADS) {
    const batch = uncounted.slice(start, start + PARALLEL_DOWNLOADS);
    // An object that cannot be read (cut short) is reported, and the others counted.
    const rows = await Promise.all(
      batch.map(([key, name]) =>
        download(name).catch((error: unknown) => {
          unreadable[key] = { file: uriOf(name), error: reasonOf(error) };
          return null;
        }),
      ),
    );
    batch.forEach(([key], i) => {
      // An object deleted between the listing and the download holds no partition any more.
      if (rows[i] !== null) counts.set(key, rows[i]!);
    });
  }
  return { counts: orderedCounts(counts, partitioning), unreadable };
}
