// Issue 33 item 1: counting and dropping are one routine each for every file store, the presets
// (CSVDestination, FileDestination) and ObjectStoreDestination's backends alike
// (src/destination/store/partition-counts.ts, src/destination/store/own-files.ts).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, IOContext, LocalObjectStoreDestination, type AssetRef } from "../../src/destination/index.js";
import { ANY_DATA_FILE, ownFiles } from "../../src/destination/store/own-files.js";
import { countPartitions, type ListedPartition } from "../../src/destination/store/partition-counts.js";
import { Ledger } from "../../src/destination/store/local/ledger.js";
import { ListPartitionConfig, TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import { makeTempDir } from "../contract/temp-dir.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const ctx = (window: TimePartitionWindow | null = null) => new IOContext({ asset: orders, window, schema: null, metadata: { runId: "t" } });
const days = (first: string, last: string) => new TimePartitionWindow(first, last, TimeGranularity.DAY);

describe("countPartitions", () => {
  const listed = (key: string, rows: number | null): ListedPartition => ({ key, uri: `mem://${key}`, rows });

  it("trusts listed counts, recounts the rest at most `parallel` at a time, and keeps the listing's order", async () => {
    let running = 0;
    let most = 0;
    const partitions = ["a", "b", "c", "d", "e"].map((key, i) => listed(key, i % 2 === 0 ? i : null));
    let settled = false;
    const counted = await countPartitions(
      {
        partitions,
        parallel: 1,
        recount: async (partition) => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
          return partition.key.charCodeAt(0);
        },
        settle: async () => {
          settled = true;
        },
      },
      { key: "shop.orders", partitioning: null },
    );
    expect(Object.entries(counted.counts)).toEqual([
      ["a", 0],
      ["b", 98],
      ["c", 2],
      ["d", 100],
      ["e", 4],
    ]);
    expect(most).toBe(1);
    expect(settled).toBe(true);
  });

  it("reports a partition whose read fails by key and URI, leaves out one gone since the listing, and orders a list's keys as declared", async () => {
    const list = new ListPartitionConfig({ column: "country", values: ["us", "fr", "de"] });
    const partitions = [listed("de", 3), listed("fr", null), listed("gone", null), listed("us", null)];
    const counted = await countPartitions(
      {
        partitions,
        parallel: 8,
        recount: async (partition) => {
          if (partition.key === "fr") throw new Error("Quote Not Closed\nat line 3");
          return partition.key === "gone" ? null : 7;
        },
      },
      { key: "shop.countries", partitioning: list },
    );
    expect(Object.entries(counted.counts)).toEqual([
      ["us", 7],
      ["de", 3],
    ]);
    expect(counted.unreadable).toEqual({ fr: { file: "mem://fr", error: "Quote Not Closed" } });
  });
});

describe("ownFiles", () => {
  it("owns data files at the table's level and one `{column}={key}` level below, nothing deeper, nothing else", async () => {
    const names = [
      "t/data.csv",
      "t/data.parquet",
      "t/README",
      "t/date=1/data.jsonl",
      "t/date=2/notes.txt",
      "t/day=3/data.csv",
      "t/nested/data.csv",
      "t/other/date=4/data.csv",
      "tx/data.csv",
    ];
    expect(await ownFiles(names, "t/", ANY_DATA_FILE)).toEqual({
      names: ["t/data.csv", "t/data.parquet", "t/date=1/data.jsonl", "t/day=3/data.csv"],
      partitions: 2,
      exists: true,
    });
    expect(await ownFiles(["t/date=2/notes.txt", "t/README"], "t/", ANY_DATA_FILE)).toEqual({ names: [], partitions: 0, exists: false });
  });
});

describe("LocalObjectStoreDestination counts as the presets do", () => {
  let base: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ path: base, remove } = await makeTempDir("interloper-routines-")));
  afterEach(async () => remove());

  it("a file the ledger has no current line for is counted once, its count appended, then read from the ledger", async () => {
    for (const dest of [
      new LocalObjectStoreDestination({ basePath: join(base, "os"), format: "csv" }),
      new CSVDestination({ basePath: join(base, "csv") }),
    ]) {
      const window = days("2026-01-01", "2026-01-02");
      await dest.write(
        ctx(window),
        window.partitions.map((p) => ({ date: p.key, n: 1 })),
      );
      const table = join(dest.location, "shop", "orders");
      const file = join(table, "date=2026-01-02", "data.csv");
      // Edited by hand: the ledger's line names the file as written, not this one.
      await writeFile(file, "date,n\n2026-01-02,1\n2026-01-02,2\n");
      const ledger = Ledger.of(table, "data.csv");
      const before = (await ledger.read()).lines;
      expect(await dest.partitionCounts(ctx())).toMatchObject({ counts: { "2026-01-01": 1, "2026-01-02": 2 }, unreadable: {} });
      expect((await ledger.read()).lines).toBe(before + 1);
      expect(await dest.partitionCounts(ctx())).toMatchObject({ counts: { "2026-01-01": 1, "2026-01-02": 2 }, unreadable: {} });
      expect((await ledger.read()).lines).toBe(before + 1);
    }
  });
});
