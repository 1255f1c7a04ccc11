import { readdir, readFile, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { ConfigError } from "../../../errors.js";
import type { StoredObject } from "../object-store-destination.js";
import type { PartitionListing } from "../partition-counts.js";
import { parseTempName, writeFileAtomic } from "./atomic.js";
import { fileIdentity } from "./file-identity.js";
import { listFolderPartitions, type Recount } from "./folder-partitions.js";
import { Ledger, ledgerOf, type LedgerEntry } from "./ledger.js";
import { legacyMetadata } from "./legacy-counts.js";

/**
 * A folder on the local disk holding a store's files, named by `/`-separated paths relative to
 * it: the local backend's put, get, list and delete. LocalObjectStoreDestination is these four
 * and nothing more; CSVDestination and FileDestination put their files through it too (see
 * partition-files.ts), so every file written on this machine is written one way. A put replaces
 * its file atomically (synced first when durable, see atomic.ts) and appends the file's metadata
 * to the one ledger of the folder above it (see ledger.ts) while the file is still open, so the
 * line names the very file written (see file-identity.ts).
 */
export class LocalFolder {
  #folder: string | undefined;

  constructor(
    /** Resolves the absolute folder; called once, at first use (see Destination.resolvePath). */
    private readonly resolveFolder: () => string,
    /** Names the destination in messages, as users wrote it. */
    private readonly owner: string,
    /** Files survive a machine crash once written (see `AtomicWriteOptions.durable`). */
    readonly durable: boolean,
  ) {}

  /** The absolute folder, resolved at first use and kept: data never moves while in use. */
  get folder(): string {
    this.#folder ??= this.resolveFolder();
    return this.#folder;
  }

  /** The file of a name of `/`-separated segments; a name that would leave the folder is refused. */
  pathOf(name: string): string {
    const base = this.folder;
    const path = resolve(base, ...name.split("/").filter((part) => part !== ""));
    if (path !== base && !path.startsWith(base + sep)) {
      throw new ConfigError(`${this.owner}: object name ${JSON.stringify(name)} leaves ${base}`);
    }
    return path;
  }

  /**
   * Replaces the file at `path` atomically with `chunks`, then, when `metadata` is given, appends
   * what it returns (called once the chunks are consumed) to the ledger while the file is still
   * open. A crash between the two leaves no line for the new file, or one naming the old file:
   * never trusted, the file is counted by a read. Dead writers' temporary files in the file's
   * folder (a process killed mid-write) are then removed, when the folder existed before (see
   * `sweepStaleTemps`).
   *
   * Only the data file is synced (when durable): the ledger is a cache. A line lost in a crash,
   * or naming a file since replaced, makes the file counted again; a line that survives names a
   * file whose bytes were synced before it was written.
   */
  async put(
    path: string,
    chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
    metadata: (() => Record<string, string>) | null,
  ): Promise<void> {
    const whileOpen = metadata
      ? async (file: string) => {
          const { ledger, folder } = this.ledgerOf(path);
          await ledger.append([{ folder, file, metadata: metadata() }]);
        }
      : undefined;
    await writeFileAtomic(path, chunks, { durable: this.durable, sweep: true, whileOpen });
  }

  /** A file's bytes, or null when there is none. */
  async get(path: string): Promise<Buffer | null> {
    try {
      return await readFile(path);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /**
   * Every file below the folder the prefix names whose name (relative to the store's folder)
   * starts with it, with its metadata: its ledger line when it names this very file, or an older
   * version's sidecar. Hidden files (ledgers, sidecars, temporary files) are skipped.
   */
  async *list(prefix: string): AsyncIterable<StoredObject> {
    const folder = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    const root = this.pathOf(folder);
    // Each ledger is read once per listing.
    const ledgers = new Map<string, Promise<Map<string, LedgerEntry>>>();
    for await (const path of walk(root)) {
      const name = relative(this.folder, path).split(sep).join("/");
      if (!name.startsWith(prefix)) continue;
      const info = await stat(path, { bigint: true }).catch(() => null);
      if (!info) continue;
      const { ledger, folder: entryFolder } = this.ledgerOf(path);
      let entries = ledgers.get(ledger.path);
      if (!entries) ledgers.set(ledger.path, (entries = ledger.read().then((read) => read.entries)));
      const entry = (await entries).get(entryFolder);
      const metadata = entry && entry.file === fileIdentity(info) ? { ...entry.metadata } : await legacyMetadata(path, info);
      yield { name, metadata };
    }
  }

  /**
   * Deletes each object's file, an older version's sidecar and the temporary files of either,
   * then the folders left empty (or holding nothing but ledgers, whose folders are gone with
   * them), up to the store's folder, or to the folder named `keep` (both kept). A ledger line of a
   * deleted object names a file that no longer exists: never trusted again.
   */
  async delete(names: readonly string[], keep?: string): Promise<void> {
    const top = keep === undefined ? this.folder : this.pathOf(keep);
    for (const name of names) {
      const path = this.pathOf(name);
      const folder = dirname(path);
      const file = basename(path);
      await rm(path, { force: true });
      const beside = await readdir(folder).catch((error: unknown) => (isMissing(error) ? [] : Promise.reject(error)));
      for (const entry of beside)
        if (entry.startsWith(`.${file}`) || entry.startsWith(`..${file}`)) await rm(join(folder, entry), { force: true });
      for (let dir = folder; dir !== top && dir.startsWith(top + sep); dir = dirname(dir)) {
        await removeOrphanLedgers(dir);
        const removed = await rmdir(dir).then(
          () => true,
          (error: NodeJS.ErrnoException) =>
            error.code === "ENOTEMPTY" || error.code === "EEXIST" || error.code === "ENOENT" ? false : Promise.reject(error),
        );
        if (!removed) break;
      }
    }
  }

  /** The names of the files under a prefix, without reading their metadata. */
  async *listNames(prefix: string): AsyncIterable<string> {
    const folder = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    for await (const path of walk(this.pathOf(folder))) {
      const name = relative(this.folder, path).split(sep).join("/");
      if (name.startsWith(prefix)) yield name;
    }
  }

  /**
   * The names of the files at a table's level and in its `{column}={key}` folders, hidden ones
   * (ledgers, sidecars, temporary files) included: what dropping a table looks through (see
   * ../own-files.ts), without walking the folders of other assets nested in it.
   */
  async *tableFiles(table: string): AsyncIterable<string> {
    const path = this.pathOf(table);
    const entries = await readdir(path, { withFileTypes: true }).catch((error: unknown) => (isMissing(error) ? [] : Promise.reject(error)));
    for (const entry of entries) {
      if (entry.isFile()) yield `${table}/${entry.name}`;
      else if (entry.isDirectory() && entry.name.includes("=")) {
        // A folder removed meanwhile (a racing drop) holds nothing.
        const inside = await readdir(join(path, entry.name), { withFileTypes: true }).catch(() => []);
        for (const file of inside) if (file.isFile()) yield `${table}/${entry.name}/${file.name}`;
      }
    }
  }

  /**
   * The partitions of the table folder `table`, `{column}={key}/{fileName}`, with the counts its
   * ledger holds for the very files there; `count` counts the others (see folder-partitions.ts).
   */
  partitions(table: string, column: string, fileName: string, count: Recount): Promise<PartitionListing> {
    return listFolderPartitions(this.pathOf(table), column, fileName, count);
  }

  /**
   * The ledger a file's metadata goes to, and its line's folder: the ledger of the folder above
   * the file's (`{table}/.data.csv.ledger`, folder `date=...`), or of the store's folder for a
   * file directly in it (folder "").
   */
  ledgerOf(path: string): { ledger: Ledger; folder: string } {
    return dirname(path) === this.folder ? { ledger: Ledger.of(this.folder, basename(path)), folder: "" } : ledgerOf(path);
  }
}

/**
 * Every file below a folder, hidden ones (sidecars, temporary files: their names start with a
 * dot) left out. Folders are all walked, whatever their names hold: a partition folder's name
 * holds a list value, which may hold `.tmp-` or start with a dot.
 */
async function* walk(folder: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile() && !entry.name.startsWith(".")) yield path;
  }
}

/**
 * Removes the ledgers (and their compaction locks) of a folder left with no subfolder: every
 * line of them names a file that is gone. A folder holding anything else keeps them.
 */
async function removeOrphanLedgers(folder: string): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => null);
  if (!entries || entries.length === 0 || !entries.every((entry) => entry.isFile() && isLedgerFile(entry.name))) return;
  for (const entry of entries) await rm(join(folder, entry.name), { force: true });
}

function isLedgerFile(name: string): boolean {
  return (
    name.startsWith(".") &&
    (name.endsWith(".ledger") || name.endsWith(".ledger.compacting") || (name.includes(".ledger.tmp-") && parseTempName(name) !== null))
  );
}

/** Whether a file system error says the path holds no file (gone, or a folder on the way). */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}
