// The materialization records of PartitionFiles' partitions (the provenance hooks of
// CSVDestination and FileDestination): which files to ask LocalFolder about, and one warning
// for records that cannot be read.
import { readdir } from "node:fs/promises";
import { sep } from "node:path";
import type { HistoryQuery } from "../../destination.js";
import type { IOContext } from "../../io-context.js";
import { safeSegment } from "../../paths.js";
import type { Materialization } from "../../provenance/materialization.js";
import { Ledger } from "./ledger.js";
import type { RecordedFile } from "./local-folder.js";
import type { PartitionFiles } from "./partition-files.js";

/** A stored file and its partition key ("" for an unpartitioned asset). */
type KeyedFile = RecordedFile & { readonly key: string };

/**
 * The current record of each stored partition of the context's window (every stored partition
 * without one; "" for an unpartitioned asset). A record that cannot be read is left out, with one
 * warning naming the ledgers holding such records.
 */
export async function partitionMaterializations(files: PartitionFiles, context: IOContext): Promise<Record<string, Materialization>> {
  const wanted = await storedFiles(files, context, context.window?.keys);
  const found = await files.local.materializations(wanted);
  warnDamaged(context, files, found.damaged);
  const records: Record<string, Materialization> = Object.create(null);
  for (const file of wanted) {
    const record = found.records.get(file.path);
    if (record) records[file.key] = record;
  }
  return records;
}

/** The records of past writes of the asset, or of one partition, newest first, at most `query.limit`. */
export async function partitionHistory(files: PartitionFiles, context: IOContext, query: HistoryQuery): Promise<Materialization[]> {
  const wanted =
    query.partition === undefined
      ? await storedFiles(files, context, undefined)
      : [{ key: query.partition?.key ?? "", ...files.placeOf(context, query.partition) }];
  const found = await files.local.materializationHistory(wanted);
  warnDamaged(context, files, found.damaged);
  return found.records.slice(0, Math.max(0, query.limit));
}

/**
 * The files of the partition folders of the table (those of `keys` only, when given), from one
 * listing: a window of ten years of days costs a listing, not 3,650 paths made and checked; the
 * one file of an unpartitioned asset.
 */
async function storedFiles(files: PartitionFiles, context: IOContext, keys: readonly string[] | undefined): Promise<KeyedFile[]> {
  if (!context.asset.partitioning) return [{ key: "", ...files.placeOf(context, null) }];
  const wanted = keys ? new Set(keys) : null;
  const table = files.tableDir(context);
  const prefix = `${safeSegment(context.partitionColumn(), "partition column", files.owner)}=`;
  const names = await readdir(table).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? [] : Promise.reject(error)));
  const ledger = Ledger.of(table, files.fileName);
  return names
    .filter((name) => name.startsWith(prefix) && (!wanted || wanted.has(name.slice(prefix.length))))
    .sort()
    .map((name) => ({ key: name.slice(prefix.length), path: `${table}${sep}${name}${sep}${files.fileName}`, ledger, folder: name }));
}

/** One warning for every record of the call that could not be read, naming where they are. */
function warnDamaged(context: IOContext, files: PartitionFiles, damaged: readonly string[]): void {
  if (damaged.length === 0) return;
  context.logger.warn(
    `${files.owner}: asset "${context.asset.key}": a materialization record in ${damaged.join(", ")} is damaged or was edited by hand; it is left out (provenance unknown)`,
  );
}
