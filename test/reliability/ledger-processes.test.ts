// Several processes writing one table at once (shards, `--processes`), while the table's ledger
// is compacted again and again: a count one process recorded is never lost by another's write
// or by a compaction. Each writer is a real child process (count-writer.mjs, through the built
// package) with its own partitions; afterwards every partition's count must come from the
// ledger itself, with no file recounted.
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/object-store/index.js";
import { Ledger } from "../../src/destination/files/ledger.js";
import { PartitionFiles } from "../../src/destination/files/partition-files.js";
import { TimePartitionConfig } from "../../src/partitioning/index.js";
import { ensureBuilt, LONG, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
beforeAll(ensureBuilt, 180_000);

const WRITER = fileURLToPath(new URL("./count-writer.mjs", import.meta.url));
const WRITERS = 3;
const PARTITIONS_EACH = 6;
const ROUNDS = LONG ? 200 : 30;
const ASSET: AssetRef = { key: "race.counts", table: "counts", dataset: "race", partitioning: new TimePartitionConfig({ column: "date", start: "2020-01-01" }) };
const KINDS = [
  { kind: "csv", file: "data.csv" },
  { kind: "file", file: "data.v8" },
  { kind: "jsonl", file: "data.jsonl" },
] as const;

/** A writer process whose every write holds `rows` rows; `write` resolves once the partition is written. */
async function startWriter(kind: string, base: string, rows: number): Promise<{ write(key: string): Promise<void>; stop(): Promise<void> }> {
  const child: ChildProcess = fork(WRITER, [kind, base, JSON.stringify(Array.from({ length: rows }, (_, n) => ({ n, text: "x" }))), "false"], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit");
  const next = () =>
    Promise.race([
      once(child, "message").then(([message]) => message as { ready?: true; error?: string }),
      exited.then(() => Promise.reject(new Error(`writer exited: ${stderr}`))),
    ]);
  await next();
  return {
    async write(key) {
      const reply = next();
      child.send({ key });
      const message = await reply;
      if (message.error) throw new Error(message.error);
    },
    async stop() {
      child.kill();
      await exited;
    },
  };
}

const day = (i: number) => new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10);

describe("processes writing one table at once while its ledger is compacted", () => {
  for (const { kind, file } of KINDS) {
    it(`${kind}: after ${WRITERS} writers x ${PARTITIONS_EACH} partitions x ${ROUNDS} rounds, every count is the ledger's, none recounted`, async () => {
      const base = await tempDir();
      const table = join(base, "race", "counts");
      const ledger = Ledger.of(table, file);
      const folders = new Set(Array.from({ length: WRITERS * PARTITIONS_EACH }, (_, i) => `date=${day(i)}`));
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
        for await (const object of store.listObjects("race/counts/")) listed[object.name.split("/")[2]!.slice("date=".length)] = object.metadata["row_count"];
        expect(listed).toEqual(Object.fromEntries(Object.entries(expected).map(([key, rows]) => [key, String(rows)])));
      } else {
        let recounts = 0;
        const files = new PartitionFiles(() => base, file, kind, false);
        const counts = await files.rowCounts(context, async () => {
          recounts++;
          return -1;
        });
        expect(recounts, "files counted again because their ledger line was lost").toBe(0);
        expect(counts).toEqual(expected);
      }
    }, 300_000);
  }
});
