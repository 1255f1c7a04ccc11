import type { Stats } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { ConfigError } from "../../errors.js";
import { TEMP_MARKER, writeFileAtomic } from "../files/atomic.js";
import type { FileFormat, FormatName } from "../formats/file-format.js";
import { ObjectStoreDestination, type StoredObject } from "./object-store-destination.js";

/** Options of `LocalObjectStoreDestination`. */
export interface LocalObjectStoreOptions {
  /** The folder that plays the bucket. */
  readonly basePath: string;
  readonly prefix?: string;
  readonly format?: FormatName | FileFormat;
}

/** The sidecar beside an object: its metadata, trusted only while the object is the file it describes. */
interface Sidecar {
  readonly metadata: Record<string, string>;
  readonly contentType: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/**
 * An object store on local disk: each object a file under `basePath`, its metadata in a hidden
 * sidecar beside it (`.data.parquet.meta.json`). The result is a plain hive folder that DuckDB,
 * Spark or any Parquet reader can open, with no cloud account.
 */
export class LocalObjectStoreDestination extends ObjectStoreDestination {
  static override destinationName = "Local object store";
  readonly basePath: string;

  constructor(options: LocalObjectStoreOptions) {
    super();
    if (typeof options?.basePath !== "string" || options.basePath === "") {
      throw new ConfigError("LocalObjectStoreDestination: basePath must be a non-empty folder path");
    }
    this.basePath = options.basePath;
    if (options.prefix !== undefined) this.prefix = options.prefix;
    if (options.format !== undefined) this.format = options.format;
  }

  /**
   * Replaces the file atomically, then its sidecar. A crash between the two leaves a sidecar
   * that names the old file's identity (inode, size, mtime), so it is ignored, never trusted.
   * Dead writers' temporary files in the object's folder (a process killed mid-put) are then
   * removed, when the folder existed before (see `sweepStaleTemps`); listings never sweep.
   */
  async putObject(name: string, payload: Uint8Array, contentType: string, metadata: Record<string, string>): Promise<void> {
    const path = this.pathOf(name);
    const written = await writeFileAtomic(path, [payload], { sweep: true });
    const sidecar: Sidecar = { metadata, contentType, ...identity(written) };
    await writeFileAtomic(sidecarOf(path), [JSON.stringify(sidecar)]);
  }

  async getObject(name: string): Promise<Uint8Array | null> {
    try {
      return await readFile(this.pathOf(name));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** Every object file below the folder the prefix names, skipping sidecars and temporary files. */
  async *listObjects(prefix: string): AsyncIterable<StoredObject> {
    const folder = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    const root = this.pathOf(folder);
    for await (const path of walk(root)) {
      const name = relative(resolve(this.basePath), path).split(sep).join("/");
      if (!name.startsWith(prefix)) continue;
      const info = await stat(path).catch(() => null);
      if (!info) continue;
      yield { name, metadata: await trustedMetadata(path, info) };
    }
  }

  objectUri(name: string): string {
    return this.pathOf(name);
  }

  /** The file of an object; a name that would leave `basePath` is refused. */
  private pathOf(name: string): string {
    const base = resolve(this.basePath);
    const path = resolve(base, ...name.split("/").filter((part) => part !== ""));
    if (path !== base && !path.startsWith(base + sep)) {
      throw new ConfigError(`LocalObjectStoreDestination: object name ${JSON.stringify(name)} leaves ${base}`);
    }
    return path;
  }
}

function sidecarOf(path: string): string {
  const at = path.lastIndexOf(sep);
  return `${path.slice(0, at + 1)}.${path.slice(at + 1)}.meta.json`;
}

function identity(info: Stats): Pick<Sidecar, "size" | "mtimeMs" | "ino"> {
  return { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino };
}

/** The sidecar's metadata when it describes this very file; none otherwise. */
async function trustedMetadata(path: string, info: Stats): Promise<Record<string, string>> {
  try {
    const sidecar = JSON.parse(await readFile(sidecarOf(path), "utf8")) as Sidecar;
    const same = sidecar.size === info.size && sidecar.mtimeMs === info.mtimeMs && sidecar.ino === info.ino;
    return same && typeof sidecar.metadata === "object" && sidecar.metadata !== null ? sidecar.metadata : {};
  } catch {
    return {};
  }
}

/** Every file below a folder, hidden ones (sidecars, temporary files) left out. */
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
    if (entry.name.startsWith(".") || entry.name.includes(TEMP_MARKER)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}
