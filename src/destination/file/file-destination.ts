import { readFile } from "node:fs/promises";
import { deserialize, serialize } from "node:v8";
import type { Partition } from "../../partitioning/index.js";
import { Destination } from "../destination.js";
import { PartitionFiles } from "../files/partition-files.js";
import type { IOContext } from "../io-context.js";
import { rowCountOf } from "../row-count.js";

/** Options of `FileDestination`. */
export interface FileDestinationOptions {
  /** The folder holding every dataset's tables. */
  readonly basePath: string;
}

/**
 * Any value the asset returns, in Node's structured serialization (Dates, Maps, BigInts and
 * nested objects survive), one `data.v8` file per partition in the same layout as CSVDestination.
 */
export class FileDestination extends Destination {
  static override destinationName = "Files";
  readonly basePath: string;
  private readonly files: PartitionFiles;

  constructor(options: FileDestinationOptions) {
    super();
    this.basePath = options?.basePath ?? "";
    this.files = new PartitionFiles(this.basePath, "data.v8", "FileDestination");
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

  partitionRowCounts(context: IOContext): Promise<Record<string, number>> {
    return this.files.rowCounts(context, async (path) => rowCountOf(deserialize(await readFile(path))));
  }
}
