import { readdir, rm, rmdir } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { ConfigError } from "../../../errors.js";
import type { DropTarget } from "../../destination.js";

/**
 * What of a table's folder is the asset's own: its files (data, count records, temporaries), and
 * in each partition folder its own files; `partitions` counts the folders holding a data file.
 */
interface Owned {
  readonly files: readonly string[];
  /** Partition folders, each with the asset's files in it. */
  readonly folders: ReadonlyMap<string, readonly string[]>;
  readonly partitions: number;
}

/**
 * Whether a file of a table (or partition) folder is the asset's: the data file, or a hidden
 * file named after it: the table's ledger `.data.csv.ledger` (and its compaction lock), the
 * records of older versions (`.data.csv.rows.json` beside each file, the table's index
 * `.data.csv.date.rows-index.json`), and the temporary files of any, `.data.csv.tmp-...`,
 * `..data.csv.ledger.tmp-...`.
 */
function ownFile(name: string, fileName: string): boolean {
  return name === fileName || name.startsWith(`.${fileName}`) || name.startsWith(`..${fileName}`);
}

/**
 * The asset's entries in its table folder. A table folder may hold another asset's folder (an
 * asset `shop` without dataset beside the dataset `shop`), so only what is certainly the
 * asset's counts: its own files, and in folders named `{column}={key}` its own files (a
 * partition column renamed since still has its folders found). Anything else in a partition
 * folder (a `.DS_Store`, a README) stays, but neither keeps the partition's data nor makes a
 * folder without a data file count as a partition. Null when the folder does not exist.
 */
async function ownedEntries(table: string, fileName: string): Promise<Owned | null> {
  const entries = await readdir(table, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? null : Promise.reject(error),
  );
  if (entries === null) return null;
  const files: string[] = [];
  const folders = new Map<string, string[]>();
  let partitions = 0;
  for (const entry of entries) {
    if (entry.isFile() && ownFile(entry.name, fileName)) files.push(entry.name);
    else if (entry.isDirectory() && entry.name.includes("=")) {
      // A folder removed meanwhile (a racing drop) holds nothing.
      const inside = await readdir(join(table, entry.name), { withFileTypes: true }).catch(() => []);
      const own = inside.filter((file) => file.isFile() && ownFile(file.name, fileName)).map((file) => file.name);
      if (own.length === 0) continue;
      folders.set(entry.name, own);
      if (own.includes(fileName)) partitions++;
    }
  }
  return { files, folders, partitions };
}

/** `table` is a folder strictly below `base`, or ConfigError: a drop never leaves the base folder. */
function checkInside(base: string, table: string, owner: string): void {
  const path = relative(base, table);
  if (path === "" || path === ".." || path.startsWith(`..${"/"}`) || path.startsWith("..\\") || isAbsolute(path)) {
    throw new ConfigError(`${owner}: refusing to drop ${table}: it is not a folder inside ${base}`);
  }
}

/**
 * Removes the asset's entries from its table folder (see `ownedEntries`), then each folder left
 * empty, the table's included. Anything else there, another asset's folder or a stranger's
 * file, stays (and keeps its folder).
 */
export async function dropTableFolder(base: string, table: string, fileName: string, owner: string): Promise<void> {
  checkInside(base, table, owner);
  const owned = await ownedEntries(table, fileName);
  if (owned === null) return;
  for (const [folder, files] of owned.folders) {
    for (const file of files) await rm(join(table, folder, file), { force: true });
    await removeIfEmpty(join(table, folder));
  }
  for (const file of owned.files) await rm(join(table, file), { force: true });
  await removeIfEmpty(table);
}

/** Removes a folder unless something is (still, or again) in it. */
async function removeIfEmpty(folder: string): Promise<void> {
  await rmdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST" && error.code !== "ENOENT") throw error;
  });
}

/** What `dropTableFolder` would remove: the folder, and how many partition folders it holds. */
export async function describeTableFolder(
  base: string,
  table: string,
  fileName: string,
  owner: string,
  partitioned: boolean,
): Promise<DropTarget> {
  checkInside(base, table, owner);
  const owned = await ownedEntries(table, fileName);
  const exists = owned !== null && (owned.files.length > 0 || owned.partitions > 0);
  return { what: `folder ${table}`, partitions: partitioned ? (owned?.partitions ?? 0) : null, exists };
}
