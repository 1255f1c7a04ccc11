// Row counts kept beside partition files, under racing writers: two processes write the same
// partition at the same moment, one 1 row and the other 2 rows of exactly the same byte size,
// pair after pair. File times advance in clock ticks (4 ms here), so both files often share a
// size and a modification time; a count record that named its file by those alone could
// describe the loser's file beside the winner's, and be trusted from then on. Afterwards every
// partition's count must equal the rows a read returns.
import { stat } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { CSVDestination, type Destination, FileDestination, IOContext, type AssetRef } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import { TableData } from "../../src/representation/index.js";
import { TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import { day, startCountWriter } from "./count-writers.js";
import { ensureBuilt, LONG, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
beforeAll(ensureBuilt, 180_000);

const PAIRS = LONG ? 400 : 150;
type Kind = "csv" | "file" | "jsonl";
// Without syncs a write takes a fraction of a clock tick and the races are tightest; with them
// (the default) each write takes longer.
const CASES: ReadonlyArray<{ kind: Kind; durable: boolean }> = [
  { kind: "csv", durable: false },
  { kind: "file", durable: false },
  { kind: "jsonl", durable: false },
  { kind: "csv", durable: true },
];
type Rows = Array<{ n: number; text: string }>;

const ASSET: AssetRef = {
  key: "race.counts",
  table: "counts",
  dataset: "race",
  partitioning: new TimePartitionConfig({ column: "date", start: "2020-01-01" }),
};
const contextOf = (partition: TimePartition | null) => new IOContext({ asset: ASSET, window: partition, metadata: { runId: "race" } });

function destinationOf(kind: Kind, base: string): Destination {
  if (kind === "csv") return new CSVDestination({ basePath: base });
  if (kind === "file") return new FileDestination({ basePath: base });
  return new LocalObjectStoreDestination({ basePath: base, format: kind });
}

/** The bytes a partition of these rows takes in this kind of file (written once, then measured). */
async function sizeOf(kind: Kind, base: string, rows: Rows): Promise<number> {
  const destination = destinationOf(kind, base);
  const partition = TimePartition.fromKey("2019-12-31");
  await destination.writePartition(
    contextOf(partition),
    partition,
    rows.map((row) => ({ date: partition.key, ...row })),
  );
  const path =
    destination instanceof LocalObjectStoreDestination
      ? destination.objectUri(destination.objectName(contextOf(partition), partition))
      : (destination as CSVDestination | FileDestination).pathOf(contextOf(partition), partition);
  return (await stat(path)).size;
}

/** One row and two rows whose files have exactly the same size. */
async function sameSizeRows(kind: Kind, scratch: string): Promise<[Rows, Rows]> {
  const two: Rows = [
    { n: 0, text: "b" },
    { n: 1, text: "b" },
  ];
  const target = await sizeOf(kind, scratch, two);
  for (let length = 0; length < 400; length++) {
    const one: Rows = [{ n: 0, text: "a".repeat(length) }];
    const size = await sizeOf(kind, scratch, one);
    if (size === target) return [one, two];
    if (size > target) break;
  }
  throw new Error(`${kind}: no one-row partition has the size of the two-row one (${target} bytes)`);
}

describe("two processes writing one partition at once, files of the same size", () => {
  for (const { kind, durable } of CASES) {
    it(`${kind}${durable ? "" : " (durable: false)"}: after ${PAIRS} racing pairs, every partition's row count is what a read of it returns`, async () => {
      const base = await tempDir();
      const [one, two] = await sameSizeRows(kind, await tempDir());
      const writers = await Promise.all([startCountWriter(kind, base, one, durable), startCountWriter(kind, base, two, durable)]);
      try {
        // Both are asked at once, so their writes of each partition overlap.
        for (let i = 0; i < PAIRS; i++) await Promise.all(writers.map((writer) => writer.write(day(i))));
      } finally {
        await Promise.all(writers.map((writer) => writer.stop()));
      }
      const destination = destinationOf(kind, base);
      const counts = await destination.partitionRowCounts(contextOf(null));
      const wrong: string[] = [];
      for (let i = 0; i < PAIRS; i++) {
        const partition = TimePartition.fromKey(day(i));
        const read = TableData.from(await destination.readPartition(contextOf(partition), partition))!.length;
        if (counts[partition.key] !== read) wrong.push(`${partition.key}: counted ${counts[partition.key]}, reads ${read} rows`);
      }
      expect(wrong, `${wrong.length} of ${PAIRS} partitions counted wrong`).toEqual([]);
      expect(Object.keys(counts)).toHaveLength(PAIRS);
    }, 120_000);
  }
});
