// What a run records of each write (issue 34): its run, times, rows, code version and
// interloper's version, and the upstream partitions it read by the ids of the records read,
// through every kind of edge; and asset.history / session.history over those records.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { historyTable } from "../../src/cli/commands/history.js";

afterEach(() => il.MemoryDestination.clear());

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const day = (start = "2026-01-01") => new il.TimePartitionConfig({ column: "day", start });

/** A daily `orders`, a daily `revenue` of it, a trailing 2-day sum, a monthly rollup of revenue, a list asset and an unpartitioned one. */
function project(codeVersion?: string) {
  const orders = il.asset({ key: "orders", partitioning: day(), run: (ctx) => [{ day: ctx.partition!.key, n: 1 }] });
  const revenue = il.asset({
    key: "revenue",
    partitioning: day(),
    ...(codeVersion ? { codeVersion } : {}),
    requires: { orders: "orders" },
    run: async (ctx, deps) => [{ day: ctx.partition!.key, total: (deps["orders"] as unknown[]).length }],
  });
  const trailingSum = il.asset({
    key: "trailing_sum",
    partitioning: day("2026-01-02"),
    requires: { orders: { asset: "orders", mapping: il.trailing(2) } },
    run: (ctx, deps) => [{ day: ctx.partition!.key, n: (deps["orders"] as unknown[]).length }],
  });
  const monthly = il.asset({
    key: "monthly",
    partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH, start: "2026-01-01" }),
    requires: { revenue: "revenue" },
    run: (ctx, deps) => [{ month: ctx.partition!.key, days: (deps["revenue"] as unknown[]).length }],
  });
  const regions = il.asset({
    key: "regions",
    partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
    run: (ctx) => [{ region: ctx.partition!.key }],
  });
  const summary = il.asset({
    key: "summary",
    requires: { regions: "regions" },
    run: (_ctx, deps) => [{ n: (deps["regions"] as unknown[]).length }],
  });
  const config = il.defineConfig({
    sources: [
      il.source({ key: "shop", assets: [orders, revenue, trailingSum, monthly, regions, summary] })({
        destinations: new il.MemoryDestination(),
      }),
    ],
  });
  return config;
}

describe("each write records how it was made", () => {
  it("its run, times, rows, code version, interloper's version, and the upstream records it read", async () => {
    const session = await il.openProject(project("7"));
    await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-03" });
    const [order] = await session.history("orders", "2026-01-02");
    expect(order).toMatchObject({
      asset: "shop.orders",
      partition: "2026-01-02",
      rows: 1,
      codeVersion: null,
      interloperVersion: VERSION,
      upstream: [],
    });
    expect(order!.id).toMatch(UUID);
    expect(Date.parse(order!.startedAt)).toBeLessThanOrEqual(Date.parse(order!.endedAt));
    const outcome = await session.materialize({ selection: "revenue", partition: "2026-01-02" });
    const [revenue] = await session.history("revenue");
    expect(revenue).toMatchObject({
      asset: "shop.revenue",
      partition: "2026-01-02",
      codeVersion: "7",
      backfillId: null,
      upstream: [{ asset: "shop.orders", partition: "2026-01-02", materialization: order!.id }],
    });
    expect(revenue!.runId).toBe((outcome.result as { runId: string }).runId);
    await session.close();
  });

  it("a backfill's writes carry its id", async () => {
    const session = await il.openProject(project());
    await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-03", concurrency: 1 });
    const records = await session.history("orders");
    expect(records).toHaveLength(3);
    expect(new Set(records.map((r) => r.backfillId)).size).toBe(1);
    expect(records[0]!.backfillId).not.toBeNull();
    await session.close();
  });

  it("across edges: trailing days, a month of days, list values read by an unpartitioned asset", async () => {
    const session = await il.openProject(project());
    await session.materialize({ selection: "orders", window: "2026-01-02..2026-01-03" });
    const ordersIds = Object.fromEntries((await session.history("orders")).map((r) => [r.partition, r.id]));
    await session.materialize({ selection: "trailing_sum", partition: "2026-01-03" });
    const [trailing] = await session.history("trailing_sum");
    expect(trailing!.upstream).toEqual([
      { asset: "shop.orders", partition: "2026-01-02", materialization: ordersIds["2026-01-02"] },
      { asset: "shop.orders", partition: "2026-01-03", materialization: ordersIds["2026-01-03"] },
    ]);
    await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-31" });
    await session.materialize({ selection: "revenue", window: "2026-01-01..2026-01-31" });
    await session.materialize({ selection: "monthly", partition: "2026-01" });
    const [month] = await session.history("monthly", "2026-01");
    expect(month!.upstream).toHaveLength(31);
    expect(month!.upstream.every((u) => u.asset === "shop.revenue" && u.materialization !== null)).toBe(true);
    expect(month!.upstream[0]!.partition).toBe("2026-01-01");
    await session.materialize({ selection: "regions", window: "eu..us" });
    await session.materialize({ selection: "summary" });
    const [summary] = await session.history("summary");
    expect(summary!.partition).toBeNull();
    expect(summary!.upstream.map((u) => u.partition)).toEqual(["eu", "us"]);
    expect(summary!.upstream.every((u) => u.materialization !== null)).toBe(true);
    await session.close();
  });
});

describe("asset.history", () => {
  it("newest first, of one partition or all, at most `limit`; a bad limit or key is refused", async () => {
    const config = project();
    const session = await il.openProject(config);
    await session.materialize({ selection: "orders", partition: "2026-01-01" });
    await session.materialize({ selection: "orders", partition: "2026-01-02" });
    await session.materialize({ selection: "orders", partition: "2026-01-01" });
    const orders = session.project.dag.find("orders")!;
    const all = await orders.history();
    expect(all.map((r) => r.partition)).toEqual(["2026-01-01", "2026-01-02", "2026-01-01"]);
    expect((await orders.history("2026-01-01")).map((r) => r.partition)).toEqual(["2026-01-01", "2026-01-01"]);
    expect(await orders.history(new il.TimePartition("2026-01-02"))).toHaveLength(1);
    expect(await orders.history(null, { limit: 1 })).toEqual([all[0]]);
    await expect(orders.history(null, { limit: 0 })).rejects.toThrow("history: limit must be a whole number of 1 or more, got 0");
    await expect(orders.history("2026-13-01")).rejects.toThrow(il.InterloperError);
    await expect(session.history("ordres")).rejects.toThrow('unknown asset "ordres": did you mean "orders"?');
    await session.close();
  });

  it("is empty for a destination that keeps no records, and its readers record the upstream as unknown", async () => {
    class Plain extends il.Destination {
      readonly stored = new Map<string, unknown>();
      writePartition(_c: il.IOContext, p: il.Partition | null, data: unknown) {
        this.stored.set(p?.key ?? "", data);
      }
      readPartition(_c: il.IOContext, p: il.Partition | null) {
        return this.stored.get(p?.key ?? "");
      }
      partitionRowCounts() {
        return {};
      }
    }
    const plain = new Plain();
    const orders = il.asset({ key: "orders", partitioning: day(), destinations: plain, run: (ctx) => [{ day: ctx.partition!.key }] });
    const revenue = il.asset({
      key: "revenue",
      partitioning: day(),
      requires: { orders: "orders" },
      run: (ctx) => [{ day: ctx.partition!.key }],
    });
    const config = il.defineConfig({
      sources: [il.source({ key: "shop", assets: [orders, revenue] })({ destinations: new il.MemoryDestination() })],
    });
    const session = await il.openProject(config);
    await session.materialize({ selection: "orders+", partition: "2026-01-01" });
    expect(await session.history("orders")).toEqual([]);
    const [record] = await session.history("revenue");
    expect(record!.upstream).toEqual([{ asset: "shop.orders", partition: "2026-01-01", materialization: null }]);
    await session.close();
  });
});

describe("codeVersion", () => {
  it("must be a non-empty string", () => {
    const run = () => [];
    expect(() => il.asset({ key: "a", codeVersion: "", run })).toThrow('asset "a": codeVersion must be a non-empty string');
    expect(() => il.asset({ key: "a", codeVersion: 2 as unknown as string, run })).toThrow("got 2");
  });
});

describe("the history table", () => {
  it("shows each write in columns, and what it read under it, a long list cut short", () => {
    const base = {
      asset: "shop.monthly",
      runId: "0a1b2c3d-0000-4000-8000-000000000000",
      backfillId: null,
      startedAt: "2026-02-01T00:00:00.000Z",
      endedAt: "2026-02-01T00:00:01.500Z",
      codeVersion: "3",
      interloperVersion: VERSION,
    };
    const upstream = Array.from({ length: 6 }, (_, i) => ({
      asset: "shop.revenue",
      partition: `2026-01-0${i + 1}`,
      materialization: i === 0 ? null : `a${i}b2c3d4-x`,
    }));
    const lines = historyTable([
      { ...base, id: "11111111-aaaa", partition: "2026-01", rows: 12345, upstream },
      { ...base, id: "22222222-bbbb", partition: "2025-12", rows: null, upstream: [], codeVersion: null, backfillId: "ffffeeee-1" },
    ]);
    expect(lines[0]).toMatch(/^partition\s+written \(UTC\)\s+took\s+rows\s+code\s+by\s+id$/);
    expect(lines[1]).toMatch(/^2026-01\s+2026-02-01 00:00:01\s+1\.5 s\s+12,345\s+3\s+run 0a1b2c3d\s+11111111$/);
    expect(lines[2]).toBe(
      "    read shop.revenue 2026-01-01 (unknown), shop.revenue 2026-01-02 (a1b2c3d4), shop.revenue 2026-01-03 (a2b2c3d4), shop.revenue 2026-01-04 (a3b2c3d4), and 2 more partitions",
    );
    expect(lines[3]).toMatch(/^2025-12\s+.*\s+-\s+-\s+backfill ffffeeee\s+22222222$/);
  });

  it("history's table says under each write how its checks judged it: the failed ones with their message, then how many passed", () => {
    const base = {
      asset: "shop.orders",
      runId: "0a1b2c3d-0000-4000-8000-000000000000",
      backfillId: null,
      startedAt: "2026-02-01T00:00:00.000Z",
      endedAt: "2026-02-01T00:00:01.500Z",
      codeVersion: null,
      interloperVersion: VERSION,
      rows: 3,
      upstream: [],
    };
    const passed = (name: string) => ({ name, severity: "error" as const, passed: true, failures: 0, message: "ok" });
    const warned = {
      name: "unique(id)",
      severity: "warn" as const,
      passed: false,
      failures: 1,
      message: "1 row of 3 repeats the id of an earlier row",
    };
    const lines = historyTable([
      { ...base, id: "11111111-aaaa", partition: "2026-01-02", checks: [passed("notNull(id)"), warned, passed("rowCount(min 1)")] },
      { ...base, id: "22222222-bbbb", partition: "2026-01-01", checks: [passed("notNull(id)")] },
      { ...base, id: "33333333-cccc", partition: "2025-12-31" },
    ]);
    expect(lines.slice(1).map((line) => line.replace(/^(\S+)\s.*$/, "$1"))).toEqual([
      "2026-01-02",
      "    checks unique(id) failed (warn): 1 row of 3 repeats the id of an earlier row; 2 passed",
      "2026-01-01",
      "    checks 1 passed",
      "2025-12-31",
    ]);
  });
});
