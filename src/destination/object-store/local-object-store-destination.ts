import type { BigIntStats } from "node:fs";
import { readdir, readFile, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { ConfigError } from "../../errors.js";
import { durableOption, parseTempName, writeFileAtomic } from "../files/atomic.js";
import { Ledger, ledgerOf, type LedgerEntry } from "../files/ledger.js";
import { fileIdentity } from "../files/file-identity.js";
import type { FileFormat, FormatName } from "../formats/file-format.js";
import { ObjectStoreDestination, type StoredObject } from "./object-store-destination.js";
import { declareOptions } from "../options.js";

/** Options of `LocalObjectStoreDestination`. */
export interface LocalObjectStoreOptions {
  /** The folder that plays the bucket. */
  readonly basePath: string;
  readonly prefix?: string;
  readonly format?: FormatName | FileFormat;
  /**
   * Whether a put survives a crash of the machine (a power cut, a kernel panic) once it is
   * reported done. True by default: each object's file is synced to disk before it replaces the
   * previous one, and its folder after. False skips those syncs, which is faster where syncs are
   * slow; a crash of the machine may then leave an object reported written as it was before, or
   * empty, or cut short, with no error. A killed process loses nothing either way.
   */
  readonly durable?: boolean;
}

/**
 * The sidecar older versions kept beside an object (`.data.parquet.meta.json`): still read, for
 * the very file it names (`file`: see file-identity.ts), when the ledger has no line for it.
 */
interface LegacySidecar {
  readonly metadata: Record<string, string>;
  readonly file: string;
}

/**
 * An object store on local disk: each object a file under `basePath`, its metadata in the ledger
 * of the folder above its own (`.data.parquet.ledger`, the one CSVDestination and FileDestination
 * keep their counts in: see ledger.ts). The result is a plain hive folder that DuckDB,
 * Spark or any Parquet reader can open, with no cloud account.
 */
export class LocalObjectStoreDestination extends ObjectStoreDestination {
  static override destinationName = "Local object store";
  static override readonly options = declareOptions<LocalObjectStoreOptions>({
    basePath: "required",
    prefix: "optional",
    format: "optional",
    durable: "optional",
  });
  /** The folder that plays the bucket. */
  readonly basePath: string;
  /** Whether puts are synced to disk (see the option). */
  readonly durable: boolean;
  #folder: string | undefined;

  constructor(options: LocalObjectStoreOptions) {
    super(options);
    this.basePath = options.basePath;
    if (typeof this.basePath !== "string" || this.basePath === "") {
      throw new ConfigError("LocalObjectStoreDestination: basePath must be a non-empty folder path");
    }
    this.durable = durableOption(options.durable, "LocalObjectStoreDestination");
  }

  /**
   * Replaces the file atomically, then appends its metadata to the ledger while the file is
   * still open (see ledger.ts, file-identity.ts). A crash between the two leaves no line for the
   * new file, or one naming the old file: never trusted, the object is counted by a read. Dead
   * writers' temporary files in the object's folder (a process killed mid-put) are then removed,
   * when the folder existed before (see `sweepStaleTemps`); listings never sweep. The content
   * type is the format's, known again on read: it is not kept.
   */
  async putObject(name: string, payload: Uint8Array, _contentType: string, metadata: Record<string, string>): Promise<void> {
    const path = this.pathOf(name);
    const whileOpen = async (file: string) => {
      const { ledger, folder } = this.ledgerOf(path);
      await ledger.append([{ folder, file, metadata }]);
    };
    await writeFileAtomic(path, [payload], { durable: this.durable, sweep: true, whileOpen });
  }

  async getObject(name: string): Promise<Uint8Array | null> {
    try {
      return await readFile(this.pathOf(name));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** Every object file below the folder the prefix names, skipping hidden files (sidecars, temporary files). */
  async *listObjects(prefix: string): AsyncIterable<StoredObject> {
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

  objectUri(name: string): string {
    return this.pathOf(name);
  }

  /**
   * Deletes each object's file, an older version's sidecar and the temporary files of either,
   * then the folders left empty (or holding nothing but ledgers, whose folders are gone with
   * them), up to `basePath` (kept). A ledger line of a deleted object names a file that no
   * longer exists: never trusted again.
   */
  override async deleteObjects(names: readonly string[]): Promise<void> {
    for (const name of names) {
      const path = this.pathOf(name);
      const folder = dirname(path);
      const file = basename(path);
      await rm(path, { force: true });
      const beside = await readdir(folder).catch((error: unknown) => (isMissing(error) ? [] : Promise.reject(error)));
      for (const entry of beside)
        if (entry.startsWith(`.${file}`) || entry.startsWith(`..${file}`)) await rm(join(folder, entry), { force: true });
      for (let dir = folder; dir !== this.folder && dir.startsWith(this.folder + sep); dir = dirname(dir)) {
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

  /** The object files under a prefix, without reading their sidecars. */
  protected override async *listNames(prefix: string): AsyncIterable<string> {
    const folder = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    for await (const path of walk(this.pathOf(folder))) {
      const name = relative(this.folder, path).split(sep).join("/");
      if (name.startsWith(prefix)) yield name;
    }
  }

  /** The absolute folder `basePath` names (relative to the config's folder in a loaded config). */
  private get folder(): string {
    this.#folder ??= this.resolvePath(this.basePath);
    return this.#folder;
  }

  /**
   * The ledger an object's metadata goes to, and its line's folder: the ledger of the folder
   * above the object's (`{table}/.data.csv.ledger`, folder `date=...`), or of `basePath` for an
   * object directly in it (folder "").
   */
  private ledgerOf(path: string): { ledger: Ledger; folder: string } {
    return dirname(path) === this.folder ? { ledger: Ledger.of(this.folder, basename(path)), folder: "" } : ledgerOf(path);
  }

  /** The file of an object; a name that would leave `basePath` is refused. */
  private pathOf(name: string): string {
    const base = this.folder;
    const path = resolve(base, ...name.split("/").filter((part) => part !== ""));
    if (path !== base && !path.startsWith(base + sep)) {
      throw new ConfigError(`LocalObjectStoreDestination: object name ${JSON.stringify(name)} leaves ${base}`);
    }
    return path;
  }
}

function legacySidecarOf(path: string): string {
  const at = path.lastIndexOf(sep);
  return `${path.slice(0, at + 1)}.${path.slice(at + 1)}.meta.json`;
}

/** An older version's sidecar's metadata when it describes this very file; none otherwise. */
async function legacyMetadata(path: string, info: BigIntStats): Promise<Record<string, string>> {
  try {
    const sidecar = JSON.parse(await readFile(legacySidecarOf(path), "utf8")) as LegacySidecar;
    const same = sidecar.file === fileIdentity(info);
    return same && typeof sidecar.metadata === "object" && sidecar.metadata !== null ? sidecar.metadata : {};
  } catch {
    return {};
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

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}
