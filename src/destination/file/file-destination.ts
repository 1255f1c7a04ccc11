import { deserialize, serialize } from "node:v8";
import type { Partition } from "../../partitioning/index.js";
import { Destination, type DropTarget } from "../destination.js";
import { durableOption } from "../files/atomic.js";
import { PartitionFiles } from "../files/partition-files.js";
import type { IOContext } from "../io-context.js";
import { rowCountOf } from "../row-count.js";
import { declareOptions } from "../options.js";

/** Options of `FileDestination`. */
export interface FileDestinationOptions {
  /** The folder holding every dataset's tables. */
  readonly basePath: string;
  /**
   * Whether a write survives a crash of the machine (a power cut, a kernel panic) once it is
   * reported done. True by default: each partition's file is synced to disk before it replaces
   * the previous one, and its folder after. False skips those syncs, which is faster where syncs
   * are slow; a crash of the machine may then leave a partition reported written as it was
   * before, or empty, or cut short, with no error. A killed process loses nothing either way.
   */
  readonly durable?: boolean;
}

/**
 * Any value the asset returns, in Node's structured serialization (Dates, Maps, BigInts and
 * nested objects survive), one `data.v8` file per partition in the same layout as CSVDestination.
 */
export class FileDestination extends Destination {
  static override destinationName = "Files";
  static override readonly options = declareOptions<FileDestinationOptions>({ basePath: "required", durable: "optional" });
  /** The folder holding every dataset's tables. */
  readonly basePath: string = "";
  /** Whether writes are synced to disk (see the option). */
  readonly durable: boolean = true;
  private readonly files: PartitionFiles;

  constructor(options: FileDestinationOptions) {
    super(options);
    this.durable = durableOption(this.durable, "FileDestination");
    this.files = new PartitionFiles(() => this.resolvePath(this.basePath), "data.v8", "FileDestination", this.durable);
  }

  /** The absolute folder `basePath` names (relative to the config's folder in a loaded config). */
  override get location(): string {
    return this.files.folder;
  }

  /** The file a partition lives in (null: the whole of an unpartitioned asset). */
  pathOf(context: IOContext, partition: Partition | null): string {
    return this.files.pathOf(context, partition);
  }

  async writePartition(context: IOContext, partition: Partition | null, data: unknown): Promise<void> {
    await this.files.write(context, partition, [serialize(data)], rowCountOf(data));
  }

  async readPartition(context: IOContext, partition: Partition | null): Promise<unknown> {
    return deserialize(await this.files.read(context, partition));
  }

  /** Removes the asset's folder of partitions, with its row-count records; another asset's folder inside it stays. */
  override dropAsset(context: IOContext): Promise<void> {
    return this.files.drop(context);
  }

  override describeDrop(context: IOContext): Promise<DropTarget> {
    return this.files.describeDrop(context);
  }

  partitionRowCounts(context: IOContext): Promise<Record<string, number>> {
    return this.files.rowCounts(context, async (file) => rowCountOf(deserialize(await file.readFile())));
  }
}
