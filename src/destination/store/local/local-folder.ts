import { readFile } from "node:fs/promises";
import { basename, dirname, resolve, sep } from "node:path";
import { ConfigError } from "../../../errors.js";
import { writeFileAtomic } from "./atomic.js";
import { Ledger, ledgerOf } from "./ledger.js";

/**
 * A folder on the local disk holding a store's files: the local backend's put and get, shared by
 * every destination that writes files on this machine (LocalObjectStoreDestination, and through
 * partition-files.ts CSVDestination and FileDestination). A put replaces its file atomically
 * (synced first when durable, see atomic.ts) and appends the file's metadata to the one ledger
 * of the folder above it (see ledger.ts) while the file is still open, so the line names the
 * very file written (see file-identity.ts).
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
   * The ledger a file's metadata goes to, and its line's folder: the ledger of the folder above
   * the file's (`{table}/.data.csv.ledger`, folder `date=...`), or of the store's folder for a
   * file directly in it (folder "").
   */
  ledgerOf(path: string): { ledger: Ledger; folder: string } {
    return dirname(path) === this.folder ? { ledger: Ledger.of(this.folder, basename(path)), folder: "" } : ledgerOf(path);
  }
}

/** Whether a file system error says the path holds no file (gone, or a folder on the way). */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}
