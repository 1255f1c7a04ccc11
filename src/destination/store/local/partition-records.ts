// The materialization records of PartitionFiles' partitions (the provenance hooks of
// CSVDestination and FileDestination): which files to ask LocalFolder about, and one warning
// for records that cannot be read.
import { sep } from "node:path";
import type { HistoryQuery } from "../../destination.js";
import type { IOContext } from "../../io-context.js";
import type { PartitionWindow } from "../../../partitioning/index.js";
import { ForeignRecords } from "../../provenance/foreign-records.js";
import type { Materialization } from "../../provenance/materialization.js";
import { partitionFolders } from "./folder-partitions.js";
import { Ledger } from "./ledger.js";
import type { RecordedFile } from "./local-folder.js";
import type { PartitionFiles } from "./partition-files.js";

/** A stored file and its partition key ("" for an unpartitioned asset). */
export type KeyedFile = RecordedFile & { readonly key: string };

/**
 * The current record of each stored partition of the context's window (every stored partition
 * without one; "" for an unpartitioned asset). A record that cannot be read is left out, with one
 * warning naming the ledgers holding such records.
 */
export async function partitionMaterializations(files: PartitionFiles, context: IOContext): Promise<Record<string, Materialization>> {
  const wanted = await storedFiles(files, context, context.window);
  const found = await files.local.materializations(wanted);
  warnDamaged(context, files, found.damaged);
  warnChanged(context, files.owner, wanted, found.changed);
  const foreign = new ForeignRecords(context.asset.key);
  const records: Record<string, Materialization> = Object.create(null);
  for (const file of wanted) {
    const record = found.records.get(file.path);
    if (record && foreign.owns(record, partitionOf(context, file.key))) records[file.key] = record;
  }
  foreign.warn(context.logger, files.owner, ledgerNames(wanted));
  return records;
}

/** The records of past writes of the asset, or of one partition, newest first, at most `query.limit`. */
export async function partitionHistory(files: PartitionFiles, context: IOContext, query: HistoryQuery): Promise<Materialization[]> {
  const wanted =
    query.partition === undefined
      ? await storedFiles(files, context, undefined)
      : [{ key: query.partition?.key ?? "", ...files.placeOf(context, query.partition) }];
  const foreign = new ForeignRecords(context.asset.key);
  const found = await files.local.materializationHistory(wanted, (file, record) =>
    foreign.owns(record, partitionOf(context, (file as KeyedFile).key)),
  );
  warnDamaged(context, files, found.damaged);
  warnChanged(context, files.owner, wanted, found.changed);
  foreign.warn(context.logger, files.owner, ledgerNames(wanted));
  return found.records.slice(0, Math.max(0, query.limit));
}

/** The partition a stored file's key names in records: null for the unpartitioned asset's (key ""). */
function partitionOf(context: IOContext, key: string): string | null {
  return context.asset.partitioning ? key : null;
}

/** The ledgers of the files, as a warning names them. */
function ledgerNames(files: readonly RecordedFile[]): string {
  return [...new Set(files.map((file) => file.ledger.path))].join(", ");
}

/**
 * Up to this many partitions, a window's files are named directly (each then stat'ed, as a listed
 * one is) instead of found by listing the table: a run reads an upstream partition or a few at a
 * time, and a listing costs a readdir of every partition folder, which made each upstream read
 * of a run cost several plain reads (issue 41, item 10).
 */
const NAMED_AT_MOST = 256;

/**
 * The files of the partition folders of the table (those of `window` only, when given), from one
 * listing (a level per dimension of a multi partitioning): a window of ten years of days costs a
 * listing, not 3,650 paths made and checked; a window of a few partitions, their paths; the one
 * file of an unpartitioned asset.
 */
async function storedFiles(files: PartitionFiles, context: IOContext, window: PartitionWindow | null | undefined): Promise<KeyedFile[]> {
  if (!context.asset.partitioning) return [{ key: "", ...files.placeOf(context, null) }];
  const keys = window?.keys;
  if (window && keys!.length <= NAMED_AT_MOST)
    return window.partitions.map((partition) => ({ key: partition.key, ...files.placeOf(context, partition) }));
  const wanted = keys ? new Set(keys) : null;
  const table = files.tableDir(context);
  const folders = (await partitionFolders(table, files.layout(context))) ?? [];
  const ledger = Ledger.of(table, files.fileName);
  return folders
    .filter((folder) => !wanted || wanted.has(folder.key))
    .map((folder) => ({ key: folder.key, path: `${table}${sep}${folder.path}${sep}${files.fileName}`, ledger, folder: folder.name }));
}

/** One warning for every record of the call that could not be read, naming where they are. */
function warnDamaged(context: IOContext, files: PartitionFiles, damaged: readonly string[]): void {
  if (damaged.length === 0) return;
  context.logger.warn(
    `${files.owner}: asset "${context.asset.key}": a materialization record in ${damaged.join(", ")} is damaged or was edited by hand; it is left out (provenance unknown)`,
  );
}

/**
 * One warning for the files of the call changed outside interloper (see `changedOutside` in
 * ledger-copies.ts), naming their partitions (the first few) and the first file.
 */
export function warnChanged(context: IOContext, owner: string, files: readonly KeyedFile[], changed: readonly string[]): void {
  if (changed.length === 0) return;
  const paths = new Set(changed);
  const keys = files.filter((file) => paths.has(file.path)).map((file) => file.key || "(whole)");
  const shown = keys.slice(0, 5).join(", ") + (keys.length > 5 ? ` and ${keys.length - 5} more` : "");
  context.logger.warn(
    `${owner}: asset "${context.asset.key}": ${keys.length === 1 ? "partition" : "partitions"} ${shown} changed outside interloper (${changed[0]} matches none of its records); provenance unknown until written again`,
  );
}
