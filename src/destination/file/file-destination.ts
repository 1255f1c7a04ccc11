import type { FileHandle } from "node:fs/promises";
import type { Partition } from "../../partitioning/index.js";
import { countValueRows, decodeValue, encodeValue } from "../format/v8.js";
import type { IOContext } from "../io-context.js";
import { rowCountOf } from "../row-count.js";
import { TableData } from "../../representation/index.js";
import { FileTableDestination, type FileTableDestinationOptions } from "./file-table-destination.js";

/** Options of `FileDestination`: the folder and whether writes are synced (see `FileTableDestinationOptions`). */
export type FileDestinationOptions = FileTableDestinationOptions;

/**
 * Any value the asset returns, in Node's structured serialization (the v8 format: Dates, Maps,
 * BigInts and nested objects survive), one `data.v8` file per partition in the same layout as
 * CSVDestination: the local folder store with the v8 format. What it would not give back as it
 * is (a class instance, a function) is refused.
 */
export class FileDestination extends FileTableDestination {
  static override destinationName = "Files";

  constructor(options: FileDestinationOptions) {
    super(options, "data.v8", "FileDestination");
  }

  async writePartition(context: IOContext, partition: Partition | null, data: unknown): Promise<void> {
    const bytes = encodeValue(data, this.displayName, context.asset.key);
    await this.files.write(context, partition, [bytes], rowCountOf(data), TableData.from(data) !== null);
  }

  async readPartition(context: IOContext, partition: Partition | null): Promise<unknown> {
    return this.files.decode(context, partition, decodeValue);
  }

  protected override countRows(file: FileHandle): Promise<number> {
    return countValueRows(file);
  }
}
