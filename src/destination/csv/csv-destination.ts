import { createReadStream } from "node:fs";
import { parse as parseCsv } from "csv-parse";
import { parse as parseCsvSync } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { SchemaError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import { TableData, type Row } from "../../representation/index.js";
import { reconcileRows, toText } from "../../schema/index.js";
import { Destination } from "../destination.js";
import { PartitionFiles } from "../files/partition-files.js";
import type { IOContext } from "../io-context.js";

// Rows are serialised in batches so that a huge partition never becomes one giant string.
const BATCH_ROWS = 20_000;

/** Options of `CSVDestination`. */
export interface CSVDestinationOptions {
  /** The folder holding every dataset's tables. */
  readonly basePath: string;
}

/**
 * CSV files on the local filesystem, one folder per asset and one file per partition:
 * `{basePath}/{dataset}/{table}/data.csv` and `{basePath}/{dataset}/{table}/{column}={key}/data.csv`.
 * Reads restore declared types from the effective schema.
 */
export class CSVDestination extends Destination {
  static override destinationName = "CSV files";
  readonly basePath: string;
  private readonly files: PartitionFiles;

  constructor(options: CSVDestinationOptions) {
    super();
    this.basePath = options?.basePath ?? "";
    this.files = new PartitionFiles(this.basePath, "data.csv", "CSVDestination");
  }

  /** The file a partition lives in (null: the whole of an unpartitioned asset). */
  pathOf(context: IOContext, partition: Partition | null): string {
    return this.files.pathOf(context, partition);
  }

  async writePartition(context: IOContext, partition: Partition | null, data: unknown): Promise<void> {
    const table = TableData.from(data);
    if (!table) {
      throw new SchemaError(`CSVDestination stores tables, but asset "${context.asset.key}" produced a ${describeKind(data)}; use FileDestination for other values`);
    }
    const rows = table.rows;
    const header = headerOf(rows, context);
    await this.files.write(context, partition, csvChunks(rows, header, context.asset.key, true, 0), rows.length);
  }

  /** Streams a partition to its file batch by batch: memory stays flat however many rows arrive. */
  override async writePartitionStream(context: IOContext, partition: Partition | null, batches: AsyncIterable<Row[]>): Promise<void> {
    let rows = 0;
    const assetKey = context.asset.key;
    async function* chunks(): AsyncGenerator<string> {
      let header: string[] | null = null;
      for await (const batch of batches) {
        if (batch.length === 0) continue;
        header ??= headerOf(batch, context);
        yield* csvChunks(batch, header, assetKey, rows === 0, rows);
        rows += batch.length;
      }
      if (header === null) yield* csvChunks([], headerOf([], context), assetKey, true, 0);
    }
    await this.files.write(context, partition, chunks(), () => rows);
  }

  async readPartition(context: IOContext, partition: Partition | null): Promise<unknown> {
    const bytes = await this.files.read(context, partition);
    const rows = parseCsvSync(bytes, { columns: true, bom: true }) as Record<string, string>[];
    return context.schema ? reconcileRows(rows, context.schema) : rows;
  }

  partitionRowCounts(context: IOContext): Promise<Record<string, number>> {
    return this.files.rowCounts(context, countRecords);
  }
}

/** The header: the first row's keys, or the schema's fields for a partition with no rows. */
function headerOf(rows: readonly Record<string, unknown>[], context: IOContext): string[] {
  if (rows.length > 0) return Object.keys(rows[0]!);
  return context.schema ? context.schema.map((field) => field.name) : [];
}

/** CSV text in batches; `withHeader` starts it with the header line, `offset` numbers rows in messages. */
function* csvChunks(rows: readonly Record<string, unknown>[], header: readonly string[], assetKey: string, withHeader: boolean, offset: number): Generator<string> {
  if (header.length === 0) return;
  const known = new Set(header);
  const cast = CASTS;
  for (let start = 0; start < rows.length || start === 0; start += BATCH_ROWS) {
    const batch = rows.slice(start, start + BATCH_ROWS);
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!;
      for (const key in row) {
        if (!known.has(key)) {
          throw new SchemaError(`asset "${assetKey}": row ${offset + start + i} has the column "${key}", which is not in the CSV header (${header.join(", ")}) taken from the first row`);
        }
      }
    }
    yield stringify(batch, { header: withHeader && start === 0, columns: [...header], cast });
  }
}

// csv-stringify's own casts would write booleans as "1"/"" and Dates as epoch numbers; these
// write each type's text form (the one reconcileRows reads back) without a general dispatch.
const CASTS = {
  boolean: (value: boolean) => (value ? "true" : "false"),
  number: (value: number) => (value === 0 && 1 / value < 0 ? "-0" : String(value)),
  bigint: (value: bigint) => value.toString(),
  date: (value: Date) => toText(value),
  object: (value: object) => toText(value),
};

/** Counts a CSV file's records without keeping them (quoted newlines are part of one record). */
async function countRecords(path: string): Promise<number> {
  let records = 0;
  const parser = createReadStream(path).pipe(parseCsv({ bom: true }));
  for await (const _record of parser) records++;
  return Math.max(0, records - 1);
}

function describeKind(data: unknown): string {
  if (data === null) return "null";
  if (typeof data === "object") return (data as object).constructor?.name ?? "object";
  return typeof data;
}
