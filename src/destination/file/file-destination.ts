import type { FileHandle } from "node:fs/promises";
import { deserialize, serialize } from "node:v8";
import type { Partition } from "../../partitioning/index.js";
import { FileTableDestination, type FileTableDestinationOptions } from "./file-table-destination.js";
import type { IOContext } from "../io-context.js";
import { rowCountOf } from "../row-count.js";
import { checkStructured } from "../format/structured-check.js";

/** Options of `FileDestination`: the folder and whether writes are synced (see `FileTableDestinationOptions`). */
export type FileDestinationOptions = FileTableDestinationOptions;

/**
 * Any value the asset returns, in Node's structured serialization (Dates, Maps, BigInts and
 * nested objects survive), one `data.v8` file per partition in the same layout as CSVDestination.
 * What it would not give back as it is (a class instance, a function) is refused.
 */
export class FileDestination extends FileTableDestination {
  static override destinationName = "Files";

  constructor(options: FileDestinationOptions) {
    super(options, "data.v8", "FileDestination");
  }

  async writePartition(context: IOContext, partition: Partition | null, data: unknown): Promise<void> {
    checkStructured(data, this.displayName, context.asset.key);
    await this.files.write(context, partition, [serialize(data)], rowCountOf(data));
  }

  async readPartition(context: IOContext, partition: Partition | null): Promise<unknown> {
    return this.files.decode(context, partition, deserialize);
  }

  protected override async countRows(file: FileHandle): Promise<number> {
    return rowCountOf(deserialize(await file.readFile()));
  }
}
