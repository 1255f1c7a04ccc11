import { existsSync } from "node:fs";
import { readdir, readFile, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { ConfigError } from "../../../errors.js";
import type { StoredObject } from "../object-store-destination.js";
import type { Materialization } from "../../provenance/materialization.js";
import { parseTempName, writeFileAtomic } from "./atomic.js";
import { beforeRenamePart, fileIdentity } from "./file-identity.js";
import { Ledger, ledgerOf, type LedgerRead } from "./ledger.js";
import { CONTENT_KEY, type LedgerEntry, RECORD_KEY, REPLACING_KEY, SAME_AS_KEY } from "./ledger-lines.js";
import { describingEntry, hashing } from "./ledger-copies.js";
import { identityAt } from "./ledger-history.js";
import { currentRecords, type Owns, pastRecords, type RecordedFile, type RecordsRead } from "./ledger-records.js";
import type { HiveLayout } from "../../hive.js";
import type { PartitionListing } from "../partition-counts.js";
import { listFolderPartitions, type Recount } from "./folder-partitions.js";
import { legacyMetadata } from "./legacy-counts.js";

export type { RecordedFile, RecordsRead } from "./ledger-records.js";

/**
 * A folder on the local disk holding a store's files, named by `/`-separated paths relative to
 * it: the local backend's put, get, list and delete. LocalObjectStoreDestination is these four
 * and nothing more; CSVDestination and FileDestination put their files through it too (see
 * partition-files.ts), so every file written on this machine is written one way. A put replaces
 * its file atomically (synced first when durable, see atomic.ts) and appends the file's metadata
 * to the one ledger of the folder above it (see ledger.ts) before its rename, with the file
 * open, so the line names the very file written and lands with it (see file-identity.ts).
 *
 * Provenance (how ObjectStoreDestination and PartitionFiles keep materialization records): a put
 * whose metadata holds `materialization` (the record's JSON, see RECORD_KEY) keeps it in that
 * line, in the same step as the file: its write fails, the old file and record staying, when
 * the line cannot be appended. `materializations(files)` gives back the record of each file's
 * current content, `materializationHistory(files)` the records of the writes of those files
 * that landed, newest first; both take paths (the ledger their put used) or RecordedFiles (a
 * ledger given to put). A compaction of the ledger moves past records to the history beside it,
 * keeping the last HISTORY_KEPT of each folder; `delete` ends a file's history.
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
   * Replaces the file at `path` atomically with `chunks`, after appending, when `metadata` is
   * given, what it returns (called once the chunks are consumed) to the ledger (`place`, by
   * default `ledgerOf(path)`), naming the temporary file, which the rename then puts at the
   * path (see file-identity.ts), and the file it found there (REPLACING_KEY). A kill between the
   * two leaves a line naming a file that is never at the path. A line holding a record must be
   * appended, or the write fails; any other is best effort (a file without its line is counted
   * by a read). Dead writers' temporary files in the file's folder (a process killed mid-write)
   * are then removed, when the folder existed before (see `sweepStaleTemps`).
   *
   * Only the data file is synced (when durable): a machine crash may lose the line of a file
   * that survives it, which then reads as counted again and of unknown provenance; a line that
   * survives names a file whose bytes were synced before it was written.
   */
  async put(
    path: string,
    chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
    metadata: (() => Record<string, string>) | null,
    place: { readonly ledger: Ledger; readonly folder: string } = this.ledgerOf(path),
  ): Promise<void> {
    // The bytes' SHA-256 goes in the line: a copy of the file (new device and inode) is known by it (ledger-copies.ts).
    const hashed = metadata ? hashing(chunks) : null;
    const beforeRename = metadata
      ? async (file: string) => {
          const line = metadata();
          line[CONTENT_KEY] = hashed!.digest();
          const there = identityAt(path);
          const replacing = there === null ? null : beforeRenamePart(there);
          if (replacing !== null) line[REPLACING_KEY] = replacing;
          await place.ledger.append([{ folder: place.folder, file, metadata: line }], { strict: line[RECORD_KEY] !== undefined });
        }
      : undefined;
    await writeFileAtomic(path, hashed ? hashed.chunks : chunks, { durable: this.durable, sweep: true, beforeRename });
  }

  /** The record of each file's current content, by path (see `currentRecords` in ledger-records.ts); a file without one is left out. */
  materializations(files: ReadonlyArray<string | RecordedFile>): Promise<RecordsRead<Map<string, Materialization>>> {
    return currentRecords(files.map((file) => this.recordedFile(file)));
  }

  /** The records of the writes of these files that landed, newest first (see `pastRecords` in ledger-records.ts); `owns` leaves out another's. */
  materializationHistory(files: ReadonlyArray<string | RecordedFile>, owns?: Owns): Promise<RecordsRead<Materialization[]>> {
    return pastRecords(
      files.map((file) => this.recordedFile(file)),
      owns,
    );
  }

  private recordedFile(file: string | RecordedFile): RecordedFile {
    return typeof file === "string" ? { path: file, ...this.ledgerOf(file) } : file;
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
    const ledgers = new Map<string, Promise<LedgerRead>>();
    for await (const path of walk(root)) {
      const name = relative(this.folder, path).split(sep).join("/");
      if (!name.startsWith(prefix)) continue;
      const info = await stat(path, { bigint: true }).catch(() => null);
      if (!info) continue;
      const identity = fileIdentity(info);
      let entry: LedgerEntry | undefined;
      // The ledger of the folder above the file's, or of a table above nested partition folders
      // (a multi partition's): the first naming this very file holds its line.
      for (const { ledger, folder: entryFolder } of this.ledgersOf(path)) {
        entry = await describingEntry(ledgers, ledger, entryFolder, path, identity);
        if (entry) break;
      }
      const metadata = entry ? { ...entry.metadata } : await legacyMetadata(path, info);
      for (const key of [REPLACING_KEY, CONTENT_KEY, SAME_AS_KEY]) delete metadata[key]; // the ledger's, not the object's
      yield { name, metadata };
    }
  }

  /**
   * Deletes each object's file, an older version's sidecar and the temporary files of either,
   * then the folders left empty (or holding nothing but ledgers, whose folders are gone with
   * them), up to the store's folder, or to the folder named `keep` (both kept). A ledger line of a
   * deleted object names a file that no longer exists: never trusted again. A marker line then
   * ends the file's history (a file put there later starts its own); best effort, a ledger
   * removed with its folder needs none.
   */
  async delete(names: readonly string[], keep?: string): Promise<void> {
    const top = keep === undefined ? this.folder : this.pathOf(keep);
    for (const name of names) {
      const path = this.pathOf(name);
      const folder = dirname(path);
      const file = basename(path);
      await rm(path, { force: true });
      for (const { ledger, folder: entryFolder } of this.ledgersOf(path))
        if (existsSync(ledger.path)) await ledger.append([{ folder: entryFolder, file: "", metadata: {} }]);
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
   * The names of the files at a table's level and in its `{column}={key}` folders (nested ones
   * too, a multi partition's `date=.../region=.../`), hidden ones (ledgers, sidecars, temporary
   * files) included: what dropping a table looks through (see ../own-files.ts), without walking
   * the folders of other assets nested in it.
   */
  async *tableFiles(table: string): AsyncIterable<string> {
    yield* partitionTreeFiles(this.pathOf(table), table);
  }

  /**
   * The partitions of the table folder `table`, `{column}={key}/{fileName}`, with the counts its
   * ledger holds for the very files there; `count` counts the others (see folder-partitions.ts).
   */
  partitions(table: string, layout: HiveLayout, fileName: string, count: Recount): Promise<PartitionListing> {
    return listFolderPartitions(this.pathOf(table), layout, fileName, count);
  }

  /**
   * The ledger a file's metadata goes to, and its line's folder: the ledger of the folder above
   * the file's (`{table}/.data.csv.ledger`, folder `date=...`), or of the store's folder for a
   * file directly in it (folder "").
   */
  ledgerOf(path: string): { ledger: Ledger; folder: string } {
    return dirname(path) === this.folder ? { ledger: Ledger.of(this.folder, basename(path)), folder: "" } : ledgerOf(path);
  }

  /**
   * The ledgers a file's line may be in: `ledgerOf(path)`, then, while the folders above the
   * file's are partition folders (`{column}={key}`, a multi partition's nested ones), the ledger
   * of each folder above them, its line's folder the path between (`date=.../region=...`). A line
   * names the very file it describes (see file-identity.ts), so asking a ledger too many is safe.
   */
  ledgersOf(path: string): Array<{ ledger: Ledger; folder: string }> {
    const found = [this.ledgerOf(path)];
    const file = basename(path);
    const folders = [basename(dirname(path))];
    for (let above = dirname(dirname(path)); above !== this.folder && above.startsWith(this.folder + sep); above = dirname(above)) {
      if (!folders[0]!.includes("=") || !basename(above).includes("=")) break;
      folders.unshift(basename(above));
      found.push({ ledger: Ledger.of(dirname(above), file), folder: folders.join("/") });
    }
    return found;
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

/** The files of a folder and of the folders below it named `{column}={key}`, by name under `name`. */
async function* partitionTreeFiles(path: string, name: string): AsyncGenerator<string> {
  // A folder removed meanwhile (a racing drop) holds nothing.
  const entries = await readdir(path, { withFileTypes: true }).catch((error: unknown) => (isMissing(error) ? [] : Promise.reject(error)));
  for (const entry of entries) {
    if (entry.isFile()) yield `${name}/${entry.name}`;
    else if (entry.isDirectory() && entry.name.includes("=")) yield* partitionTreeFiles(join(path, entry.name), `${name}/${entry.name}`);
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
    (name.endsWith(".ledger") ||
      name.endsWith(".ledger.compacting") ||
      name.endsWith(".ledger.history") ||
      ((name.includes(".ledger.tmp-") || name.includes(".ledger.history.tmp-")) && parseTempName(name) !== null))
  );
}

/** Whether a file system error says the path holds no file (gone, or a folder on the way). */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}
