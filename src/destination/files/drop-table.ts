import { readdir, rm, rmdir } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { ConfigError } from "../../errors.js";
import type { DropTarget } from "../destination.js";

/** What of a table's folder is the asset's own: its files (data, count records, temporaries) and its partition folders. */
interface Owned {
  readonly files: readonly string[];
  readonly partitions: readonly string[];
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
 * asset's counts: its own files, and folders named `{column}={key}` that hold nothing but
 * partition files; a partition column renamed since still has its folders found. Null when
 * the folder does not exist.
 */
async function ownedEntries(table: string, fileName: string): Promise<Owned | null> {
  const entries = await readdir(table, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? null : Promise.reject(error),
  );
  if (entries === null) return null;
  const files: string[] = [];
  const partitions: string[] = [];
  for (const entry of entries) {
    if (entry.isFile() && ownFile(entry.name, fileName)) files.push(entry.name);
    else if (entry.isDirectory() && entry.name.includes("=")) {
      const inside = await readdir(join(table, entry.name), { withFileTypes: true });
      if (inside.every((file) => file.isFile() && ownFile(file.name, fileName))) partitions.push(entry.name);
    }
  }
  return { files, partitions };
}

/** `table` is a folder strictly below `base`, or ConfigError: a drop never leaves the base folder. */
function checkInside(base: string, table: string, owner: string): void {
  const path = relative(base, table);
  if (path === "" || path === ".." || path.startsWith(`..${"/"}`) || path.startsWith("..\\") || isAbsolute(path)) {
    throw new ConfigError(`${owner}: refusing to drop ${table}: it is not a folder inside ${base}`);
  }
}

/**
 * Removes the asset's entries from its table folder (see `ownedEntries`), then the folder when
 * nothing else is left in it. Anything else there, another asset's folder, stays.
 */
export async function dropTableFolder(base: string, table: string, fileName: string, owner: string): Promise<void> {
  checkInside(base, table, owner);
  const owned = await ownedEntries(table, fileName);
  if (owned === null) return;
  for (const folder of owned.partitions) await rm(join(table, folder), { recursive: true, force: true });
  for (const file of owned.files) await rm(join(table, file), { force: true });
  await rmdir(table).catch((error: NodeJS.ErrnoException) => {
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
  const exists = owned !== null && (owned.files.length > 0 || owned.partitions.length > 0);
  return { what: `folder ${table}`, partitions: partitioned ? (owned?.partitions.length ?? 0) : null, exists };
}
