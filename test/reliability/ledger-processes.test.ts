// Several processes writing one table at once (shards, `--processes`), while the table's ledger
// is compacted again and again: a count one process recorded is never lost by another's write
// or by a compaction. Each writer is a real child process (count-writer.mjs, through the built
// package) with its own partitions; afterwards every partition's count must come from the
// ledger itself, with no file recounted.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { deserialize } from "node:v8";
import { beforeAll, describe, expect, it } from "vitest";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import { Ledger } from "../../src/destination/store/local/ledger.js";
import { PartitionFiles } from "../../src/destination/store/local/partition-files.js";
import { TimePartitionConfig } from "../../src/partitioning/index.js";
import { ROOT } from "../e2e/helpers.js";
import { day, startCountWriter } from "./count-writers.js";
import { ensureBuilt, LONG, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
beforeAll(ensureBuilt, 180_000);

const WRITERS = 3;
const PARTITIONS_EACH = 6;
// Rounds of every writer's partitions: 10 in a plain `npm test`, 100 in the long variant (CI).
const ROUNDS = LONG ? 100 : 10;
const ASSET: AssetRef = {
  key: "race.counts",
  table: "counts",
  dataset: "race",
  partitioning: new TimePartitionConfig({ column: "date", start: "2020-01-01" }),
};
const KINDS = [
  { kind: "csv", file: "data.csv" },
  { kind: "file", file: "data.v8" },
  { kind: "jsonl", file: "data.jsonl" },
] as const;

/** A writer process whose every write holds `rows` rows, without syncs. */
const startWriter = (kind: string, base: string, rows: number) =>
  startCountWriter(
    kind,
    base,
    Array.from({ length: rows }, (_, n) => ({ n, text: "x" })),
    false,
  );

describe("processes writing one table at once while its ledger is compacted", () => {
  for (const { kind, file } of KINDS) {
    it(`${kind}: after ${WRITERS} writers x ${PARTITIONS_EACH} partitions x ${ROUNDS} rounds, every count is the ledger's, none recounted`, async () => {
      const base = await tempDir();
      const table = join(base, "race", "counts");
      const ledger = Ledger.of(table, file);
      const folders = Array.from({ length: WRITERS * PARTITIONS_EACH }, (_, i) => `date=${day(i)}`);
      // Writer w writes `w + 1` rows to its own partitions w, w + WRITERS, ...
      const writers = await Promise.all(Array.from({ length: WRITERS }, (_, w) => startWriter(kind, base, w + 1)));
      let done = false;
      let compactions = 0;
      const compacting = (async () => {
        while (!done) {
          // Forced: as if the ledger had grown past the point where a count compacts it.
          if (await ledger.compactIfWorthIt(Number.MAX_SAFE_INTEGER, folders)) compactions++;
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      })();
      try {
        await Promise.all(
          writers.map(async (writer, w) => {
            for (let round = 0; round < ROUNDS; round++) {
              for (let p = 0; p < PARTITIONS_EACH; p++) await writer.write(day(w + p * WRITERS));
            }
          }),
        );
      } finally {
        done = true;
        await compacting;
        await Promise.all(writers.map((writer) => writer.stop()));
      }
      expect(compactions, "compactions that ran while the writers wrote").toBeGreaterThan(0);
      const expected = Object.fromEntries(Array.from({ length: WRITERS * PARTITIONS_EACH }, (_, i) => [day(i), (i % WRITERS) + 1]).sort());
      const context = new IOContext({ asset: ASSET, window: null, metadata: { runId: "ledger" } });
      if (kind === "jsonl") {
        const store = new LocalObjectStoreDestination({ basePath: base, format: "jsonl" });
        const listed: Record<string, string | undefined> = {};
        for await (const object of store.listObjects("race/counts/"))
          listed[object.name.split("/")[2]!.slice("date=".length)] = object.metadata["row_count"];
        expect(listed).toEqual(Object.fromEntries(Object.entries(expected).map(([key, rows]) => [key, String(rows)])));
      } else {
        let recounts = 0;
        const files = new PartitionFiles(() => base, file, kind, false);
        const { counts } = await files.rowCounts(context, async () => {
          recounts++;
          return -1;
        });
        expect(recounts, "files counted again because their ledger line was lost").toBe(0);
        expect(counts).toEqual(expected);
      }
    }, 300_000);
  }
});

describe("a writer killed between its data file's rename and its ledger line", () => {
  for (const { kind, file } of KINDS.filter((k) => k.kind !== "jsonl")) {
    it(`${kind}: the partition is counted exactly, by a read of its file, and its count is in the ledger from then on`, async () => {
      const base = await tempDir();
      const table = join(base, "race", "counts");
      // An earlier write of the partition: its line names the file about to be replaced.
      const first = await startWriter(kind, base, 2);
      await first.write("2020-01-01");
      await first.stop();
      const target = join(table, "date=2020-01-01", file);
      const before = await readFile(target);
      const second = await startWriter(kind, base, 5);
      await second.write("2020-01-02");
      await second.stop();
      // A process renames a 5-row file over the partition, then is killed before its ledger line.
      await killAfterRename(target, await readFile(join(table, "date=2020-01-02", file)));
      expect(before.byteLength).not.toBe((await readFile(target)).byteLength);
      let recounts = 0;
      const files = new PartitionFiles(() => base, file, kind, false);
      const context = new IOContext({ asset: ASSET, window: null, metadata: { runId: "ledger" } });
      const counted = async (handle: import("node:fs/promises").FileHandle) => {
        recounts++;
        return kind === "csv"
          ? (await handle.readFile("utf8")).trim().split("\n").length - 1
          : (deserialize(await handle.readFile()) as unknown[]).length;
      };
      expect((await files.rowCounts(context, counted)).counts).toEqual({ "2020-01-01": 5, "2020-01-02": 5 });
      expect(recounts).toBe(1);
      expect((await files.rowCounts(context, counted)).counts).toEqual({ "2020-01-01": 5, "2020-01-02": 5 });
      expect(recounts, "the recount's line serves the next count").toBe(1);
    }, 120_000);
  }
});

/**
 * Writes `bytes` over `target` the way every file destination does (writeFileAtomic, loaded from
 * src with jiti), in a process that stalls right after the rename, where the destination appends
 * its ledger line, and is SIGKILLed there.
 */
async function killAfterRename(target: string, bytes: Buffer): Promise<void> {
  const atomic = join(ROOT, "src", "destination", "store", "local", "atomic.ts");
  const script = `
    import { createJiti } from "jiti";
    const { writeFileAtomic } = await createJiti(${JSON.stringify(pathToFileURL(ROOT).href)}).import(${JSON.stringify(atomic)});
    await writeFileAtomic(process.env.TARGET, [Buffer.from(process.env.BYTES, "base64")], {
      whileOpen: async () => {
        process.stdout.write("renamed\\n");
        await new Promise(() => setInterval(() => {}, 1000));
      },
    });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    env: { ...process.env, TARGET: target, BYTES: bytes.toString("base64") },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  let out = "";
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    if (out.includes("renamed")) break;
  }
  child.kill("SIGKILL");
  const [code, signal] = await exited;
  expect(signal, `the writer exited by itself (${code})`).toBe("SIGKILL");
}
