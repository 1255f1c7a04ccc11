// Dependencies across time granularities, run end to end through the DAG and real destinations.
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";

beforeEach(() => il.MemoryDestination.clear());

const { DAY, WEEK, MONTH } = il.TimeGranularity;

const OrderSchema = z.object({ date: z.iso.date(), amount: z.number() });

/** Day n of 2026 (1-based) as its key. */
const dayKey = (n: number) => DAY.format(DAY.advance("2026-01-01", n - 1));
/** A deterministic amount per day, so every aggregate can be checked against its days. */
const amountOf = (key: string) => Number(key.slice(5, 7)) * 100 + Number(key.slice(8, 10));

const orders = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01", allowWindow: true }),
  schema: OrderSchema,
  run: (ctx) => ctx.window!.partitions.map((p) => ({ date: p.key, amount: amountOf(p.key) })),
});

const sum = (rows: ReadonlyArray<{ amount: number }>) => rows.reduce((total, row) => total + row.amount, 0);

/** Builds a source of the given assets over memory, and materializes orders for days 1..n of 2026. */
async function withOrders(assets: il.AssetDefinition[], days = 120): Promise<il.DAG> {
  const shop = il.source({ key: "shop", assets: [orders, ...assets] })({ destinations: new il.MemoryDestination() });
  const dag = new il.DAG(shop);
  const loaded = await dag.materialize(new il.TimePartitionWindow(dayKey(1), dayKey(days)), { assets: ["shop.orders"] });
  expect(loaded.status).toBe("completed");
  return dag;
}

async function runOne(dag: il.DAG, key: string, window: il.PartitionWindow | il.Partition | null): Promise<void> {
  const result = await dag.materialize(window, { assets: [key] });
  const failed = Object.values(result.assetExecutions).find((e) => e.error);
  expect(result.status, failed?.error?.message).toBe("completed");
}

describe("a time-partitioned asset requires one of another granularity", () => {
  it("a monthly rollup reads its month's days: each month's revenue is the sum of its days", async () => {
    const seen: Record<string, number> = {};
    const monthly = il.asset({
      key: "monthly_revenue",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: MONTH }),
      requires: { orders },
      run: (ctx, { orders }) => {
        seen[ctx.partition!.key] = orders.length;
        return [{ month: (ctx.partitionDate as Date).toISOString().slice(0, 10), revenue: sum(orders) }];
      },
    });
    const dag = await withOrders([monthly]);
    const asset = dag.find("shop.monthly_revenue")!;
    for (const month of ["2026-01", "2026-02"]) await runOne(dag, "shop.monthly_revenue", il.TimePartition.fromKey(month));
    const days = (m: string) => [...new il.TimePartitionWindow(`${m}-01`, DAY.advance(MONTH.advance(`${m}-01`, 1), -1))];
    expect(seen).toEqual({ "2026-01": 31, "2026-02": 28 });
    expect(await asset.read(il.TimePartition.fromKey("2026-01"))).toEqual([
      { month: "2026-01-01", revenue: sum(days("2026-01").map((p) => ({ amount: amountOf(p.key) }))) },
    ]);
    expect(await asset.read(il.TimePartition.fromKey("2026-02"))).toEqual([
      { month: "2026-02-01", revenue: sum(days("2026-02").map((p) => ({ amount: amountOf(p.key) }))) },
    ]);
  });

  it("a weekly asset reads its seven days", async () => {
    let read: string[] = [];
    const weekly = il.asset({
      key: "weekly",
      partitioning: new il.TimePartitionConfig({ column: "week", granularity: WEEK }),
      requires: { orders },
      run: (ctx, { orders }) => {
        read = orders.map((o) => o.date);
        return [{ week: (ctx.partitionDate as Date).toISOString().slice(0, 10), revenue: sum(orders) }];
      },
    });
    const dag = await withOrders([weekly], 20);
    await runOne(dag, "shop.weekly", il.TimePartition.fromKey("2026-W02"));
    expect(read).toEqual(["2026-01-05", "2026-01-06", "2026-01-07", "2026-01-08", "2026-01-09", "2026-01-10", "2026-01-11"]);
    expect(await dag.find("shop.weekly")!.read(il.TimePartition.fromKey("2026-W02"))).toEqual([
      { week: "2026-01-05", revenue: sum(read.map((d) => ({ amount: amountOf(d) }))) },
    ]);
  });

  it("a daily asset reads the month holding its day", async () => {
    const monthly = il.asset({
      key: "monthly_revenue",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: MONTH }),
      requires: { orders },
      run: (ctx, { orders }) => [{ month: (ctx.partitionDate as Date).toISOString().slice(0, 10), revenue: sum(orders) }],
    });
    const share = il.asset({
      key: "daily_share",
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      requires: { orders, month: monthly },
      run: (ctx, { orders, month }) => {
        const [total] = month as Array<{ month: string; revenue: number }>;
        return [{ date: ctx.partition!.key, month: total!.month, share: sum(orders) / total!.revenue }];
      },
    });
    const dag = await withOrders([monthly, share], 31);
    await runOne(dag, "shop.monthly_revenue", il.TimePartition.fromKey("2026-01"));
    await runOne(dag, "shop.daily_share", il.TimePartition.fromKey("2026-01-15"));
    const january = sum(Array.from({ length: 31 }, (_, i) => ({ amount: amountOf(dayKey(i + 1)) })));
    expect(await dag.find("shop.daily_share")!.read(il.TimePartition.fromKey("2026-01-15"))).toEqual([
      { date: "2026-01-15", month: "2026-01-01", share: amountOf("2026-01-15") / january },
    ]);
  });

  it("a window of months reads the union of their days", async () => {
    let read: string[] = [];
    const monthly = il.asset({
      key: "monthly_revenue",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: MONTH, allowWindow: true }),
      requires: { orders },
      run: (ctx, { orders }) => {
        read = orders.map((o) => o.date);
        return ctx.window!.partitions.map((p) => ({
          month: (p.value as Date).toISOString().slice(0, 10),
          revenue: sum(orders.filter((o) => p.contains(o.date))),
        }));
      },
    });
    const dag = await withOrders([monthly], 100);
    await runOne(dag, "shop.monthly_revenue", il.TimePartitionWindow.parse("2026-01..2026-03"));
    expect(read.length).toBe(31 + 28 + 31);
    expect(read[0]).toBe("2026-01-01");
    expect(read.at(-1)).toBe("2026-03-31");
    const stored = (await dag.find("shop.monthly_revenue")!.read(il.TimePartitionWindow.parse("2026-01..2026-03"))) as Array<{
      revenue: number;
    }>;
    expect(stored.map((r) => r.revenue)).toEqual(
      ["01", "02", "03"].map((m) => sum(read.filter((d) => d.slice(5, 7) === m).map((d) => ({ amount: amountOf(d) })))),
    );
  });
});

describe("explicit mappings", () => {
  it("il.trailing(7) gives a daily asset its 7 trailing days: a rolling average", async () => {
    const rolling = il.asset({
      key: "rolling",
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      requires: { week: { asset: orders, mapping: il.trailing(7) } },
      run: (ctx, { week }) => [{ date: ctx.partition!.key, days: week.length, average: sum(week) / week.length }],
    });
    const dag = await withOrders([rolling], 40);
    await runOne(dag, "shop.rolling", il.TimePartition.fromKey("2026-02-03"));
    // Near the upstream's start the window is clamped to what exists.
    await runOne(dag, "shop.rolling", il.TimePartition.fromKey("2026-01-03"));
    const expected =
      sum(
        ["2026-01-28", "2026-01-29", "2026-01-30", "2026-01-31", "2026-02-01", "2026-02-02", "2026-02-03"].map((d) => ({
          amount: amountOf(d),
        })),
      ) / 7;
    const asset = dag.find("shop.rolling")!;
    expect(await asset.read(il.TimePartition.fromKey("2026-02-03"))).toEqual([{ date: "2026-02-03", days: 7, average: expected }]);
    expect(await asset.read(il.TimePartition.fromKey("2026-01-03"))).toEqual([
      { date: "2026-01-03", days: 3, average: (101 + 102 + 103) / 3 },
    ]);
  });

  it("il.previousPeriod() reads the period before: month over month growth", async () => {
    const monthly = il.asset({
      key: "monthly_revenue",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: MONTH }),
      requires: { orders },
      run: (ctx, { orders }) => [{ month: (ctx.partitionDate as Date).toISOString().slice(0, 10), revenue: sum(orders) }],
    });
    const growth = il.asset({
      key: "growth",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: MONTH }),
      requires: {
        current: monthly,
        previous: { asset: monthly, mapping: il.previousPeriod() },
        lastMonthDays: { asset: orders, mapping: il.previousPeriod() },
      },
      run: (ctx, { current, previous, lastMonthDays }) => {
        const [now, before] = [current as Array<{ revenue: number }>, previous as Array<{ month: string; revenue: number }>];
        return [
          {
            month: (ctx.partitionDate as Date).toISOString().slice(0, 10),
            previous: before[0]!.month,
            growth: now[0]!.revenue - before[0]!.revenue,
            days: lastMonthDays.length,
          },
        ];
      },
    });
    const dag = await withOrders([monthly, growth], 59);
    for (const month of ["2026-01", "2026-02"]) await runOne(dag, "shop.monthly_revenue", il.TimePartition.fromKey(month));
    await runOne(dag, "shop.growth", il.TimePartition.fromKey("2026-02"));
    const [jan, feb] = (await dag.find("shop.monthly_revenue")!.read(il.TimePartitionWindow.parse("2026-01..2026-02"))) as Array<{
      revenue: number;
    }>;
    expect(await dag.find("shop.growth")!.read(il.TimePartition.fromKey("2026-02"))).toEqual([
      { month: "2026-02-01", previous: "2026-01-01", growth: feb!.revenue - jan!.revenue, days: 31 },
    ]);
  });

  it("the previous period of the upstream's first partition fails the run with a PartitionError naming it", async () => {
    const daily = il.asset({
      key: "delta",
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      requires: { yesterday: { asset: orders, mapping: il.previousPeriod() } },
      run: (ctx, { yesterday }) => [{ date: ctx.partition!.key, n: yesterday.length }],
    });
    const dag = await withOrders([daily], 3);
    const result = await dag.materialize(il.TimePartition.fromKey("2026-01-01"), { assets: ["shop.delta"] });
    expect(result.status).toBe("failed");
    expect(result.assetExecutions["shop.delta"]!.error!.message).toBe(
      'asset "shop.delta" cannot read "shop.orders" (as yesterday): the previous period of 2026-01-01: 2025-12-31, before the upstream\'s first partition 2026-01-01',
    );
  });

  it("refuses a mapping that is not a TimeWindowMapping, and unknown fields, with ConfigError", () => {
    const bad = (requires: unknown) => () => il.asset({ key: "x", requires: requires as Record<string, string>, run: () => [] });
    expect(bad({ o: { asset: orders, mapping: 7 } })).toThrow(
      /requires\.o\.mapping must be il\.trailing\(n\), il\.previousPeriod\(\) or a TimeWindowMapping, got 7/,
    );
    expect(bad({ o: { asset: orders, window: il.trailing(7) } })).toThrow(/requires\.o has unknown field "window"/);
    expect(bad({ o: { asset: 3 } })).toThrow(il.ConfigError);
  });

  it("works for asset.run() outside a DAG, resolving within the source", async () => {
    const monthly = il.asset({
      key: "monthly_revenue",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: MONTH }),
      requires: { orders: { asset: "orders" } },
      run: (_ctx, { orders }) => [{ month: "2026-01-01", days: (orders as unknown[]).length }],
    });
    const dag = await withOrders([monthly], 31);
    expect(await dag.find("shop.monthly_revenue")!.run(il.TimePartition.fromKey("2026-01"))).toEqual([{ month: "2026-01-01", days: 31 }]);
  });
});

describe("edges between kinds", () => {
  const stock = il.asset({
    key: "stock",
    partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }),
    run: (ctx) => [{ region: ctx.partition!.key, units: ctx.partition!.key.length }],
  });

  it("an unpartitioned asset reads every value of a list-partitioned upstream, and an unpartitioned upstream whole", async () => {
    const settings = il.asset({ key: "settings", run: () => [{ factor: 2 }] });
    const total = il.asset({
      key: "total",
      requires: { stock, settings },
      run: (_ctx, { stock, settings }) => [
        {
          units: (stock as Array<{ units: number }>).reduce((t, r) => t + r.units, 0) * (settings as Array<{ factor: number }>)[0]!.factor,
        },
      ],
    });
    const shop = il.source({ key: "shop", assets: [stock, settings, total] })({ destinations: new il.MemoryDestination() });
    const dag = new il.DAG(shop);
    for (const region of ["eu", "us", "apac"])
      await runOne(dag, "shop.stock", new il.ListPartition(region, stock.partitioning as il.ListPartitionConfig));
    await runOne(dag, "shop.settings", null);
    await runOne(dag, "shop.total", null);
    expect(await dag.find("shop.total")!.read()).toEqual([{ units: (2 + 2 + 4) * 2 }]);
  });

  it("an invalid edge (list to time) fails only runs that select its downstream asset, with one ConfigError naming both", async () => {
    const daily = il.asset({
      key: "daily",
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      requires: { stock },
      run: () => [],
    });
    const shop = il.source({ key: "shop", assets: [stock, daily, orders] })({ destinations: new il.MemoryDestination() });
    const dag = new il.DAG(shop);
    await runOne(dag, "shop.orders", il.TimePartition.fromKey("2026-01-01"));
    await runOne(dag, "shop.stock", new il.ListPartition("eu", stock.partitioning as il.ListPartitionConfig));
    const error = await dag.materialize(il.TimePartition.fromKey("2026-01-01"), { assets: ["shop.daily"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(il.ConfigError);
    expect((error as Error).message).toMatch(
      /^asset "shop\.daily" \(by day\) requires "shop\.stock" \(by list eu,us,apac\): time and list partitions do not map onto each other/,
    );
    expect((error as Error).message).not.toContain("\n");
    await expect(il.backfill(dag, il.TimePartitionWindow.parse("2026-01-01..2026-01-02"), { assets: ["shop.daily"] })).rejects.toThrow(
      il.ConfigError,
    );
    // Run directly, the asset's own read raises it too.
    await expect(dag.find("shop.daily")!.run(il.TimePartition.fromKey("2026-01-01"))).rejects.toThrow(il.ConfigError);
  });
});
