import { DataNotFoundError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import { Destination, type DropTarget, type HistoryQuery } from "../destination.js";
import type { IOContext } from "../io-context.js";
import { partitionSegment, safeSegment, tableSegments } from "../paths.js";
import { declareOptions } from "../options.js";
import { orderedCounts, rowCountOf } from "../row-count.js";
import type { Materialization } from "../provenance/materialization.js";

interface StoredValue {
  readonly data: unknown;
  readonly rows: number;
  /** How it was written (see IOContext.materialization). */
  readonly record: Materialization;
}

// One store for the whole process, shared by every instance, as the spec says: a test writes
// through one destination object and reads through another.
const store = new Map<string, StoredValue>();
// Every record written, by store key, oldest first: the history (dropped with its asset). Each
// holds its place in the order of all writes, which orders writes ending in the same millisecond.
const history = new Map<string, Array<{ readonly at: number; readonly record: Materialization }>>();
let writes = 0;

/**
 * An in-process store keyed `{dataset}/{table}/{column}={key}`, meant for tests. Values are
 * copied in and out, so mutating what was written or read changes nothing stored.
 */
export class MemoryDestination extends Destination {
  static override destinationName = "Memory";

  override get location(): string {
    return "memory of this process";
  }

  static override readonly options = declareOptions<Record<string, never>>({});

  /** Takes no options: every instance shares the one store. */
  constructor(options?: Record<string, never>) {
    super(options);
  }

  /** Forgets everything every MemoryDestination holds (between tests). */
  static clear(): void {
    store.clear();
    history.clear();
  }

  /** The store key of a partition (null: the whole of an unpartitioned asset). */
  keyOf(context: IOContext, partition: Partition | null): string {
    const table = tableSegments(context, "MemoryDestination").join("/");
    return partition ? `${table}/${partitionSegment(context, partition, "MemoryDestination")}` : table;
  }

  /** Stores a copy of the data with its record, in one step. */
  writePartition(context: IOContext, partition: Partition | null, data: unknown): void {
    const key = this.keyOf(context, partition);
    const rows = rowCountOf(data);
    const record = context.materialization(partition, rows);
    store.set(key, { data: structuredClone(data), rows, record });
    history.set(key, [...(history.get(key) ?? []), { at: writes++, record }]);
  }

  /** The record of each stored partition of the window (every one without a window); "" for an unpartitioned asset. */
  override materializations(context: IOContext): Record<string, Materialization> {
    const records: Record<string, Materialization> = Object.create(null);
    if (!context.asset.partitioning) {
      const stored = store.get(this.keyOf(context, null));
      if (stored) records[""] = stored.record;
      return records;
    }
    if (context.window) {
      for (const partition of context.window.partitions) {
        const stored = store.get(this.keyOf(context, partition));
        if (stored) records[partition.key] = stored.record;
      }
      return records;
    }
    for (const [key, stored] of this.partitionEntries(context)) records[key] = stored.record;
    return records;
  }

  /** Every record written of the asset (or of one partition) since it was last dropped, newest first. */
  override materializationHistory(context: IOContext, query: HistoryQuery): Materialization[] {
    const keys = query.partition !== undefined ? [this.keyOf(context, query.partition)] : this.ownKeys(context, history);
    return keys
      .flatMap((key) => history.get(key) ?? [])
      .sort((a, b) => b.at - a.at)
      .slice(0, query.limit)
      .map(({ record }) => record);
  }

  readPartition(context: IOContext, partition: Partition | null): unknown {
    const key = this.keyOf(context, partition);
    const stored = store.get(key);
    if (!stored) throw new DataNotFoundError(`no data for asset "${context.asset.key}" in memory: key "${key}" was never written`);
    return structuredClone(stored.data);
  }

  /** Forgets every key of the asset: the whole, and each `{column}={key}` below it (never a nested table's). */
  override dropAsset(context: IOContext): void {
    for (const key of this.ownKeys(context)) store.delete(key);
    for (const key of this.ownKeys(context, history)) history.delete(key);
  }

  override async describeDrop(context: IOContext): Promise<DropTarget> {
    const keys = this.ownKeys(context);
    const table = tableSegments(context, "MemoryDestination").join("/");
    const partitions = context.asset.partitioning ? keys.filter((key) => key !== table).length : null;
    return { what: `keys ${table} and ${table}/*=* in memory`, partitions, exists: keys.length > 0 };
  }

  private ownKeys(context: IOContext, of: Map<string, unknown> = store): string[] {
    const table = tableSegments(context, "MemoryDestination").join("/");
    const own = (key: string) => {
      if (key === table) return true;
      const rest = key.startsWith(`${table}/`) ? key.slice(table.length + 1) : null;
      return rest !== null && !rest.includes("/") && rest.includes("=");
    };
    return [...of.keys()].filter(own);
  }

  partitionRowCounts(context: IOContext): Record<string, number> {
    const counts = this.partitionEntries(context).map(([key, stored]): [string, number] => [key, stored.rows]);
    return orderedCounts(counts, context.asset.partitioning);
  }

  /** The asset's stored partitions, by partition key. */
  private partitionEntries(context: IOContext): Array<[string, StoredValue]> {
    const column = safeSegment(context.partitionColumn(), "partition column", "MemoryDestination");
    const prefix = `${tableSegments(context, "MemoryDestination").join("/")}/${column}=`;
    const entries: Array<[string, StoredValue]> = [];
    for (const [key, stored] of store) {
      if (key.startsWith(prefix) && !key.slice(prefix.length).includes("/")) entries.push([key.slice(prefix.length), stored]);
    }
    return entries;
  }
}
