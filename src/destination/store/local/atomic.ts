import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, fsync, openSync } from "node:fs";
import { lstat, mkdir, open, readdir, rename, rm, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { promisify } from "node:util";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError } from "../../../errors.js";
import { describeValue } from "../../../text/describe-value.js";
import { fileIdentity, identityBeforeRename } from "./file-identity.js";

/**
 * The marker in every temporary file's name. Listings tell temporary files by their whole name
 * (`parseTempName`), and only files: a partition folder's name holds a list value, which may
 * hold this marker too.
 */
export const TEMP_MARKER = ".tmp-";

/**
 * A host name as a safe path segment: letters, digits, `-` and `_` only (dots too become `_`,
 * so the segment never holds TEMP_MARKER), at most 64 characters, never empty.
 */
export function hostSegment(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9-]/g, "_").slice(0, 64);
  return safe === "" ? "_" : safe;
}

/** This host, as temporary names record it. */
export const THIS_HOST = hostSegment(hostname());

/**
 * A temporary name beside `path`, unique across processes and hosts:
 * `.{name}.tmp-{host}-{pid}-{8 hex}`. The host and pid say who writes it, so that a sweep can
 * tell a dead writer's file from a live one's (see `isStaleTemp`).
 */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}${TEMP_MARKER}${THIS_HOST}-${process.pid}-${randomBytes(4).toString("hex")}`);
}

/** Who made a temporary file, as its name says; `host` is null for names of older versions, which held only the pid. */
export interface TempWriter {
  readonly host: string | null;
  readonly pid: number;
}

const WRITER_TAIL = /^([A-Za-z0-9_-]+)-(\d+)-[0-9a-f]{8}$/;
const LEGACY_TAIL = /^(\d+)-[0-9a-f]{8}$/;

/** The writer of a temporary file named by `tempPathFor` (or an older version of it); null for any other name. */
export function parseTempName(name: string): TempWriter | null {
  const at = name.lastIndexOf(TEMP_MARKER);
  if (!name.startsWith(".") || at <= 1) return null;
  const tail = name.slice(at + TEMP_MARKER.length);
  const current = WRITER_TAIL.exec(tail);
  if (current) return { host: current[1]!, pid: Number(current[2]) };
  const legacy = LEGACY_TAIL.exec(tail);
  return legacy ? { host: null, pid: Number(legacy[1]) } : null;
}

/**
 * A temporary file not modified for this long is abandoned, whoever made it. A live writer
 * touches its file with every chunk it writes, and the rename follows the last chunk at once;
 * no partition write sits a whole day without writing a byte. The limit is this long because
 * it is the only rule for files of other hosts (a folder shared over NFS: their pids mean
 * nothing here) and of older versions (no host in the name), and it must stay far above any
 * clock skew between this host and a file server. Were it ever wrong, the cost is a failed
 * write, not lost data: the writer's rename finds no file, its write fails and is reported, and
 * the partition keeps its previous content.
 */
export const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

// When this process started, on the wall clock file times use.
const PROCESS_STARTED_MS = performance.timeOrigin;

/**
 * Whether a temporary file's writer is certainly gone, so the file can be removed:
 * - any writer, any host: the file has not been modified for ABANDONED_AFTER_MS;
 * - a writer on this host: its pid no longer exists (`kill(pid, 0)` fails with ESRCH; EPERM
 *   means a process of another user holds it: alive) and the file was last modified before
 *   this process started.
 * The file was seen in a listing, so its writer had started; if no process holds its pid now,
 * that writer has exited. That holds within one pid namespace only, which the host in the name
 * cannot promise where hosts share a name and a folder (containers of one image, machines all
 * called "localhost"): a pid dead here may be a live writer there, or a new writer may take a
 * pid just after it was seen dead. Hence the age check: a live writer moves its file's mtime with
 * every chunk, and a file modified since this process started, such as a freshly started
 * writer's that happens to reuse a dead pid, is never judged by its pid. What it lets through
 * is the case the sweep is for: a writer killed before this run, then the re-run. (A pid reused
 * by an unrelated process makes a dead writer's file look alive: kept, until the age limit.)
 * Writers that die while this process runs are left to the next process or to the age limit.
 */
export function isStaleTemp(writer: TempWriter, mtimeMs: number, now = Date.now()): boolean {
  if (now - mtimeMs > ABANDONED_AFTER_MS) return true;
  return writer.host === THIS_HOST && mtimeMs < PROCESS_STARTED_MS && !processExists(writer.pid);
}

/** False only when no process has this pid (ESRCH); any doubt counts as alive. */
export function processExists(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid > 0x7fffffff || pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Removes the temporary files of dead writers from one folder (see `isStaleTemp`): only names
 * `tempPathFor` makes, only regular files (a folder or link with such a name is left alone).
 * Never throws: a file another process removed first (ENOENT), one this user may not remove
 * (EACCES, EPERM), an unreadable folder are all skipped. Returns how many files it removed.
 */
export async function sweepStaleTemps(folder: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0;
  }
  let removed = 0;
  const now = Date.now();
  for (const name of names) {
    if (!name.includes(TEMP_MARKER)) continue;
    const writer = parseTempName(name);
    if (!writer) continue;
    const path = join(folder, name);
    try {
      const info = await lstat(path);
      if (!info.isFile() || !isStaleTemp(writer, info.mtimeMs, now)) continue;
      await unlink(path);
      removed++;
    } catch {
      // Gone already, or not ours to remove: the sweep is housekeeping and never fails a write.
    }
  }
  return removed;
}

/** A file destination's `durable` option: true unless given as false; anything else is refused. */
export function durableOption(value: unknown, owner: string): boolean {
  if (value === undefined) return true;
  if (typeof value !== "boolean") throw new ConfigError(`${owner}: durable must be true or false, got ${describeValue(value)}`);
  return value;
}

/** How `writeFileAtomic` writes. */
export interface AtomicWriteOptions {
  /**
   * Whether the write must survive a crash of the machine (a power cut, a kernel panic) once it
   * returns (the default): the file's bytes are synced before the rename, its folder after it,
   * and the parent of every folder the write creates. Without it the bytes and the rename sit in
   * the page cache for a while (seconds, on Linux), and a crash can leave the new name on an
   * empty or truncated file. A process that is killed loses nothing either way: the page cache
   * outlives it.
   */
  readonly durable?: boolean;
  /** Remove dead writers' temporary files from the folder afterwards (`sweepStaleTemps`), unless the folder was just created. */
  readonly sweep?: boolean;
  /**
   * Runs after the rename with the file still open, given the file's identity
   * (`fileIdentity`): records that name the file are written here, so that its inode number
   * cannot pass to another file before they land (see file-identity.ts).
   */
  readonly whileOpen?: ((identity: string) => Promise<void>) | undefined;
  /**
   * Runs after the last byte (and its sync), before the rename, with the temporary file open,
   * given its `identityBeforeRename`: a line appended here lands before the file does, in the
   * same step for a reader (see file-identity.ts). A failure here fails the write: the temporary
   * file is removed and the target keeps its content.
   */
  readonly beforeRename?: ((identity: string) => Promise<void>) | undefined;
}

/**
 * Writes a file so that readers see the old content or the new, never a part: the bytes go to
 * a temporary file in the same folder, which is then renamed over the target (rename within
 * one filesystem is atomic). A failure before the rename removes the temporary file and leaves
 * the target as it was; a failure after it (syncing the folder, `whileOpen`) is reported though
 * the new content is in place, complete. Returns the identity of the file written.
 */
export async function writeFileAtomic(
  path: string,
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
  options: AtomicWriteOptions = {},
): Promise<string> {
  const durable = options.durable ?? true;
  const folder = dirname(path);
  const created = await mkdir(folder, { recursive: true });
  const temp = tempPathFor(path);
  const handle = await open(temp, "wx");
  let renamed = false;
  let identity: string;
  try {
    for await (const chunk of chunks) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      // A write may take fewer bytes than it was given; the rest follows.
      for (let at = 0; at < bytes.byteLength;) at += (await handle.write(bytes, at)).bytesWritten;
    }
    // The bytes reach the disk before the name does: a crash after the rename can then only
    // find the whole new file or, if the folder was not synced yet, the old one.
    if (durable) await handle.datasync();
    if (options.beforeRename) await options.beforeRename(identityBeforeRename(fstatSync(handle.fd, { bigint: true })));
    await rename(temp, path);
    renamed = true;
    // The folder's new entry, and each new folder's entry in its parent, all at once: on a
    // journalling filesystem they share one commit (the sync of the bytes committed the folders
    // made before it). Nothing is reported before all are done, so their order does not matter.
    if (durable) await Promise.all([folder, ...(created === undefined ? [] : parentsOfNewFolders(created, folder))].map(syncFolder));
    // Taken after the rename, which sets the file's ctime. An fstat takes microseconds: called
    // directly, not through libuv's thread pool, whose round trip costs more than the call.
    identity = fileIdentity(fstatSync(handle.fd, { bigint: true }));
    if (options.whileOpen) await options.whileOpen(identity);
  } catch (error) {
    await handle.close().catch(() => undefined);
    if (!renamed) await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  // A folder this call created holds no one's leftovers: the sweep (a listing) is skipped.
  if (options.sweep && created === undefined) await sweepStaleTemps(folder);
  return identity;
}

/**
 * The parent of every folder from `created` (the first folder `mkdir` made) down to `folder`:
 * what must be synced for the new folders to survive a crash. A folder that already existed is
 * not synced again: when another process made it a moment ago, that process syncs its parent
 * before its own write returns, and on journalling filesystems (ext4, XFS) this write's own
 * syncs commit that creation too.
 */
function parentsOfNewFolders(created: string, folder: string): string[] {
  const first = resolve(created);
  const parents: string[] = [];
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    parents.push(dirname(dir));
    if (dir === first || dirname(dir) === dir) return parents;
  }
}

const fsyncFd = promisify(fsync);

// Filesystems that cannot sync a folder say so with these; there is nothing more to do there.
const UNSYNCABLE_FOLDER = new Set(["EINVAL", "ENOTSUP", "EOPNOTSUPP"]);

/**
 * Makes a folder's entries (names created, renamed, removed in it) durable. Windows cannot open
 * a folder to sync it, and NTFS journals renames itself: nothing is done there.
 */
export async function syncFolder(folder: string): Promise<void> {
  if (process.platform === "win32") return;
  // Opening and closing a folder take microseconds and are called directly; only the sync, which
  // waits for the disk, goes through libuv's thread pool (two round trips fewer a folder).
  const fd = openSync(folder, "r");
  try {
    await fsyncFd(fd);
  } catch (error) {
    if (!UNSYNCABLE_FOLDER.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
  } finally {
    closeSync(fd);
  }
}
