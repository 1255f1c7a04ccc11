import { createReadStream } from "node:fs";
import { SchemaError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import { TableData, type Row } from "../../representation/index.js";
import { numberText, toText } from "../../schema/index.js";
import { fieldReader } from "../../schema/row-shaper.js";
import { Destination } from "../destination.js";
import { PartitionFiles } from "../files/partition-files.js";
import type { IOContext } from "../io-context.js";
import { jsonText, utf8Text } from "../unstorable.js";
import { csvField, csvLine, csvParseStream, parseCsvRows } from "./csv-text.js";

// Rows are serialised in batches so that a huge partition never becomes one giant string.
const BATCH_ROWS = 1_000;

/** Options of `CSVDestination`. */
export interface CSVDestinationOptions {
  /** The folder holding every dataset's tables. */
  readonly basePath: string;
}

/**
 * CSV files on the local filesystem, one folder per asset and one file per partition:
 * `{basePath}/{dataset}/{table}/data.csv` and `{basePath}/{dataset}/{table}/{column}={key}/data.csv`.
 * Reads restore declared types from the effective schema. Null is an empty field, the empty
 * string an empty quoted one (`""`).
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
    await this.files.write(context, partition, csvChunks(rows, header, context.asset.key, true, 0, jsonFields(context)), rows.length);
  }

  /** Streams a partition to its file batch by batch: memory stays flat however many rows arrive. */
  override async writePartitionStream(context: IOContext, partition: Partition | null, batches: AsyncIterable<Row[]>): Promise<void> {
    let rows = 0;
    const assetKey = context.asset.key;
    const json = jsonFields(context);
    async function* chunks(): AsyncGenerator<string> {
      let header: string[] | null = null;
      for await (const batch of batches) {
        if (batch.length === 0) continue;
        header ??= headerOf(batch, context);
        yield* csvChunks(batch, header, assetKey, rows === 0, rows, json);
        rows += batch.length;
      }
      if (header === null) yield* csvChunks([], headerOf([], context), assetKey, true, 0, json);
    }
    await this.files.write(context, partition, chunks(), () => rows);
  }

  async readPartition(context: IOContext, partition: Partition | null): Promise<unknown> {
    return parseCsvRows(await this.files.read(context, partition), context.schema);
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

/** The schema's json fields, whose every value is written as JSON text. */
function jsonFields(context: IOContext): ReadonlySet<string> {
  return new Set(context.schema?.filter((field) => field.type === "json").map((field) => field.name));
}

/**
 * CSV text in batches; `withHeader` starts it with the header line, `offset` numbers rows in
 * messages, `json` names the json fields.
 */
function* csvChunks(rows: readonly Record<string, unknown>[], header: readonly string[], assetKey: string, withHeader: boolean, offset: number, json: ReadonlySet<string>): Generator<string> {
  if (header.length === 0) return;
  const known = new Set(header);
  const reads = header.map(fieldReader);
  const cells = header.map((name) => cellWriter(name, json.has(name)));
  const width = header.length;
  if (withHeader) yield csvLine(header);
  for (let start = 0; start < rows.length; start += BATCH_ROWS) {
    const end = Math.min(rows.length, start + BATCH_ROWS);
    let text = "";
    for (let i = start; i < end; i++) {
      const row = rows[i]!;
      for (const key in row) {
        if (!known.has(key)) {
          throw new SchemaError(`asset "${assetKey}": row ${offset + i} has the column "${key}", which is not in the CSV header (${header.join(", ")}) taken from the first row`);
        }
      }
      let line = csvField(cells[0]!(reads[0]!(row), offset + i));
      for (let j = 1; j < width; j++) line += `,${csvField(cells[j]!(reads[j]!(row), offset + i))}`;
      text += `${line}\n`;
    }
    yield text;
  }
}

/** A column's value as its field's text (null: an empty field); `row` names it in a refusal. */
type CellWriter = (value: unknown, row: number) => string | null;

/**
 * The writer of one column's values: each type's text form (the one reconcileRows reads back),
 * in the one pass that writes it. A string is refused when UTF-8 cannot hold it; an object (a
 * json value) is JSON text, refused where that text would change it; in a json field a string
 * or a number is JSON text too, so "123" reads back as text and NaN is refused.
 */
function cellWriter(column: string, json: boolean): CellWriter {
  return (value, row) => {
    switch (typeof value) {
      case "string":
        return json ? jsonText(value, "CSV", column, row) : utf8Text(value, "CSV", column, row);
      case "number":
        return json ? jsonText(value, "CSV", column, row) : numberText(value);
      case "bigint":
        return value.toString();
      case "boolean":
        return value ? "true" : "false";
      case "undefined":
        return null;
      case "object":
        if (value === null) return null;
        return value instanceof Date ? toText(value) : jsonText(value, "CSV", column, row);
      default:
        // A function or a symbol: toText refuses it, naming the field.
        return toText(value, { name: column, type: "string", nullable: true });
    }
  };
}

/** Counts a CSV file's records without keeping them (quoted newlines are part of one record). */
async function countRecords(path: string): Promise<number> {
  let records = 0;
  const parser = createReadStream(path).pipe(csvParseStream().parse({ bom: true }));
  for await (const _record of parser) records++;
  return Math.max(0, records - 1);
}

function describeKind(data: unknown): string {
  if (data === null) return "null";
  if (typeof data === "object") return (data as object).constructor?.name ?? "object";
  return typeof data;
}
