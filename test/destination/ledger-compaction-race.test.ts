// A compaction reads the journal while writers append to it. A line being appended at that
// moment can be read in part (a write that crosses a page boundary shows its first page before
// the rest); the writer, having found the journal unchanged at its path, does not append it
// again. The compaction must still carry that line whole. A real race showed it, in about one
// run in three of test/reliability/ledger-processes.test.ts (the "file" kind, long variant);
// here the writer's second half lands, on cue, between the compaction's read and its rename:
// the one fake, standing in for a page boundary the file system cannot be made to hit on demand.
import { appendFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Ledger } from "../../src/destination/files/ledger.js";
import { makeTempDir } from "../contract/temp-dir.js";

/** Runs once, just before the compaction writes the new journal: the rest of the line being appended. */
const beforeRename = vi.hoisted(() => ({ run: null as (() => void) | null }));

vi.mock("../../src/destination/files/atomic.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/destination/files/atomic.js")>();
  return {
    ...real,
    writeFileAtomic: (...args: Parameters<typeof real.writeFileAtomic>) => {
      beforeRename.run?.();
      beforeRename.run = null;
      return real.writeFileAtomic(...args);
    },
  };
});

let dir: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  dir = await makeTempDir("interloper-ledger-race-");
});
afterEach(async () => {
  beforeRename.run = null;
  await dir.remove();
});

const line = (folder: string, file: string, rows: number) => `\n${JSON.stringify([folder, file, { row_count: String(rows) }])}\n`;

describe("Ledger compaction", () => {
  for (const cut of [1, 2, 20, 57]) {
    it(`carries a line read in part (the first ${cut} bytes) whole into the new journal`, async () => {
      const path = join(dir.path, ".data.csv.ledger");
      const old = [line("date=a", "1", 1), line("date=a", "2", 2), line("date=b", "3", 3), line("date=b", "4", 4)].join("");
      const appended = line("date=c", "5", 5);
      // The compaction reads the journal with the first `cut` bytes of date=c's line in it...
      await writeFile(path, old + appended.slice(0, cut));
      // ...and the rest arrives before its rename.
      beforeRename.run = () => appendFileSync(path, appended.slice(cut));
      const ledger = new Ledger(path);
      expect(await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, ["date=a", "date=b", "date=c"])).toBe(true);
      const { entries } = await ledger.read();
      expect(Object.fromEntries([...entries.values()].map((entry) => [entry.folder, entry.file]))).toEqual({
        "date=a": "2",
        "date=b": "4",
        "date=c": "5",
      });
      // Superseded lines are gone.
      expect((await readFile(path, "utf8")).split("\n").filter(Boolean)).toHaveLength(3);
    });
  }
});
