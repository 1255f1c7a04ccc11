import { type FileHandle, open, readdir } from "node:fs/promises";
import type { HiveLayout } from "../../hive.js";
import { sep } from "node:path";
import type { ListedPartition, PartitionListing } from "../partition-counts.js";
import { fileIdentity } from "./file-identity.js";
import { Ledger, parseCount } from "./ledger.js";
import { changedOutside, recognizeCopies } from "./ledger-copies.js";
import { currentEntry, RECORD_KEY, recordEntry } from "./ledger-lines.js";
import { recordOf } from "./ledger-records.js";
import { type LegacyCount, legacyCount, readLegacyIndex } from "./legacy-counts.js";
import { fileIdentities } from "./stat-files.js";

/** Counts the rows of an open data file (read from its start; the caller closes it). */
export type Recount = (file: FileHandle) => Promise<number>;

// Reading many small files at once hides per-file latency; a bound keeps descriptors in check.
const PARALLEL_READS = 64;

/**
 * The partitions of a table folder, `{table}/{column}={key}/{fileName}` (or a multi
 * partitioning's nested folders, `{table}/date=.../region=.../{fileName}`, whose ledger lines
 * name the folder `date=.../region=...`), as the local folder store answers them: a listing of
 * the table's folder, a stat of each partition's file and one read of the table's ledger. A
 * ledger line is trusted only while the file is the one it names (see file-identity.ts); any
 * other file is counted from what older versions recorded for it or by `count`, and the count
 * appended to the ledger, so a file edited by hand or replaced by a racing writer is still
 * counted right. Every folder named `{column}=...` is a partition,
 * whatever its key holds (`.tmp-` included: temporary files are files, never these folders).
 * Partitions come sorted by name: keys sort chronologically (or as declared) as strings, so the
 * counts need no sort of a table of 100,000 entries afterwards.
 */
export async function listFolderPartitions(table: string, layout: HiveLayout, fileName: string, count: Recount): Promise<PartitionListing> {
  const ledger = Ledger.of(table, fileName);
  const [listed, firstRead] = await Promise.all([partitionFolders(table, layout), ledger.read()]);
  if (listed === null) return { partitions: [], parallel: PARALLEL_READS, recount: () => Promise.resolve(null) };
  const names = listed.map((folder) => folder.name);
  // Joined by hand: path.join normalizes every path it makes, and that took 0.2 s of a count of
  // 100,000 partitions; a readdir entry and the file name hold no separator to normalize.
  const paths = listed.map((folder) => `${table}${sep}${folder.path}${sep}${fileName}`);
  let identities = await fileIdentities(paths);
  let journal = firstRead;
  // Files no line names: copies (a copied data folder) are known by their bytes, once (ledger-copies.ts).
  const unnamed = names.flatMap((name, i) => (identities[i] && !currentEntry(journal, name, identities[i]!) ? [i] : []));
  if (
    await recognizeCopies(
      ledger,
      journal,
      unnamed.map((i) => ({ folder: names[i]!, path: paths[i]! })),
    )
  ) {
    journal = await ledger.read();
    identities = await fileIdentities(paths);
  }
  const partitions: ListedPartition[] = [];
  // Each partition's folder, the name its ledger lines carry.
  const folders = new Map<ListedPartition, string>();
  // The records come with the counts, from the lines read for them (see currentRecords): unless
  // one cannot be read, which `materializations` then reports.
  let records = true;
  for (let i = 0; i < names.length; i++) {
    const identity = identities[i];
    if (!identity) continue;
    // The newest line naming this very file (see currentEntry): a line of a write that never landed names another.
    const entry = currentEntry(journal, names[i]!, identity);
    const rows = entry ? parseCount(entry.metadata["row_count"]) : null;
    const line = entry?.metadata[RECORD_KEY] !== undefined ? entry : recordEntry(journal, names[i]!, identity);
    const record = line ? recordOf(line) : null;
    // A record that cannot be read, or a file changed outside interloper: `materializations` says so.
    if ((line && !record) || (!line && changedOutside(journal, names[i]!, identity))) records = false;
    const partition = { key: listed[i]!.key, uri: paths[i]!, rows, record };
    folders.set(partition, names[i]!);
    partitions.push(partition);
  }
  // Read only when some file has no current line.
  let legacy: Promise<Record<string, LegacyCount>> | undefined;
  return {
    partitions,
    records: records && journal.rejected === undefined,
    parallel: PARALLEL_READS,
    recount: (partition) => {
      legacy ??= layout.depth === 1 ? readLegacyIndex(table, fileName, layout.columns[0]!) : Promise.resolve({});
      const folder = folders.get(partition)!;
      return legacy.then((index) => countStale(ledger, folder, partition, index[partition.key], count));
    },
    settle: async () => {
      await ledger.compactIfWorthIt(
        journal.lines,
        names.filter((_, i) => identities[i] !== null),
      );
    },
  };
}

/**
 * The count of a file the ledger has no current line for: what an older version recorded for
 * this very file, or a recount (null: the file is gone since the listing). The file is read
 * through one handle, which names the file counted and holds it open until its ledger line is
 * appended (see file-identity.ts): whatever replaces the file meanwhile, the line describes what
 * was counted.
 */
async function countStale(
  ledger: Ledger,
  /** The partition's folder relative to the table, its ledger lines' folder. */
  folder: string,
  partition: ListedPartition,
  indexed: LegacyCount | undefined,
  count: Recount,
): Promise<number | null> {
  const path = partition.uri;
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    const file = fileIdentity(await handle.stat({ bigint: true }));
    const rows = (await legacyCount(path, file, indexed)) ?? (await count(handle));
    await ledger.append([{ folder, file, metadata: { row_count: String(rows) } }]);
    return rows;
  } finally {
    await handle.close();
  }
}

/** A partition folder of a table: its name in the ledger (`date=2026-01-05/region=eu`), its relative path, its key. */
export interface PartitionFolder {
  readonly name: string;
  readonly path: string;
  readonly key: string;
}

/**
 * The partition folders of a table folder, one level per column of the layout (a multi
 * partitioning's nested folders walked level by level), sorted by name at each level: keys sort
 * chronologically (or as declared) as strings, so the counts need no sort afterwards. Null when
 * the table folder does not exist.
 */
export async function partitionFolders(table: string, layout: HiveLayout): Promise<PartitionFolder[] | null> {
  let level: string[][] | null = null;
  for (let depth = 0; depth < layout.depth; depth++) {
    const head = `${layout.columns[depth]}=`;
    const parents: string[][] = level ?? [[]];
    const next: string[][] = [];
    for (const parent of parents) {
      const names = await readdir(parent.length === 0 ? table : `${table}${sep}${parent.join(sep)}`).catch(
        (error: NodeJS.ErrnoException) =>
          error.code === "ENOENT" || (depth > 0 && error.code === "ENOTDIR") ? null : Promise.reject(error),
      );
      if (names === null) {
        if (depth === 0) return null;
        continue;
      }
      for (const name of names.filter((n) => n.startsWith(head) && n.length > head.length).sort()) next.push([...parent, name]);
    }
    level = next;
  }
  return level!.map((names) => ({ name: names.join("/"), path: names.join(sep), key: layout.keyOf(names)! }));
}
