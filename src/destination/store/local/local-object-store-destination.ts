import { ConfigError } from "../../../errors.js";
import { durableOption } from "./atomic.js";
import { Ledger } from "./ledger.js";
import { LocalFolder, type RecordedFile } from "./local-folder.js";
import type { FileFormat, FormatName } from "../../format/file-format.js";
import { type DataPlace, ObjectStoreDestination, type StoredObject } from "../object-store-destination.js";
import type { PartitionListing, TablePartitions } from "../partition-counts.js";
import type { HistoryQuery } from "../../destination.js";
import type { AssetRef, IOContext } from "../../io-context.js";
import { ForeignRecords } from "../../provenance/foreign-records.js";
import { warnChanged } from "./partition-records.js";
import { folderNameRefusal, refuseUnstorableValues } from "../../value-limits.js";
import type { Materialization } from "../../provenance/materialization.js";
import { declareOptions } from "../../options.js";

/** Options of `LocalObjectStoreDestination`. */
export interface LocalObjectStoreOptions {
  /** The folder that plays the bucket. */
  readonly basePath: string;
  readonly prefix?: string;
  readonly format?: FormatName | FileFormat;
  /**
   * Whether a put survives a crash of the machine (a power cut, a kernel panic) once it is
   * reported done. True by default: each object's file is synced to disk before it replaces the
   * previous one, and its folder after. False skips those syncs, which is faster where syncs are
   * slow; a crash of the machine may then leave an object reported written as it was before, or
   * empty, or cut short, with no error. A killed process loses nothing either way.
   */
  readonly durable?: boolean;
}

/**
 * An object store on local disk, the local backend of ObjectStoreDestination: each object a file
 * under `basePath`, put atomically, its metadata in the ledger of the folder above its own
 * (`.data.parquet.ledger`, the one CSVDestination and FileDestination keep their counts in: see
 * local-folder.ts, ledger.ts). The result is a plain hive folder that DuckDB, Spark or any
 * Parquet reader can open, with no cloud account.
 */
export class LocalObjectStoreDestination extends ObjectStoreDestination {
  static override destinationName = "Local object store";
  static override readonly options = declareOptions<LocalObjectStoreOptions>({
    basePath: "required",
    prefix: "optional",
    format: "optional",
    durable: "optional",
  });
  /** The folder that plays the bucket. */
  readonly basePath: string;
  /** Whether puts are synced to disk (see the option). */
  readonly durable: boolean;
  readonly #local: LocalFolder;
  /** The ledger place of each partition object being put (see `putDataObject`), with how many puts of it are under way. */
  readonly #places = new Map<string, { readonly place: RecordedFile; puts: number }>();

  constructor(options: LocalObjectStoreOptions) {
    super(options);
    this.basePath = options.basePath;
    if (typeof this.basePath !== "string" || this.basePath === "") {
      throw new ConfigError("LocalObjectStoreDestination: basePath must be a non-empty folder path");
    }
    this.durable = durableOption(options.durable, "LocalObjectStoreDestination");
    this.#local = new LocalFolder(() => this.resolvePath(this.basePath), "LocalObjectStoreDestination", this.durable);
  }

  /** Refuses, when the config is loaded, a declared list value too long to name a partition's folder (its objects are files). */
  override checkAssets(assets: readonly AssetRef[]): void {
    refuseUnstorableValues(assets, this.displayName, folderNameRefusal);
  }

  /**
   * Replaces the object's file atomically, its metadata appended to the ledger while the file is
   * still open (see LocalFolder.put); listings never sweep. The content type is the format's,
   * known again on read: it is not kept.
   */
  async putObject(name: string, payload: Uint8Array, _contentType: string, metadata: Record<string, string>): Promise<void> {
    const path = this.pathOf(name);
    await this.#local.put(path, [payload], () => metadata, this.#places.get(path)?.place);
  }

  /**
   * A partition's object goes to the table's ledger, its line keyed by the partition's folder
   * (`date=2026-01-05` or a multi partition's `date=2026-01-05/region=eu`), the ledger the
   * table's listing reads; an unpartitioned asset's to the folder above, as `putObject` puts it.
   */
  protected override async putDataObject(
    name: string,
    payload: Uint8Array,
    _contentType: string,
    metadata: Record<string, string>,
    where: DataPlace,
  ): Promise<void> {
    if (where.folder === null) return this.putObject(name, payload, _contentType, metadata);
    // Through putObject, which a wrapper of the backend's hooks sees: the place is known there by the path, while a put of it is under way.
    const path = this.pathOf(name);
    const held = this.#places.get(path) ?? { place: this.placeOf(name, where.tablePrefix, where.folder), puts: 0 };
    held.puts++;
    this.#places.set(path, held);
    try {
      await this.putObject(name, payload, _contentType, metadata);
    } finally {
      if (--held.puts === 0) this.#places.delete(path);
    }
  }

  /** Where a partition object's ledger line goes: the table's ledger, under its folder. */
  private placeOf(name: string, tablePrefix: string, folder: string): RecordedFile {
    return { path: this.pathOf(name), ledger: Ledger.of(this.pathOf(tablePrefix), name.slice(name.lastIndexOf("/") + 1)), folder };
  }

  /** A ledger line holds a record of any size: it always goes with the data. */
  protected override metadataFits(): boolean {
    return true;
  }

  /**
   * No history objects: one file a write costs W4-OS about a third more on a disk (each data
   * file's sync commits the previous entry's new folder and file too). The ledger, which already
   * holds a line with the record of every write, is where the local history belongs (LocalFolder).
   */
  protected override keepsHistory(): boolean {
    return false;
  }

  /**
   * The records of past writes (of `query.partition`, or of every partition holding a record
   * now), newest first, as the ledger keeps them beside the files (see LocalFolder): the objects'
   * history without an object a write.
   */
  override async materializationHistory(context: IOContext, query: HistoryQuery): Promise<Materialization[]> {
    const partitioning = context.asset.partitioning;
    const keys =
      query.partition !== undefined ? [query.partition?.key ?? ""] : Object.keys(await this.materializations(context.withWindow(null)));
    const tablePrefix = this.tablePrefix(context);
    const files = keys.map((key) => {
      const name = this.objectName(context, partitioning && key !== "" ? partitioning.partition(key) : null);
      return partitioning && key !== ""
        ? this.placeOf(name, tablePrefix, name.slice(tablePrefix.length, name.lastIndexOf("/")))
        : this.pathOf(name);
    });
    const foreign = new ForeignRecords(context.asset.key);
    const keyOf = new Map(files.map((file, i) => [typeof file === "string" ? file : file.path, keys[i]!]));
    const found = await this.#local.materializationHistory(files, (file, record) =>
      foreign.owns(record, partitioning ? keyOf.get(file.path)! : null),
    );
    if (found.damaged.length > 0)
      context.logger.warn(
        `LocalObjectStoreDestination: asset "${context.asset.key}": a materialization record in ${found.damaged.join(", ")} is damaged or was edited by hand; it is left out (provenance unknown)`,
      );
    foreign.warn(context.logger, "LocalObjectStoreDestination", this.pathOf(tablePrefix));
    const keyed = files.map((file, i) => ({
      ...(typeof file === "string" ? { path: file, ...this.#local.ledgerOf(file) } : file),
      key: keys[i]!,
    }));
    warnChanged(context, "LocalObjectStoreDestination", keyed, found.changed);
    return found.records.slice(0, Math.max(0, query.limit));
  }

  getObject(name: string): Promise<Uint8Array | null> {
    return this.#local.get(this.pathOf(name));
  }

  /** Every object file under the prefix, with its metadata (see LocalFolder.list). */
  listObjects(prefix: string): AsyncIterable<StoredObject> {
    return this.#local.list(prefix);
  }

  objectUri(name: string): string {
    return this.#local.pathOf(name);
  }

  /**
   * Deletes each object's file, an older version's sidecar and the temporary files of either,
   * then the folders left empty, up to `basePath` (see LocalFolder.delete).
   */
  override deleteObjects(names: readonly string[]): Promise<void> {
    return this.#local.delete(names);
  }

  /** The object files under a prefix, without reading their metadata. */
  protected override listNames(prefix: string): AsyncIterable<string> {
    return this.#local.listNames(prefix);
  }

  /**
   * The table's partitions as the local folder lists them: one folder level, a stat of each file
   * and the table's ledger, a file without a current line counted through one open handle and
   * its count appended (see LocalFolder.partitions), rather than a walk of every object.
   */
  protected override listPartitions(where: TablePartitions, count: (bytes: Uint8Array) => Promise<number>): Promise<PartitionListing> {
    return this.#local.partitions(where.tablePrefix, where.layout, where.fileName, async (file) => count(await file.readFile()));
  }

  /** The file of an object; a name that would leave `basePath` is refused. */
  private pathOf(name: string): string {
    return this.#local.pathOf(name);
  }
}
