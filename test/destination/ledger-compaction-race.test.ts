// A compaction reads the journal while writers append to it, then renames a rewritten journal
// over it. A line appended after the read (or seen in part by it: a write crossing a page
// boundary shows its first page before the rest) is not in the new journal; its writer must
// write it again there, and no line may end up after a newer line of the same folder. Both were
// seen in real races (test/reliability/ledger-processes.test.ts): a line read in part and
// dropped, and a line the compactor carried over landing after its writer's next one, whose file
// was then counted again. Here writers act on cue, between the compaction's read and its rename
// and just after the rename: the one fake, standing in for timings the file system cannot be
// made to hit on demand.
import { appendFileSync } from "node:fs";
import { readFile, rename, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Ledger, type LedgerEntry } from "../../src/destination/store/local/ledger.js";
import { entryLine } from "../../src/destination/store/local/ledger-lines.js";
import { makeTempDir } from "../contract/temp-dir.js";

/** Run once each: just before the compaction writes its new journal, and just after the rename. */
const cue = vi.hoisted(() => ({ beforeRename: null as (() => void) | null, afterRename: null as (() => void) | null }));

vi.mock("../../src/destination/store/local/atomic.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/destination/store/local/atomic.js")>();
  return {
    ...real,
    writeFileAtomic: async (...args: Parameters<typeof real.writeFileAtomic>) => {
      const before = cue.beforeRename;
      cue.beforeRename = null;
      before?.();
      const identity = await real.writeFileAtomic(...args);
      const after = cue.afterRename;
      cue.afterRename = null;
      after?.();
      return identity;
    },
  };
});

let dir: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  dir = await makeTempDir("interloper-ledger-race-");
});
afterEach(async () => {
  cue.beforeRename = cue.afterRename = null;
  await dir.remove();
});

const entry = (folder: string, file: string, rows: number): LedgerEntry => ({ folder, file, metadata: { row_count: String(rows) } });
// Lines as writers write them, checksum included (a line without one is refused: issue 41.25).
const line = entryLine;
const OLD = [entry("date=a", "1", 1), entry("date=a", "2", 2), entry("date=b", "3", 3), entry("date=b", "4", 4)];
const FOLDERS = ["date=a", "date=b", "date=c"];

async function lastFiles(ledger: Ledger): Promise<Record<string, string>> {
  const { entries } = await ledger.read();
  return Object.fromEntries([...entries.values()].map((e) => [e.folder, e.file]));
}

describe("Ledger compaction while writers append", () => {
  it("a line appended between the compaction's read and its rename is written again into the new journal", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    await writeFile(path, OLD.map(line).join(""));
    const ledger = new Ledger(path);
    let appended: Promise<void> | null = null;
    cue.beforeRename = () => {
      appended = new Ledger(path).append([entry("date=c", "5", 5)]);
    };
    expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, FOLDERS)).toBe(true);
    await appended;
    expect(await lastFiles(ledger)).toEqual({ "date=a": "2", "date=b": "4", "date=c": "5" });
  });

  for (const cut of [1, 2, 20, 33]) {
    it(`a line the compaction reads in part (its first ${cut} bytes) is dropped whole, and its writer's line lands whole`, async () => {
      const path = join(dir.path, ".data.csv.ledger");
      const appended = line(entry("date=c", "5", 5));
      await writeFile(path, OLD.map(line).join("") + appended.slice(0, cut));
      // The rest of that write lands before the rename; its writer then finds the lock.
      let writer: Promise<void> | null = null;
      cue.beforeRename = () => {
        appendFileSync(path, appended.slice(cut));
        writer = new Ledger(path).append([entry("date=c", "6", 6)]);
      };
      const ledger = new Ledger(path);
      expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, FOLDERS)).toBe(true);
      await writer;
      // Nothing of the line read in part: the new journal holds whole lines only, none of it.
      const lines = (await readFile(path, "utf8")).split("\n").filter(Boolean);
      expect(lines.map((text) => (JSON.parse(text) as [string, string])[1])).toEqual(["2", "4", "6"]);
      expect(await lastFiles(ledger)).toEqual({ "date=a": "2", "date=b": "4", "date=c": "6" });
    });
  }

  it("a writer's older line never lands after its newer one (which would have its file counted again)", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    await writeFile(path, OLD.map(line).join(""));
    const writer = new Ledger(path);
    // One writer, one partition, two rounds: the first line lands in the old journal after the
    // compaction read it; the second is written just after the rename, once the first append is
    // done, the way a writer writes its next partition only once the last is recorded.
    let first: Promise<void> | null = null;
    let rounds: Promise<void> | null = null;
    cue.beforeRename = () => {
      first = writer.append([entry("date=c", "older", 1)]);
    };
    cue.afterRename = () => {
      rounds = first!.then(() => writer.append([entry("date=c", "newer", 2)]));
    };
    const ledger = new Ledger(path);
    expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, FOLDERS)).toBe(true);
    await rounds;
    expect((await lastFiles(ledger))["date=c"]).toBe("newer");
  });

  it("a line appended just after the rename stays the last of its folder", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    await writeFile(path, OLD.map(line).join(""));
    let appended: Promise<void> | null = null;
    cue.afterRename = () => {
      appended = new Ledger(path).append([entry("date=b", "7", 7)]);
    };
    const ledger = new Ledger(path);
    expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, FOLDERS)).toBe(true);
    await appended;
    expect(await lastFiles(ledger)).toEqual({ "date=a": "2", "date=b": "7" });
  });
});

describe("a writer and the compaction lock", () => {
  it("waits while a compaction holds the lock, then writes its line again", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    await writeFile(path, OLD.map(line).join(""));
    const lock = `${path}.compacting`;
    await writeFile(lock, "");
    let done = false;
    const appended = new Ledger(path).append([entry("date=c", "5", 5)]).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(done, "the append returned while the compaction lock was held").toBe(false);
    // The compaction ends (here: its journal is replaced, without the line, and the lock removed).
    await writeFile(`${path}.new`, OLD.map(line).join(""));
    await rename(`${path}.new`, path);
    await unlink(lock);
    await appended;
    expect(await lastFiles(new Ledger(path))).toEqual({ "date=a": "2", "date=b": "4", "date=c": "5" });
  });

  it("does not wait for a lock left by a process killed mid-compaction", async () => {
    const path = join(dir.path, ".data.csv.ledger");
    const lock = `${path}.compacting`;
    await writeFile(lock, "");
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(lock, minuteAgo, minuteAgo);
    // Within the test's time limit, whatever the machine's load: the lock is not waited for.
    await new Ledger(path).append([entry("date=a", "1", 1)]);
    expect(await lastFiles(new Ledger(path))).toEqual({ "date=a": "1" });
    expect((await readFile(path, "utf8")).split("\n").filter(Boolean)).toHaveLength(1);
  });
});
