import { createHash, randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InterloperError } from "../errors.js";
import { processExists, THIS_HOST } from "./store/local/atomic.js";

/**
 * Locks that keep the writers of one asset apart, across the processes of this host (a backfill
 * in several processes, shards, workers, a second command): files in a folder of the system's
 * temporary folder named after the asset and where its destinations keep it, so that every
 * process with the same config finds the same folder.
 * - Every write of the asset holds a shared lock (a file `w-{host}-{pid}-{random}`), and a
 *   full refresh an exclusive one (`drop`): a drop never runs while a write of the asset is
 *   under way, so it never meets a partition folder made under it, and a write waits for the drop.
 * - A write to several destinations holds each of its partitions' locks (`p-{hash}`, taken in
 *   order) across all of them: two writers of one partition write it one after the other in
 *   every destination, so no destination is left with one writer's rows and another with the other's.
 * A lock file names its holder (host and pid); one whose holder on this host is gone (killed)
 * is taken over. Each file is made with O_EXCL, then the other side is checked: a writer that
 * finds a drop under way removes its file and waits; a drop waits for the writers it finds.
 */
export class AssetLock {
  private constructor(
    readonly folder: string,
    private readonly asset: string,
  ) {}

  /**
   * The lock of an asset: `identity` is what tells its storage from another asset's (its key and
   * its destinations' locations). A destination that says no location is kept in this process
   * (memory) or cannot be told apart: `local` makes the lock this process's alone.
   */
  static of(asset: string, identity: readonly string[], local: boolean): AssetLock {
    const hash = createHash("sha256")
      .update(JSON.stringify([asset, ...identity, ...(local ? [`pid ${process.pid}`] : [])]))
      .digest("hex")
      .slice(0, 32);
    return new AssetLock(join(tmpdir(), "interloper-locks", hash), asset);
  }

  /** Writes of the asset under way in this process: they share one writer file. */
  private writes = 0;
  /** This process's writer file while `writes` > 0. */
  private writerFile: string | null = null;

  /** Runs `write` holding the shared lock, and each partition's lock of `keys` (may be empty). */
  async writing<T>(keys: readonly string[], write: () => Promise<T>): Promise<T> {
    for (let pause = 1; ; pause = Math.min(pause * 2, 100)) {
      this.enterWrite();
      if (!this.liveHolder("drop")) break;
      this.leaveWrite();
      await sleep(pause);
    }
    const held: string[] = [];
    try {
      for (const key of [...new Set(keys)].sort()) {
        const name = `p-${createHash("sha1").update(key).digest("hex").slice(0, 24)}`;
        for (let pause = 1; !this.take(name); pause = Math.min(pause * 2, 50)) await sleep(pause);
        held.push(name);
      }
      return await write();
    } finally {
      for (const name of held) unlinkQuietly(join(this.folder, name));
      this.leaveWrite();
    }
  }

  /**
   * Counts a write in; the first of a process's overlapping writes makes its writer file. One
   * file for all of them, not one a write: a file made and removed per partition cost 0.19 ms of
   * W4-CSV-DEFAULT's 1.3 ms a partition.
   */
  private enterWrite(): void {
    if (this.writes++ > 0) return;
    const file = join(this.folder, `w-${THIS_HOST}-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      create(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(this.folder, { recursive: true }); // the first write, or the temporary folder was cleaned
      create(file);
    }
    this.writerFile = file;
  }

  /** Counts a write out; the last one removes the writer file, so a waiting full refresh may go on. */
  private leaveWrite(): void {
    if (--this.writes > 0 || this.writerFile === null) return;
    unlinkQuietly(this.writerFile);
    this.writerFile = null;
  }

  /**
   * Runs `drop` holding the exclusive lock, once the writes under way end (new ones wait). When
   * another full refresh holds it, or writes still run after `waitMs`, nothing runs: an
   * InterloperError names the asset and who holds it.
   */
  async dropping<T>(drop: () => Promise<T>, waitMs = DROP_WAIT_MS): Promise<T> {
    mkdirSync(this.folder, { recursive: true });
    if (!this.take("drop")) {
      throw new InterloperError(
        `asset "${this.asset}" is being dropped by another full refresh (${this.liveHolder("drop") ?? "a process"}): nothing dropped; run it again once that one is done`,
      );
    }
    try {
      const giveUpAt = Date.now() + waitMs;
      for (let pause = 1; ; pause = Math.min(pause * 2, 100)) {
        const writers = this.liveWriters();
        if (writers.length === 0) break;
        if (Date.now() >= giveUpAt) {
          throw new InterloperError(
            `asset "${this.asset}" is being written by another writer (${writers.slice(0, 3).join(", ")}${writers.length > 3 ? ", ..." : ""}): nothing dropped; run the full refresh again once that write is done`,
          );
        }
        await sleep(pause);
      }
      return await drop();
    } finally {
      unlinkQuietly(join(this.folder, "drop"));
    }
  }

  /** Takes a lock file (O_EXCL), over a holder on this host that is gone; false while another holds it. */
  private take(name: string): boolean {
    const path = join(this.folder, name);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        create(path);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      if (this.liveHolder(name) !== null) return false;
    }
    return false;
  }

  /** Who holds a lock file (`pid 12 on host`), or null when none does: absent, or its holder gone (the file is removed then). */
  private liveHolder(name: string): string | null {
    const path = join(this.folder, name);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return null;
    }
    // Written just after its O_EXCL creation: an empty file is a holder still writing it, unless
    // it has been empty for long (its holder was killed in between).
    const [host, pid] = text.split(" ");
    if (text === "" && Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) < EMPTY_ABANDONED_MS)
      return describeHolder(host, pid);
    if (text !== "" && (host !== THIS_HOST || processExists(Number(pid)))) return describeHolder(host, pid);
    unlinkQuietly(path);
    return null;
  }

  /** The live writers of the asset; files of gone ones are removed. */
  private liveWriters(): string[] {
    const names = readdirSync(this.folder).filter((name) => name.startsWith("w-"));
    return names.map((name) => this.liveHolder(name)).filter((holder): holder is string => holder !== null);
  }
}

/** A lock file still empty after this long was left by a holder killed as it took it. */
const EMPTY_ABANDONED_MS = 5_000;

/** How long a full refresh waits for the writes under way to end before giving up. */
const DROP_WAIT_MS = 10_000;

function describeHolder(host: string | undefined, pid: string | undefined): string {
  return host && pid ? `pid ${pid} on ${host}` : "a process starting";
}

/** Creates a lock file naming this process (fails with EEXIST when it exists). */
function create(path: string): void {
  const fd = openSync(path, "wx");
  try {
    writeSync(fd, `${THIS_HOST} ${process.pid}`);
  } finally {
    closeSync(fd);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already (taken over as abandoned by another process).
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
