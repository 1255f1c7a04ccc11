import { MultiPartitionConfig, type Partition, type PartitionConfig } from "../partitioning/index.js";
import type { IOContext } from "./io-context.js";
import { safeSegment } from "./paths.js";

/**
 * How a file store lays out an asset's partitions in hive folders: `{column}={key}` for a time or
 * list partitioning, and one level per dimension of a multi partitioning in declared order
 * (`date=2026-01-05/region=eu`), which DuckDB, Spark and Arrow read with hive partitioning as
 * one column per dimension. Its folders and a partition's key map both ways: a multi key joins
 * the dimensions' keys with "|", a folder path with "/".
 */
export class HiveLayout {
  /** The column of each folder level, outermost first. */
  readonly columns: readonly string[];

  constructor(
    partitioning: PartitionConfig,
    /** Names the destination in messages. */
    private readonly owner: string,
  ) {
    const columns = partitioning instanceof MultiPartitionConfig ? partitioning.columns : [partitioning.column];
    this.columns = columns.map((column) => safeSegment(column, "partition column", owner));
  }

  /** The layout of the context's asset; ConfigError for a column that cannot name a folder. */
  static of(context: IOContext, owner: string): HiveLayout {
    context.partitionColumn(); // a PartitionError naming the asset when it is not partitioned
    return new HiveLayout(context.asset.partitioning!, owner);
  }

  /** How many folder levels a partition takes. */
  get depth(): number {
    return this.columns.length;
  }

  /** A partition's folder names, outermost first: `["date=2026-01-05", "region=eu"]`. */
  segments(partition: Partition): string[] {
    return this.segmentsOfKey(partition.key);
  }

  /** A partition's folder path relative to the table, `/`-separated: `date=2026-01-05/region=eu`. */
  folder(partition: Partition): string {
    return this.segments(partition).join("/");
  }

  /** The folder names of a stored partition key (a multi key joins one key per level with "|"). */
  segmentsOfKey(key: string): string[] {
    const keys = this.depth === 1 ? [key] : key.split("|");
    return this.columns.map((column, i) => `${column}=${safeSegment(keys[i], "partition key", this.owner)}`);
  }

  /**
   * The partition key of a folder path's names (`["date=2026-01-05", "region=eu"]`), or null when
   * they are not this layout's: another depth, another column, an empty key.
   */
  keyOf(names: readonly string[]): string | null {
    if (names.length !== this.depth) return null;
    const keys: string[] = [];
    for (let i = 0; i < names.length; i++) {
      const head = `${this.columns[i]}=`;
      const name = names[i]!;
      if (name.length === head.length || !name.startsWith(head)) return null;
      keys.push(name.slice(head.length));
    }
    return keys.join("|");
  }
}
