import type { FileHandle } from "node:fs/promises";
import { SchemaError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import { TableData, type Row } from "../../representation/index.js";
import { describeValue } from "../../text/describe-value.js";
import { FileTableDestination, type FileTableDestinationOptions } from "./file-table-destination.js";
import type { IOContext } from "../io-context.js";
import { recycleChunks } from "../byte-chunks.js";
import { countCsvRecords, encodeCsv } from "../format/csv.js";
import { CsvEncoder } from "../format/csv-encoder.js";
import { parseCsvRows } from "../format/csv-text.js";

// A partition given as rows is encoded whole before its file is opened when its CSV takes at most
// this much; a larger one is encoded as the file takes it, so that it is never held twice.
const EAGER_BYTES = 32 * 1024 * 1024;

/** Options of `CSVDestination`: the folder and whether writes are synced (see `FileTableDestinationOptions`). */
export type CSVDestinationOptions = FileTableDestinationOptions;

/**
 * CSV files on the local filesystem, one folder per asset and one file per partition (the local
 * folder store with the CSV format; see file-table-destination.ts for why it is not a
 * LocalObjectStoreDestination with `format: "csv"`):
 * `{basePath}/{dataset}/{table}/data.csv` and `{basePath}/{dataset}/{table}/{column}={key}/data.csv`.
 * Reads restore declared types from the effective schema. Null is an empty field, the empty
 * string an empty quoted one (`""`).
 */
export class CSVDestination extends FileTableDestination {
  static override destinationName = "CSV files";

  constructor(options: CSVDestinationOptions) {
    super(options, "data.csv", "CSVDestination");
  }

  async writePartition(context: IOContext, partition: Partition | null, data: unknown): Promise<void> {
    let table = TableData.from(data);
    if (!table) {
      throw new SchemaError(
        `CSVDestination stores tables, but asset "${context.asset.key}" produced ${describeValue(data)}; use FileDestination for other values`,
      );
    }
    let rows: readonly Row[] | null = table.rows;
    const count = rows.length;
    const encoder = new CsvEncoder(headerOf(rows, context), context.asset.key, context.schema);
    const next = encoder.encode(rows, 0, 0, EAGER_BYTES);
    if (next < count) {
      // A partition too large to hold as bytes too is encoded as the file takes it.
      await this.files.write(context, partition, encoder.rest(rows, next), count);
      return;
    }
    const chunks = encoder.bytes.finish();
    // Encoded, the rows are no longer needed, but V8 keeps every variable of an async function
    // alive across an await. Dropped before the first I/O wait, they die young, where collecting
    // them is nearly free; held through the write, the rows of every partition in flight would
    // survive into the old generation, which then grows to several times what is live.
    // eslint-disable-next-line no-useless-assignment -- dropped for the collector, as said above
    data = table = rows = null;
    try {
      await this.files.write(context, partition, chunks, count);
    } finally {
      recycleChunks(chunks);
    }
  }

  /** Streams a partition to its file batch by batch: memory stays flat however many rows arrive. */
  override async writePartitionStream(context: IOContext, partition: Partition | null, batches: AsyncIterable<Row[]>): Promise<void> {
    const assetKey = context.asset.key;
    const schema = context.schema;
    const csv = encodeCsv(batches, (first) => new CsvEncoder(headerOf(first, context), assetKey, schema));
    await this.files.write(context, partition, csv.chunks, csv.rows);
  }

  async readPartition(context: IOContext, partition: Partition | null): Promise<unknown> {
    return this.files.decode(context, partition, (bytes) => parseCsvRows(bytes, context.schema));
  }

  /**
   * A window's rows, read into one array as its partitions are read: the base's read holds each
   * partition's rows, checks they are rows and copies them all into one table. A subclass with its
   * own readPartition keeps the base's read of what that gives.
   */
  override async read(context: IOContext): Promise<unknown> {
    if (this.readPartition !== CSVDestination.prototype.readPartition) return super.read(context);
    const rows: Row[] = [];
    for (const partition of context.partitions)
      await this.files.decode(context, partition, (bytes) => parseCsvRows(bytes, context.schema, rows));
    return rows;
  }

  protected override countRows(file: FileHandle): Promise<number> {
    return countCsvRecords(file);
  }
}

/** The header: the first row's keys, or the schema's fields for a partition with no rows. */
function headerOf(rows: readonly Record<string, unknown>[], context: IOContext): string[] {
  if (rows.length > 0) return Object.keys(rows[0]!);
  return context.schema ? context.schema.map((field) => field.name) : [];
}
