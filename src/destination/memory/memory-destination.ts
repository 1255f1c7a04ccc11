import { DataNotFoundError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import { Destination, type DropTarget } from "../destination.js";
import type { IOContext } from "../io-context.js";
import { partitionSegment, safeSegment, tableSegments } from "../paths.js";
import { declareOptions } from "../options.js";
import { orderedCounts, rowCountOf } from "../row-count.js";

interface StoredValue {
  readonly data: unknown;
  readonly rows: number;
}

// One store for the whole process, shared by every instance, as the spec says: a test writes
// through one destination object and reads through another.
const store = new Map<string, StoredValue>();

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
  }

  /** The store key of a partition (null: the whole of an unpartitioned asset). */
  keyOf(context: IOContext, partition: Partition | null): string {
    const table = tableSegments(context, "MemoryDestination").join("/");
    return partition ? `${table}/${partitionSegment(context, partition, "MemoryDestination")}` : table;
  }

  writePartition(context: IOContext, partition: Partition | null, data: unknown): void {
    store.set(this.keyOf(context, partition), { data: structuredClone(data), rows: rowCountOf(data) });
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
  }

  override async describeDrop(context: IOContext): Promise<DropTarget> {
    const keys = this.ownKeys(context);
    const table = tableSegments(context, "MemoryDestination").join("/");
    const partitions = context.asset.partitioning ? keys.filter((key) => key !== table).length : null;
    return { what: `keys ${table} and ${table}/*=* in memory`, partitions, exists: keys.length > 0 };
  }

  private ownKeys(context: IOContext): string[] {
    const table = tableSegments(context, "MemoryDestination").join("/");
    const own = (key: string) => {
      if (key === table) return true;
      const rest = key.startsWith(`${table}/`) ? key.slice(table.length + 1) : null;
      return rest !== null && !rest.includes("/") && rest.includes("=");
    };
    return [...store.keys()].filter(own);
  }

  partitionRowCounts(context: IOContext): Record<string, number> {
    const column = safeSegment(context.partitionColumn(), "partition column", "MemoryDestination");
    const prefix = `${tableSegments(context, "MemoryDestination").join("/")}/${column}=`;
    const counts: Array<[string, number]> = [];
    for (const [key, stored] of store) {
      if (key.startsWith(prefix) && !key.slice(prefix.length).includes("/")) counts.push([key.slice(prefix.length), stored.rows]);
    }
    return orderedCounts(counts, context.asset.partitioning);
  }
}
