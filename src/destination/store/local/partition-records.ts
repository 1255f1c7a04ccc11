// The materialization records of PartitionFiles' partitions (the provenance hooks of
// CSVDestination and FileDestination): which files to ask LocalFolder about, and one warning
// for records that cannot be read.
import { sep } from "node:path";
import type { HistoryQuery } from "../../destination.js";
import type { IOContext } from "../../io-context.js";
import type { PartitionWindow } from "../../../partitioning/index.js";
import type { Materialization } from "../../provenance/materialization.js";
import { partitionFolders } from "./folder-partitions.js";
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
  const wanted = await storedFiles(files, context, context.window);
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
