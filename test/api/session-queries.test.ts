// What the command line asks a session besides plan, materialize, coverage and read: how assets
// are set up, which asset a selection names, current row counts, a partition's details, and a
// full refresh (what it drops, what it rebuilds, the drop). Memory and CSV destinations, real files.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { checkFullRefreshOptions, parseShard } from "../../src/api/session/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "il-session-queries-"));
});
afterEach(async () => {
  il.MemoryDestination.clear();
  await rm(dir, { recursive: true, force: true });
});

function config() {
  const orders = il.asset({
    key: "orders",
    tags: ["sales"],
    partitioning: new il.TimePartitionConfig({ column: "day", start: "2026-01-01" }),
    run: (ctx) => [{ day: ctx.partition!.key, n: 1 }],
  });
  const revenue = il.asset({
    key: "revenue",
    partitioning: new il.TimePartitionConfig({ column: "day", start: "2026-01-01" }),
    requires: { orders: "orders" },
    run: (ctx, deps) => [{ day: ctx.partition!.key, total: (deps["orders"] as unknown[]).length }],
  });
  return il.defineConfig({
    sources: [il.source({ key: "shop", assets: [orders, revenue] })({ destinations: new il.CSVDestination({ basePath: dir }) })],
  });
}

describe("a session answers the command line's questions", () => {
  it("describes the selected assets, upstream first, and names the one asset a selection names by key", async () => {
    const session = await il.openProject(config());
    expect(session.describe().map((a) => a.key)).toEqual(["shop.orders", "shop.revenue"]);
    expect(session.describe("tag:sales").map((a) => a.key)).toEqual(["shop.orders"]);
    expect(session.describe({ select: ["orders+"], exclude: ["orders"] }).map((a) => a.key)).toEqual(["shop.revenue"]);
    expect(session.namedAsset("orders")?.qualifiedKey).toBe("shop.orders");
    expect(session.namedAsset("orders+")).toBeNull();
    expect(session.namedAsset("shop")).toBeNull();
    await session.close();
  });

  it("narrows coverage by a partition or a lookback, as materialize names them; two ways at once are refused", async () => {
    const session = await il.openProject(config());
    await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-05" });
    const [one] = await session.coverage("orders", { partition: "2026-01-03" });
    expect(one!.partitions.map((p) => p.key)).toEqual(["2026-01-03"]);
    const now = new Date("2026-01-06T12:00:00Z");
    // A lookback counts the complete days before the one in progress, as coverage expects them
    // and as materialize's does (issue 41, item 11): complete up to yesterday, nothing missing.
    const [last] = await session.coverage("orders", { lookback: 2, now });
    expect(last!.partitions.map((p) => [p.key, p.status])).toEqual([
      ["2026-01-04", "materialized"],
      ["2026-01-05", "materialized"],
    ]);
    expect(last!.missing).toBe(0);
    expect((await session.plan({ selection: "orders", lookback: 2, now })).partitions).toEqual(["2026-01-05", "2026-01-04"]);
    // includeCurrent counts today: an offset of 0, which it cannot be given beside.
    const [current] = await session.coverage("orders", { lookback: 2, now, includeCurrent: true });
    expect(current!.partitions.map((p) => [p.key, p.status])).toEqual([
      ["2026-01-05", "materialized"],
      ["2026-01-06", "missing"],
    ]);
    expect((await session.plan({ selection: "orders", lookback: 2, now, includeCurrent: true })).partitions).toEqual([
      "2026-01-06",
      "2026-01-05",
    ]);
    await expect(session.plan({ selection: "orders", lookback: 2, offset: 0, includeCurrent: true })).rejects.toThrow(
      "`includeCurrent` and `offset` cannot be used together",
    );
    await expect(session.coverage("orders", { partition: "2026-01-03", window: "2026-01-01..2026-01-02" })).rejects.toThrow(
      "cannot be used together",
    );
    await session.close();
  });

  it("gives the rows a plan would replace, and each destination's details of a stored partition", async () => {
    const session = await il.openProject(config());
    await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-02" });
    const plan = await session.plan({ selection: "orders", window: "2026-01-02..2026-01-03" });
    expect(await session.rowCounts(plan)).toEqual({ "shop.orders": { "2026-01-02": 1 } });
    const [details] = await session.partitionDetails("shop.orders", "2026-01-02");
    expect(details).toMatchObject({
      destination: "CSVDestination",
      rows: 1,
      location: join(dir, "shop", "orders", "day=2026-01-02", "data.csv"),
    });
    // CSV files keep each write's record: when it ended, and by which run.
    const [history] = await session.history("orders", "2026-01-02");
    expect(details!.record).toEqual(history);
    expect(details!.writtenAt).toEqual(new Date(history!.endedAt));
    expect(await session.lastWritten("shop.orders", ["2026-01-01", "2026-01-02"])).toBeInstanceOf(Date);
    await expect(session.partitionDetails("shop.nothing", "2026-01-02")).rejects.toThrow('unknown asset "shop.nothing"');
    await session.close();
  });

  it("for a full refresh: what it drops, the rebuild widened to stored partitions outside the window, then the drop", async () => {
    const session = await il.openProject(config());
    await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-04" });
    const options = { selection: "orders", window: "2026-01-03..2026-01-04" };
    const plan = await session.plan(options);
    const { targets, scope } = await session.fullRefreshScope(plan, options);
    expect(targets).toMatchObject([{ asset: "shop.orders", destinationKey: "CSVDestination", exists: true, partitions: 4 }]);
    expect(scope.outside).toBe(2);
    expect(String(scope.widenedFrom)).toBe("2026-01-03..2026-01-04");
    await session.drop(plan);
    const [after] = await session.coverage("orders", { window: "2026-01-01..2026-01-04" });
    expect(after!.materialized).toBe(0);
    await session.close();
  });

  it("checks a full refresh's options and a shard before a session is opened", () => {
    expect(() => checkFullRefreshOptions({ only: true })).toThrow("cannot be combined with");
    expect(parseShard("2/3")).toEqual({ index: 2, count: 3 });
    expect(() => parseShard("4/3")).toThrow();
  });

  it("refuses every question once closed", async () => {
    const session = await il.openProject(config());
    await session.close();
    expect(() => session.describe()).toThrow("this session is closed");
    expect(() => session.namedAsset("orders")).toThrow("this session is closed");
  });
});
