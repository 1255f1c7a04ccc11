import type { FileHandle } from "node:fs/promises";
import type { Partition } from "../../partitioning/index.js";
import { Destination, type DropTarget, type HistoryQuery } from "../destination.js";
import type { Materialization } from "../provenance/materialization.js";
import { partitionHistory, partitionMaterializations } from "../store/local/partition-records.js";
import type { IOContext } from "../io-context.js";
import { declareOptions } from "../options.js";
import { durableOption } from "../store/local/atomic.js";
import type { PartitionCounts } from "../unreadable.js";
import { PartitionFiles } from "../store/local/partition-files.js";
import type { AssetRef } from "../io-context.js";
import { folderNameRefusal, refuseUnstorableValues } from "../value-limits.js";

/** The options every destination of one local file per partition takes. */
export interface FileTableDestinationOptions {
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

// The presets of the local folder store: CSVDestination (the CSV format) and FileDestination (the
// v8 format). They put their files through the local backend's LocalFolder, as
// LocalObjectStoreDestination does, into the same layout with the same ledger, and count and drop
// as every file store does: the one count (../store/partition-counts.ts) over the local folder's
// listing of a table's partitions (one folder level, a stat of each file, the ledger), and the one
// rule of what an asset owns (../store/own-files.ts), deleted through LocalFolder. They compose
// PartitionFiles (../store/local/partition-files.ts) rather than extend ObjectStoreDestination,
// whose writes and reads would change their bytes on disk or their speed:
// - bytes: CSVDestination keeps the partition column in its files, with a header taken from the
//   first row (the object stores leave the column to the path, and write the schema's columns);
//   FileDestination stores any value, not rows; an unpartitioned asset's ledger is in its own
//   folder, not in the folder above (which may hold other assets').
// - speed: a write goes from the encoder to the file chunk by chunk, never held as one payload
//   (W1, W4); a window is read with one synchronous read per file and parsed into one array (W3).
// - a preset owns only its own file name (`data.csv`) and the bookkeeping named after it, where a
//   store owns `data.*` of any format; its drop stops at the table's folder, and says "folder".

/**
 * One file per partition on the local filesystem, one folder per asset:
 * `{basePath}/{dataset}/{table}/{fileName}` and `{basePath}/{dataset}/{table}/{column}={key}/{fileName}`
 * (a multi partition: one folder per dimension, `date=2026-01-05/region=eu/`).
 * Holds the options, and through PartitionFiles the layout, row counts and dropping;
 * a subclass says only how a partition becomes bytes and back (its format), and how to count the
 * rows of a file the ledger lacks.
 */
export abstract class FileTableDestination extends Destination {
  static override readonly options = declareOptions<FileTableDestinationOptions>({ basePath: "required", durable: "optional" });
  /** The folder holding every dataset's tables. */
  readonly basePath: string;
  /** Whether writes are synced to disk (see the option). */
  readonly durable: boolean;
  protected readonly files: PartitionFiles;

  /** `fileName` is each partition's file; `owner` names the class in messages, as users wrote it. */
  protected constructor(options: FileTableDestinationOptions, fileName: string, owner: string) {
    super(options);
    this.basePath = options.basePath;
    this.durable = durableOption(options.durable, owner);
    this.files = new PartitionFiles(() => this.resolvePath(this.basePath), fileName, owner, this.durable);
  }

  /** Counts the rows of a partition's file, for a partition the row-count ledger does not hold. */
  protected abstract countRows(file: FileHandle): Promise<number>;

  /** The absolute folder `basePath` names (relative to the config's folder in a loaded config). */
  override get location(): string {
    return this.files.folder;
  }

  /** The file a partition lives in (null: the whole of an unpartitioned asset). */
  pathOf(context: IOContext, partition: Partition | null): string {
    return this.files.pathOf(context, partition);
  }

  /** Refuses, when the config is loaded, a declared list value too long to name a partition's folder. */
  override checkAssets(assets: readonly AssetRef[]): void {
    refuseUnstorableValues(assets, this.displayName, folderNameRefusal);
  }

  /** Removes the asset's folder of partitions, with its row-count records; another asset's folder inside it stays. */
  override dropAsset(context: IOContext): Promise<void> {
    return this.files.drop(context);
  }

  override describeDrop(context: IOContext): Promise<DropTarget> {
    return this.files.describeDrop(context);
  }

  /**
   * The record each stored partition of the window (every one without a window; "" for an
   * unpartitioned asset) was written with: kept in the table's ledger line of the write, in the
   * same step as the file (see local-folder.ts). A file written before records were kept, or
   * counted again by a read, has none.
   */
  override materializations(context: IOContext): Promise<Record<string, Materialization>> {
    return partitionMaterializations(this.files, context);
  }

  /** The records of past writes that landed, newest first; the last HISTORY_KEPT of each partition at least (see ledger-history.ts). */
  override materializationHistory(context: IOContext, query: HistoryQuery): Promise<Materialization[]> {
    return partitionHistory(this.files, context, query);
  }

  /** Rows per partition key; a partition whose file cannot be read is left out (see `partitionCounts`). */
  async partitionRowCounts(context: IOContext): Promise<Record<string, number>> {
    return (await this.partitionCounts(context)).counts;
  }

  /** Rows per partition key, and the partitions whose file cannot be read (named, with why). */
  override partitionCounts(context: IOContext): Promise<PartitionCounts> {
    return this.files.rowCounts(context, (file) => this.countRows(file));
  }
}
