import { ConfigError, DataNotFoundError, SchemaError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import { type Row, TableData } from "../../representation/index.js";
import { describeValue } from "../../text/describe-value.js";
import { Destination, type DropTarget, type HistoryQuery } from "../destination.js";
import { checkedBytes, missingHook, requireHooks } from "../hook-check.js";
import type { FileFormat, FormatName } from "../format/file-format.js";
import { formatFor } from "../format/format-for.js";
import type { IOContext } from "../io-context.js";
import { HiveLayout } from "../hive.js";
import { safeSegment, tableSegments } from "../paths.js";
import { fileFields, partitionColumnsOf } from "./partition-column.js";
import { ANY_DATA_FILE, dropOwnFiles, dropTarget, type OwnFiles, ownFiles } from "./own-files.js";
import { countPartitions, isListedObject, listedObjects, type PartitionListing, type TablePartitions } from "./partition-counts.js";
import { type NameRange, windowRange } from "./name-range.js";
import { metadataBytes, type StoredObject } from "./object-metadata.js";
export type { StoredObject } from "./object-metadata.js";
import { ObjectProvenance } from "./object-provenance.js";
import type { Materialization } from "../provenance/materialization.js";
import { decoding, type PartitionCounts } from "../unreadable.js";
import type { MaybePromise } from "../../maybe-promise.js";

/** Where a data object is: its table's prefix (ending with "/") and its partition's folder under it (null: unpartitioned). */
export interface DataPlace {
  readonly tablePrefix: string;
  readonly folder: string | null;
}

const OBJECT_HOOKS = ["putObject", "getObject", "listObjects", "objectUri"] as const;

/**
 * A destination whose partitions are objects in a bucket, laid out hive style:
 * `{prefix}/{dataset}/{table}/data.{ext}` and `{prefix}/{dataset}/{table}/{column}={key}/data.{ext}`
 * (a multi partition in one folder per dimension, in declared order: `date=2026-01-05/region=eu/`).
 * A backend implements four storage hooks; the base owns serialization, the partition column
 * (in the path, not the file), row counts from `row_count` metadata and typed reads.
 */
export abstract class ObjectStoreDestination extends Destination {
  /** The file format: "parquet" (default), "jsonl", "csv", or a FileFormat of your own. */
  format: FormatName | FileFormat;
  /** A path prefix inside the bucket ("" for the root). */
  prefix: string;

  /** Takes `format` and `prefix`; a subclass adds its own options (its fields, or those it declares). */
  constructor(options?: object) {
    super(options);
    const { format, prefix } = (options ?? {}) as { readonly format?: FormatName | FileFormat; readonly prefix?: string };
    this.format = format ?? "parquet";
    this.prefix = prefix ?? "";
    requireHooks(this, OBJECT_HOOKS);
    // A format name no format has fails here, not at the first write.
    this.fileFormat();
  }

  /** For a bucket-backed destination's constructor: refuses a `bucket` option that names no bucket. */
  protected checkBucket(bucket: unknown): void {
    if (typeof bucket !== "string" || bucket === "")
      throw new ConfigError(`${this.constructor.name}: bucket must be a non-empty bucket name`);
  }

  /** Uploads an object, replacing any object of that name, with the given custom metadata. */
  abstract putObject(name: string, payload: Uint8Array, contentType: string, metadata: Record<string, string>): MaybePromise<void>;
  /** An object's bytes, or null (or undefined) when it does not exist. */
  abstract getObject(name: string): MaybePromise<Uint8Array | null | undefined>;
  /**
   * Every object whose name starts with `prefix`, with its custom metadata; those outside `range`
   * may be left out (S3 lists from its start on, and stops at its end; others list all).
   */
  abstract listObjects(prefix: string, range?: NameRange): Iterable<StoredObject> | AsyncIterable<StoredObject>;
  /** The backend's URI of an object, for messages: `s3://bucket/name`, a file path, ... */
  abstract objectUri(name: string): string;
  /**
   * Optional, for `materialize --full-refresh`: deletes these objects, and whatever the backend
   * keeps beside each (metadata sidecars). An object already gone is no error.
   */
  deleteObjects?(names: readonly string[]): MaybePromise<void>;

  /** The names of the objects under a prefix; a backend may list them cheaper than `listObjects`. */
  protected async *listNames(prefix: string): AsyncIterable<string> {
    for await (const object of this.listObjects(prefix)) yield object.name;
  }

  override missingDropHook(): string | null {
    return missingHook(this, ["deleteObjects(names)"]);
  }

  /**
   * Deletes the asset's objects: `data.*` under its table prefix and under each
   * `{column}={key}/` there, nothing deeper (the one rule every file store drops by: see
   * own-files.ts), in batches.
   */
  override async dropAsset(context: IOContext): Promise<void> {
    await dropOwnFiles(await this.ownObjects(context), (names) => this.deleteObjects!(names));
    await this.dropProvenance(context);
  }

  /** Deletes the asset's records and their history (see object-provenance.ts), once its data is gone. */
  private async dropProvenance(context: IOContext): Promise<void> {
    const names = await this.objectProvenance(context).names();
    // Batches bound a request's size (S3 takes at most 1000 keys per DeleteObjects).
    for (let start = 0; start < names.length; start += 1000) await this.deleteObjects!(names.slice(start, start + 1000));
  }

  override async describeDrop(context: IOContext): Promise<DropTarget> {
    const prefix = this.tablePath(context).join("/");
    return dropTarget(`objects under ${this.objectUri(prefix)}/`, await this.ownObjects(context), context.asset.partitioning !== null);
  }

  /** The asset's objects, of any format (a changed format's are found too), and their partitions. */
  private ownObjects(context: IOContext): Promise<OwnFiles> {
    const prefix = this.tablePrefix(context);
    return ownFiles(this.listNames(prefix), prefix, ANY_DATA_FILE);
  }

  /** Where the objects are: the URI of the prefix (`s3://bucket/prefix`, a folder). */
  override get location(): string {
    // The prefix's segments, without empty ones (a doubled, leading or trailing "/").
    return this.objectUri(String(this.prefix ?? "").replace(/^\/+|\/+$|(\/)\/+/g, "$1"));
  }

  /** The object a partition lives in (null: the whole of an unpartitioned asset). */
  objectName(context: IOContext, partition: Partition | null): string {
    const folder = partition && HiveLayout.of(context, this.displayName).folder(partition);
    return `${this.tablePrefix(context)}${folder === null ? "" : `${folder}/`}data.${this.fileFormat().extension}`;
  }

  async writePartition(context: IOContext, partition: Partition | null, data: unknown): Promise<void> {
    const table = TableData.from(data);
    if (!table) {
      throw new SchemaError(
        `${this.displayName} stores tables, but asset "${context.asset.key}" produced ${describeValue(data)}; use FileDestination for other values`,
      );
    }
    const rows = table.rows;
    const fields = fileFields(context, partition, rows);
    const format = this.fileFormat();
    const payload = await format.serialize(rows, fields);
    const [name, segment] = [this.objectName(context, partition), partition && HiveLayout.of(context, this.displayName).folder(partition)];
    const record = context.materialization(partition, rows.length);
    const prepared = await this.objectProvenance(context).prepare(name, segment, record, { row_count: String(rows.length) });
    try {
      await this.putDataObject(name, payload, format.contentType, prepared.metadata, {
        tablePrefix: this.tablePrefix(context),
        folder: segment,
      });
    } catch (error) {
      await prepared.failed();
      throw error;
    }
    await prepared.landed();
  }

  /** The current record of each stored partition of the window (every one without): one listing, as counting. */
  override materializations(context: IOContext): Promise<Record<string, Materialization>> {
    return this.objectProvenance(context).current();
  }

  /** Past records, newest first; the newest HISTORY_RETAINED (20) of each partition are kept, a few more between prunes. */
  override materializationHistory(context: IOContext, query: HistoryQuery): Promise<Materialization[]> {
    return this.objectProvenance(context).history(query);
  }

  /** Whether an object keeps this custom metadata: by default S3's 2 KB (the least of the known services). */
  protected metadataFits(metadata: Record<string, string>): boolean {
    return metadataBytes(metadata) <= 2048;
  }

  /** Whether each write puts a history entry (see object-provenance.ts): a backend may keep its history otherwise. */
  protected keepsHistory(): boolean {
    return true;
  }

  /** Puts a provenance object (a sidecar, a history entry: see object-provenance.ts): JSON, no metadata, a name never replaced. */
  protected async putBookkeeping(name: string, text: string): Promise<void> {
    await this.putObject(name, new TextEncoder().encode(text), "application/json", {});
  }

  private objectProvenance(context: IOContext): ObjectProvenance {
    const layout = context.asset.partitioning ? HiveLayout.of(context, this.displayName) : null;
    const store = {
      listObjects: (prefix: string) => this.listObjects(prefix),
      listNames: (prefix: string) => this.listNames(prefix),
      objectBytes: (name: string) => this.objectBytes(name),
      putBookkeeping: (name: string, text: string) => this.putBookkeeping(name, text),
      deleteObjects: this.deleteObjects && ((names: readonly string[]) => this.deleteObjects!(names)),
      objectUri: (name: string) => this.objectUri(name),
      metadataFits: (metadata: Record<string, string>) => this.metadataFits(metadata),
      keepsHistory: this.keepsHistory(),
      owner: this.displayName,
    };
    return new ObjectProvenance(store, context, this.tablePrefix(context), layout, `data.${this.fileFormat().extension}`);
  }

  async readPartition(context: IOContext, partition: Partition | null): Promise<Row[]> {
    const name = this.objectName(context, partition);
    const bytes = await this.objectBytes(name);
    if (bytes === null) {
      const what = partition ? `partition ${partition.key} of asset` : "asset";
      throw new DataNotFoundError(`no data for ${what} "${context.asset.key}": ${this.objectUri(name)} does not exist`);
    }
    const schema = context.schema;
    return decoding(context, partition, this.objectUri(name), async () => {
      if (!partition) return this.fileFormat().deserialize(bytes, schema);
      const columns = partitionColumnsOf(context, partition);
      const names = new Set(columns.map((column) => column.name));
      let rows = await this.fileFormat().deserialize(bytes, schema && schema.filter((spec) => !names.has(spec.name)));
      for (const column of columns) rows = column.attach(rows, schema);
      return rows;
    });
  }

  /** Rows per partition key; an object that cannot be read is left out (see `partitionCounts`). */
  async partitionRowCounts(context: IOContext): Promise<Record<string, number>> {
    return (await this.partitionCounts(context)).counts;
  }

  /**
   * Rows per partition key, by the one count of every file store (partition-counts.ts): the
   * backend's listing of the table's partitions (`listPartitions`), objects without a count
   * downloaded and counted, those that cannot be read reported by key; and each counted one's
   * record, from the metadata its listing gave (no second HEAD of each object for them).
   */
  override async partitionCounts(context: IOContext): Promise<PartitionCounts> {
    const format = this.fileFormat();
    const tablePrefix = this.tablePrefix(context);
    const layout = HiveLayout.of(context, this.displayName);
    const where = { tablePrefix, layout, fileName: `data.${format.extension}`, range: windowRange(context, tablePrefix) };
    const listing = await this.listPartitions(where, async (bytes) => (await format.deserialize(bytes, null)).length);
    const counted = await countPartitions(listing, context.asset);
    if (counted.records) return counted;
    const listed = listing.partitions.filter(isListedObject).filter((p) => Object.hasOwn(counted.counts, p.key));
    return { ...counted, records: await this.objectProvenance(context).recordsOfListed(listed) };
  }

  /**
   * The partitions of a table, `{tablePrefix}{column}={key}/{fileName}`, with the counts the
   * store trusts, and how to count the others from their bytes with `count`. By default from one
   * listing of the objects' `row_count` metadata (`listObjects`), the others downloaded; a
   * backend may answer cheaper (the local folder: one folder level and its ledger).
   */
  protected listPartitions(where: TablePartitions, count: (bytes: Uint8Array) => Promise<number>): Promise<PartitionListing> {
    return listedObjects(
      this.listObjects(where.tablePrefix, where.range ?? undefined),
      where,
      async (name) => {
        const bytes = await this.objectBytes(name);
        return bytes === null ? null : count(bytes);
      },
      (name) => this.objectUri(name),
    );
  }

  /** `getObject`, checked (see `checkedBytes`). */
  private async objectBytes(name: string): Promise<Uint8Array | null> {
    return checkedBytes(await this.getObject(name), `${this.constructor.name}.getObject("${name}")`);
  }

  /** The packages of the format (hyparquet and hyparquet-writer for Parquet); a backend adds its SDK's. */
  override async loadDrivers(): Promise<void> {
    await this.fileFormat().loadPackages?.();
  }

  /** The format object `format` names. */
  protected fileFormat(): FileFormat {
    return typeof this.format === "object" && this.format !== null ? this.format : formatFor(this.format, this.displayName);
  }

  /** `[...prefix, dataset?, table]`: the folder of an asset's objects. */
  protected tablePath(context: IOContext): string[] {
    const prefix = String(this.prefix ?? "")
      .split("/")
      .filter((part) => part !== "");
    for (const part of prefix) safeSegment(part, "prefix segment", this.displayName);
    return [...prefix, ...tableSegments(context, this.displayName)];
  }

  /** The prefix of an asset's objects: `tablePath` joined, ending with "/". */
  protected tablePrefix(context: IOContext): string {
    return `${this.tablePath(context).join("/")}/`;
  }

  /**
   * Puts a partition's data object: `putObject`, unless a backend keeps more of where it is (the
   * local folder's ledger is the table's, keyed by the partition's folder, a multi partition's
   * nested folders included). `where.folder` is null for an unpartitioned asset.
   */
  protected putDataObject(
    name: string,
    payload: Uint8Array,
    contentType: string,
    metadata: Record<string, string>,
    _where: DataPlace,
  ): MaybePromise<void> {
    return this.putObject(name, payload, contentType, metadata);
  }
}
