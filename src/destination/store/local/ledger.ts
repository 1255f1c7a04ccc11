import { closeSync, fstatSync, openSync, readSync, statSync, writeSync } from "node:fs";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "./atomic.js";
import { addRead, entryLine, type LedgerEntry, type LedgerRead, parseLedger } from "./ledger-lines.js";
import { compactedJournal, historyPathOf, readHistory } from "./ledger-history.js";

export type { LedgerEntry, LedgerRead } from "./ledger-lines.js";

/**
 * The bookkeeping of every file-backed destination (CSV, File, the local object store): one
 * append-only journal per table folder, `{table}/.{fileName}.ledger`, one JSON line per write of
 * a data file `{table}/{folder}/{fileName}`, with its materialization record when it has one. A
 * write appends its line just before its file is renamed into place, with the file open (see
 * file-identity.ts): one small O_APPEND write, whatever the table's size. The newest line of a
 * folder naming the file there wins (`currentEntry`).
 *
 * Why it stays exact:
 * - Appends of several processes never overwrite one another (O_APPEND moves to the end and
 *   writes in one step), so no process loses another's line, unlike a read-merge-rewrite index.
 * - A line is only ever trusted for the file it names. A line missing (a file of an older
 *   version killed before its append, a machine crash before the page cache reached the disk), cut short,
 *   or naming a file since replaced, makes the reader count that file's rows again (and append
 *   what it counted). Each line starts and ends with a newline, so a line cut short by a crash
 *   spoils only itself, never the next writer's.
 * - Compaction (when most lines are superseded) rewrites the journal with the lines each folder
 *   still needs (ledger-history.ts) and renames it over the old one, under a lock file. A writer makes sure its own line
 *   reaches the journal that stays: after writing it, it checks the lock, then that the journal it
 *   wrote is still the one at the path. No lock then means the line was written before any
 *   compaction read the journal (and is carried by it) or after the last one renamed its journal
 *   in (and the path check tells whether it landed in the new one). A lock means a compaction may
 *   have read the journal without this line: the writer waits for it to end and writes the line
 *   again. The compactor never carries lines over itself: a line it copied after its rename could
 *   land after a newer line of the same folder, which would then be shadowed and its file counted
 *   again. A line written twice is harmless: the last one wins, and any line that does not name
 *   the current file is ignored.
 */
export class Ledger {
  constructor(readonly path: string) {}

  /** The ledger of data files named `fileName` in the folders of `table`. */
  static of(table: string, fileName: string): Ledger {
    return new Ledger(join(table, `.${fileName}.ledger`));
  }

  /**
   * Appends entries in one write, then makes sure they are in the journal a running compaction
   * leaves behind (see above). Synchronous calls: on a local disk each takes microseconds, less
   * than a round trip through libuv's thread pool; only a compaction under way makes it wait.
   * Best effort: the journal is a cache of what the data files hold, so a failure (a read-only
   * folder, a full disk, a compaction that outlasts COMPACTION_WAIT_MS) only means the file is
   * counted again later.
   */
  async append(entries: readonly LedgerEntry[], options: { readonly strict?: boolean } = {}): Promise<void> {
    if (entries.length === 0) return;
    const bytes = Buffer.from(entries.map(entryLine).join(""));
    const lock = lockOf(this.path);
    const giveUpAt = Date.now() + COMPACTION_WAIT_MS;
    try {
      for (let attempt = 0; attempt < MAX_APPENDS; attempt++) {
        // Held open through both checks: the journal's inode cannot pass to a newer journal meanwhile.
        const fd = openSync(this.path, "a");
        try {
          for (let at = 0; at < bytes.byteLength;) at += writeSync(fd, bytes, at);
          if (!isRunningCompaction(lock)) {
            const mine = fstatSync(fd);
            const current = statSync(this.path, { throwIfNoEntry: false });
            if (!current || (current.ino === mine.ino && current.dev === mine.dev)) return;
            // Another journal was renamed in after this one was opened: again, into that one.
            continue;
          }
        } finally {
          closeSync(fd);
        }
        // A compaction may have read the journal before this line: once it is done, again.
        if (Date.now() >= giveUpAt) break;
        await waitForCompaction(lock, giveUpAt);
      }
    } catch (error) {
      // See above: a lost line is a recount, never a wrong count. A line holding a write's
      // record is strict: its write fails before its rename (see LocalFolder.put).
      if (options.strict) throw error;
      return;
    }
    if (options.strict) throw new Error(`the ledger ${this.path} is being compacted by another process; gave up waiting to append to it`);
  }

  /**
   * The last entry of each folder, and how many lines the journal holds; empty when there is
   * none. The map is shared with later reads in this process (see `lastReads`): read it, never
   * change it. Read without the thread pool: a run looks up records before each upstream read
   * (issue 41, item 10), the journal most often unchanged, and a round trip costs several reads.
   */
  async read(): Promise<LedgerRead> {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      lastReads.delete(this.path);
      return { entries: new Map(), earlier: new Map(), lines: 0 };
    }
    try {
      const { dev, ino, size } = fstatSync(fd);
      const known = lastReads.get(this.path);
      // The same file, only appended to since (a compaction renames a new file in, and the bytes
      // last read are still there, so it was not rewritten in place): only the new lines are
      // read. Anything else, a journal cut shorter included, is read whole.
      let from: KnownRead | null = null;
      let bytes: Buffer | null = null;
      if (known && known.dev === dev && known.ino === ino && known.read <= size) {
        const read = readRangeSync(fd, known.read - known.seen.byteLength, size);
        if (read.subarray(0, known.seen.byteLength).equals(known.seen)) [from, bytes] = [known, read.subarray(known.seen.byteLength)];
        if (from && bytes!.byteLength === 0) return known; // nothing appended: the last read stands
      }
      const start = from ? from.read : 0;
      bytes ??= readRangeSync(fd, 0, size);
      // Only whole lines: a line being appended may be seen in part (see compactIfWorthIt); it
      // is read again, whole, next time.
      const whole = bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1);
      const added = parseLedger(whole.toString("utf8"));
      let read = added;
      if (from) {
        addRead(from, added);
        const { entries, earlier, rejected } = from;
        read = { entries, earlier, ...(rejected && { rejected }), lines: from.lines + added.lines };
      }
      // A copy (concat copies), so that the journal's bytes are not kept alive through it.
      const seen = Buffer.concat([from ? from.seen : Buffer.alloc(0), whole.subarray(-SEEN_BYTES)]).subarray(-SEEN_BYTES);
      remember(this.path, { ...read, dev, ino, read: start + whole.byteLength, seen });
      return read;
    } catch {
      lastReads.delete(this.path);
      return { entries: new Map(), earlier: new Map(), lines: 0 };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Rewrites the journal with what each folder still needs (see `compactedJournal` in
   * ledger-history.ts: the lines naming the file there now, lines of writes that may still be
   * under way) when it holds at least twice as many lines as `folders` (those holding a data
   * file), its records of past writes moved to the history beside it (`.{fileName}.ledger.history`,
   * written first: a kill between the two leaves a record in both, read once). One process at a
   * time (a lock file beside it, taken with O_EXCL); another process's compaction under way, or
   * any failure, leaves the journal as it is: it is only ever larger than it needs to be.
   */
  async compactIfWorthIt(lines: number, folders: readonly string[]): Promise<boolean> {
    if (lines < COMPACT_MIN_LINES || lines < 2 * folders.length) return false;
    const lock = lockOf(this.path);
    const locked = await open(lock, "wx").then(
      (handle) => handle.close().then(() => true),
      () => false,
    );
    if (!locked) {
      await removeAbandonedLock(lock);
      return false;
    }
    try {
      const read = await readFile(this.path).catch(() => null);
      if (!read) return false;
      // Only whole lines are taken from this read. A line being appended at this moment can be
      // seen in part (a write crossing a page boundary shows its first page before the rest);
      // its writer will find the lock and write it again, as it does any line appended since.
      const journal = parseLedger(read.subarray(0, read.lastIndexOf(0x0a) + 1).toString("utf8"));
      const history = historyPathOf(this.path);
      const compacted = compactedJournal(this.path, journal, await readHistory(history), new Set(folders));
      if (compacted.history !== null) await writeFileAtomic(history, [compacted.history], { durable: false });
      await writeFileAtomic(this.path, [compacted.journal.map(entryLine).join("")], { durable: false });
      return true;
    } catch {
      return false;
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }
}

/** A read of a journal, with the file it read (device and inode), how many bytes of it, and the last of those bytes. */
interface KnownRead extends LedgerRead {
  readonly dev: number;
  readonly ino: number;
  readonly read: number;
  readonly seen: Buffer;
}

/** How many of the bytes last read are compared before reading only what follows them. */
const SEEN_BYTES = 256;

/** The bytes of a file open as `fd` from `start` to `end` (fewer when it is shorter by then). */
function readRangeSync(fd: number, start: number, end: number): Buffer {
  const bytes = Buffer.alloc(end - start);
  let at = 0;
  while (at < bytes.byteLength) {
    const read = readSync(fd, bytes, at, bytes.byteLength - at, start + at);
    if (read === 0) break;
    at += read;
  }
  return bytes.subarray(0, at);
}

/**
 * The last read of the journals this process read most recently. Coverage of 100,000 partitions
 * spent a third of its time parsing a 10 MB journal; a process that counts a table again (the
 * explorer, a worker, a report) reads only the lines appended since. Bounded: a long-lived
 * process reading many tables keeps the newest few.
 */
const lastReads = new Map<string, KnownRead>();
const KEPT_READS = 16;

function remember(path: string, read: KnownRead): void {
  lastReads.delete(path);
  lastReads.set(path, read);
  if (lastReads.size > KEPT_READS) lastReads.delete(lastReads.keys().next().value!);
}

/** Below this many lines a journal is never compacted: reading it costs less than rewriting it. */
const COMPACT_MIN_LINES = 1_000;

/** A compaction lock older than this was left by a process killed mid-compaction (a compaction takes well under a second). */
const LOCK_ABANDONED_MS = 10 * 60 * 1000;

/**
 * How long a writer waits for a compaction to end before leaving its line where it is (then
 * maybe lost: a recount). A compaction of a journal of 100,000 lines takes about half a
 * second; a lock older than this is taken for one a killed process left, so that such a lock
 * holds up every writer of the table for at most this long, not until LOCK_ABANDONED_MS.
 */
const COMPACTION_WAIT_MS = 10_000;

/** Bounds the appends of one line when journals keep being renamed in under it; each needs a compaction to have run. */
const MAX_APPENDS = 1_000;

function lockOf(journal: string): string {
  return `${journal}.compacting`;
}

/** Whether a compaction holds the lock, taken recently enough to be running (see COMPACTION_WAIT_MS). */
function isRunningCompaction(lock: string): boolean {
  const info = statSync(lock, { throwIfNoEntry: false });
  return info !== undefined && Date.now() - info.mtimeMs < COMPACTION_WAIT_MS;
}

/** Until the lock is gone (or taken for abandoned), or `giveUpAt`; polled, from 1 ms up to 50 ms apart. */
async function waitForCompaction(lock: string, giveUpAt: number): Promise<void> {
  for (let pause = 1; isRunningCompaction(lock) && Date.now() < giveUpAt; pause = Math.min(pause * 2, 50)) {
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

async function removeAbandonedLock(lock: string): Promise<void> {
  const info = await stat(lock).catch(() => null);
  if (info && Date.now() - info.mtimeMs > LOCK_ABANDONED_MS) await unlink(lock).catch(() => undefined);
}

/** The ledger holding a data file's entry, and the entry's folder: `{table}/{folder}/{file}`. */
export function ledgerOf(path: string): { ledger: Ledger; folder: string } {
  const folder = dirname(path);
  return { ledger: Ledger.of(dirname(folder), basename(path)), folder: basename(folder) };
}

/** A `row_count` as the ledger (or an object's metadata) holds it: digits only, a safe integer. */
export function parseCount(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}
