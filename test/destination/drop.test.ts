// Issue 17 item 6: `materialize --full-refresh` drops everything a destination holds of an
// asset. Each built-in destination drops the asset's own data and bookkeeping (row-count
// sidecars, indexes, metadata), never a sibling whose name the asset's is a prefix of
// (`orders` vs `orders_daily`), never another asset's folder nested in its own (an asset
// `shop` without dataset beside the dataset `shop`), never a file it did not write.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { fullRefresh } from "../../src/api/full-refresh.js";
import { findAsset, projectOf } from "../../src/api/project.js";
import {
  CSVDestination,
  type Destination,
  FileDestination,
  IOContext,
  LocalObjectStoreDestination,
  MemoryDestination,
  ObjectStoreDestination,
  type AssetRef,
  type StoredObject,
} from "../../src/destination/index.js";
import { ConfigError, DataNotFoundError } from "../../src/errors.js";
import { TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";
import { InertDatabaseDestination, InertDestination } from "../support/stub-destinations.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const ordersDaily: AssetRef = { key: "shop.orders_daily", table: "orders_daily", dataset: "shop", partitioning: daily };
// No dataset: its folder is `shop`, the folder of the dataset `shop` too.
const shopAsset: AssetRef = { key: "shop", table: "shop", dataset: null, partitioning: null };

const days = (first: string, last: string) => new TimePartitionWindow(first, last, TimeGranularity.DAY);
const ctx = (asset: AssetRef, window: TimePartitionWindow | null = null) =>
  new IOContext({ asset, window, schema: null, metadata: { runId: "t" } });
const rows = (window: TimePartitionWindow) => window.partitions.map((p, i) => ({ date: p.key, n: i }));

interface Case {
  readonly name: string;
  /** The destination, and the folder its files live in (null: in memory). */
  make(base: string): Destination;
  readonly onDisk: boolean;
  /** The `what` of describeDrop for shop.orders, given the base folder. */
  what(base: string): string;
}

const CASES: Case[] = [
  {
    name: "CSVDestination",
    make: (base) => new CSVDestination({ basePath: base }),
    onDisk: true,
    what: (base) => `folder ${join(base, "shop", "orders")}`,
  },
  {
    name: "FileDestination",
    make: (base) => new FileDestination({ basePath: base }),
    onDisk: true,
    what: (base) => `folder ${join(base, "shop", "orders")}`,
  },
  {
    name: "LocalObjectStoreDestination",
    make: (base) => new LocalObjectStoreDestination({ basePath: base, prefix: "raw", format: "csv" }),
    onDisk: true,
    what: (base) => `objects under ${join(base, "raw", "shop", "orders")}/`,
  },
  {
    name: "MemoryDestination",
    make: () => new MemoryDestination(),
    onDisk: false,
    what: () => "keys shop/orders and shop/orders/*=* in memory",
  },
];

describe.each(CASES)("$name drops an asset", (c) => {
  let base: string;
  let remove: () => Promise<void>;
  let dest: Destination;

  beforeEach(async () => {
    ({ path: base, remove } = await makeTempDir("interloper-drop-"));
    MemoryDestination.clear();
    dest = c.make(base);
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-03")), rows(days("2026-01-01", "2026-01-03")));
    await dest.write(ctx(ordersDaily, days("2026-01-01", "2026-01-02")), rows(days("2026-01-01", "2026-01-02")));
    await dest.write(ctx(shopAsset), [{ n: 1 }]);
  });
  afterEach(async () => {
    MemoryDestination.clear();
    await remove();
  });

  it("describes what it would drop, then drops the asset's partitions and bookkeeping, and nothing of its siblings", async () => {
    expect(dest.missingDropHook()).toBeNull();
    expect(await dest.describeDrop(ctx(orders))).toEqual({ what: c.what(base), partitions: 3, exists: true });
    await dest.dropAsset!(ctx(orders));
    expect(await dest.partitionRowCounts(ctx(orders))).toEqual({});
    await expect(dest.read(ctx(orders, days("2026-01-01", "2026-01-01")))).rejects.toThrow(DataNotFoundError);
    expect(await dest.describeDrop(ctx(orders))).toEqual({ what: c.what(base), partitions: 0, exists: false });
    // The sibling with a longer name and the asset whose folder holds the dataset are intact.
    expect(await dest.partitionRowCounts(ctx(ordersDaily))).toEqual({ "2026-01-01": 1, "2026-01-02": 1 });
    expect(await dest.read(ctx(shopAsset))).toEqual([{ n: c.onDisk && c.name !== "FileDestination" ? "1" : 1 }]);
    if (c.onDisk) {
      const left = await listFiles(base);
      expect(left.filter((f) => f.includes("/orders/"))).toEqual([]);
      expect(left.some((f) => f.includes("orders_daily/date=2026-01-02/"))).toBe(true);
    }
    // Dropping what is gone is no error.
    await dest.dropAsset!(ctx(orders));
  });

  it("an unpartitioned asset whose folder holds another dataset's tables: only its own data goes", async () => {
    expect(await dest.describeDrop(ctx(shopAsset))).toMatchObject({ partitions: null, exists: true });
    await dest.dropAsset!(ctx(shopAsset));
    await expect(dest.read(ctx(shopAsset))).rejects.toThrow(DataNotFoundError);
    expect(await dest.describeDrop(ctx(shopAsset))).toMatchObject({ exists: false });
    expect(await dest.partitionRowCounts(ctx(orders))).toEqual({ "2026-01-01": 1, "2026-01-02": 1, "2026-01-03": 1 });
    expect(await dest.partitionRowCounts(ctx(ordersDaily))).toEqual({ "2026-01-01": 1, "2026-01-02": 1 });
  });
});

describe("the file destinations leave what they did not write", () => {
  let base: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ path: base, remove } = await makeTempDir("interloper-drop-")));
  afterEach(async () => remove());

  it("a stranger's file in the table folder, and a `k=v` folder holding one, survive; the folder then stays", async () => {
    const dest = new CSVDestination({ basePath: base });
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), rows(days("2026-01-01", "2026-01-02")));
    await writeFile(join(base, "shop", "orders", "README.txt"), "mine");
    await mkdir(join(base, "shop", "orders", "notes=2026"));
    await writeFile(join(base, "shop", "orders", "notes=2026", "todo.txt"), "mine too");
    expect(await dest.describeDrop(ctx(orders))).toMatchObject({ partitions: 2, exists: true });
    await dest.dropAsset!(ctx(orders));
    expect(await listFiles(join(base, "shop", "orders"))).toEqual(["README.txt", "notes=2026/todo.txt"]);
  });

  it("issue 31.14: a stranger's file in a partition folder neither keeps that partition's data nor hides it from the count", async () => {
    for (const make of [(b: string) => new CSVDestination({ basePath: b }), (b: string) => new FileDestination({ basePath: b })]) {
      const dest = make(base);
      await dest.write(ctx(orders, days("2026-01-01", "2026-01-03")), rows(days("2026-01-01", "2026-01-03")));
      const table = join(base, "shop", "orders");
      await writeFile(join(table, "date=2026-01-01", ".DS_Store"), "finder");
      await writeFile(join(table, "date=2026-01-02", "README"), "notes");
      // A folder holding only a stranger's file is no partition.
      await mkdir(join(table, "date=2026-01-09"));
      await writeFile(join(table, "date=2026-01-09", ".DS_Store"), "finder");
      expect(await dest.describeDrop(ctx(orders))).toMatchObject({ partitions: 3, exists: true });
      await dest.dropAsset!(ctx(orders));
      expect(await dest.partitionRowCounts(ctx(orders))).toEqual({});
      expect(await listFiles(table)).toEqual(["date=2026-01-01/.DS_Store", "date=2026-01-02/README", "date=2026-01-09/.DS_Store"]);
      expect(await dest.describeDrop(ctx(orders))).toMatchObject({ partitions: 0, exists: false });
      await remove();
      ({ path: base, remove } = await makeTempDir("interloper-drop-"));
    }
  });

  it("partition folders of a partition column renamed since are the asset's too", async () => {
    const dest = new FileDestination({ basePath: base });
    const byDay: AssetRef = { ...orders, partitioning: new TimePartitionConfig({ column: "day", allowWindow: true }) };
    await dest.write(ctx(byDay, days("2026-01-01", "2026-01-02")), [{ day: "2026-01-01" }, { day: "2026-01-02" }]);
    expect(await dest.describeDrop(ctx(orders))).toMatchObject({ partitions: 2, exists: true });
    await dest.dropAsset!(ctx(orders));
    expect(await listFiles(base)).toEqual([]);
  });
});

describe("a destination without the drop hook", () => {
  // Named classes of their own: the refusal names the destination's class.
  class NoDrop extends InertDestination {}
  class NoDeleteStore extends ObjectStoreDestination {
    putObject(): void {}
    getObject(): null {
      return null;
    }
    *listObjects(): Iterable<StoredObject> {}
    objectUri(name: string): string {
      return `mem://${name}`;
    }
  }
  class NoDropTable extends InertDatabaseDestination {}

  it("names the hook to implement, for each kind of base", () => {
    expect(new NoDrop().missingDropHook()).toBe("dropAsset(context)");
    expect(new NoDeleteStore().missingDropHook()).toBe("deleteObjects(names)");
    expect(new NoDropTable().missingDropHook()).toBe("dropTable(table, dataset)");
  });

  it("fullRefresh refuses with one line naming the destination and the hook, before any destination drops anything", async () => {
    const { path: base, remove } = await makeTempDir("interloper-drop-");
    try {
      const make = (n: number) =>
        il.asset({
          key: "orders",
          partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
          run: (c) => [{ date: c.partition!.key, n }],
        });
      const csv = il.source({ key: "shop", assets: [make(1)] })({ destinations: new CSVDestination({ basePath: base }) });
      const custom = il.source({ key: "lake", assets: [make(2)] })({ destinations: { archive: new NoDrop() } });
      const project = projectOf(il.defineConfig({ sources: [csv, custom] }));
      await il.materialize(project, { assets: ["shop.orders"], partition: "2026-01-01" });
      const before = await listFiles(base);
      expect(before).toContain("shop/orders/date=2026-01-01/data.csv");
      const refused = fullRefresh(project, { partition: "2026-01-01" });
      await expect(refused).rejects.toThrow(ConfigError);
      const message = (await refused.catch((e: Error) => e)) as Error;
      expect(message.message).toBe(
        'destination "archive" (NoDrop) of asset "lake.orders" cannot drop data for `fullRefresh`: implement dropAsset(context)',
      );
      expect(await listFiles(base)).toEqual(before);
    } finally {
      await remove();
    }
  });
});

describe("fullRefresh (the library call)", () => {
  it("drops what the destinations hold of the selected assets only, then rebuilds the window and every stored partition outside it (issue 32.10)", async () => {
    const { path: base, remove } = await makeTempDir("interloper-drop-");
    try {
      let version = 1;
      const daily = new il.TimePartitionConfig({ column: "date", start: "2026-01-01" });
      const source = il.asset({ key: "orders", partitioning: daily, run: (c) => [{ date: c.partition!.key, v: version }] });
      const derived = il.asset({
        key: "orders_daily",
        partitioning: daily,
        requires: { orders: source },
        run: (_ctx, { orders }) => orders.map((o) => ({ ...o, d: true })),
      });
      const shop = il.source({ key: "shop", assets: [source, derived] })({ destinations: new CSVDestination({ basePath: base }) });
      const project = projectOf(il.defineConfig({ sources: [shop] }));
      await il.materialize(project, { window: "2026-01-01..2026-01-03" });
      version = 2;
      const outcome = await fullRefresh(project, { assets: ["orders_daily"], window: "2026-01-02..2026-01-02" });
      expect(outcome.status).toBe("completed");
      expect(outcome.dropped).toEqual([
        {
          asset: "shop.orders_daily",
          destinationKey: "CSVDestination",
          destination: "CSV files",
          what: `folder ${join(base, "shop", "orders_daily")}`,
          partitions: 3,
          exists: true,
        },
      ]);
      // Every partition dropped was rebuilt, not just the window's; the upstream asset, only read,
      // kept all its partitions.
      expect(await listFiles(join(base, "shop", "orders_daily"))).toEqual([
        ".data.csv.ledger",
        "date=2026-01-01/data.csv",
        "date=2026-01-02/data.csv",
        "date=2026-01-03/data.csv",
      ]);
      expect(await findAsset(project, "shop.orders_daily").read(il.TimePartitionWindow.parse("2026-01-01..2026-01-03"))).toHaveLength(3);
      expect((await listFiles(join(base, "shop", "orders"))).filter((f) => f.endsWith("data.csv"))).toHaveLength(3);
      await expect(fullRefresh(project, { window: "2026-01-01..2026-01-02", shard: { index: 1, count: 2 } })).rejects.toThrow(
        "cannot be combined with `shard`",
      );
    } finally {
      await remove();
    }
  });
});
