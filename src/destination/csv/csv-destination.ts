import { createReadStream } from "node:fs";
import { parse as parseCsv } from "csv-parse";
import { parse as parseCsvSync } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { SchemaError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import { TableData } from "../../representation/index.js";
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
    await this.files.write(context, partition, csvChunks(rows, header, context.asset.key), rows.length);
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

function* csvChunks(rows: readonly Record<string, unknown>[], header: readonly string[], assetKey: string): Generator<string> {
  if (header.length === 0) return;
  const known = new Set(header);
  const cast = { boolean: castText, date: castText, number: castText, bigint: castText, object: castText, string: (v: string) => v };
  for (let start = 0; start < rows.length || start === 0; start += BATCH_ROWS) {
    const batch = rows.slice(start, start + BATCH_ROWS);
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!;
      for (const key in row) {
        if (!known.has(key)) {
          throw new SchemaError(`asset "${assetKey}": row ${start + i} has the column "${key}", which is not in the CSV header (${header.join(", ")}) taken from the first row`);
        }
      }
    }
    yield stringify(batch, { header: start === 0, columns: [...header], cast });
  }
}

function castText(value: unknown): string {
  return toText(value);
}

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
