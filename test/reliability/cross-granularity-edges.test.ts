// Issue 17, item 1: a monthly asset requiring a daily one made every command fail, `list`
// included ("partitioned incompatibly (day time vs month time)"), and one edge that cannot be
// read (a daily asset requiring a list-partitioned one) broke the whole project. Now the
// monthly asset reads its days, and an invalid edge is a problem of its downstream asset only.
import { beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { describeAssets } from "../../src/api/describe.js";
import { projectOf } from "../../src/api/project.js";

beforeEach(() => il.MemoryDestination.clear());

const orders = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "date", allowWindow: true }),
  run: (ctx) => ctx.window!.partitions.map((p) => ({ date: p.key, amount: Number(p.key.slice(8, 10)) })),
});
const monthly = il.asset({
  key: "monthly_revenue",
  partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
  requires: { orders },
  run: (_ctx, { orders }) => [{ month: "2026-02-01", revenue: (orders as Array<{ amount: number }>).reduce((t, o) => t + o.amount, 0) }],
});
const stock = il.asset({
  key: "stock",
  partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
  run: () => [],
});
const dailyStock = il.asset({
  key: "daily_stock",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  requires: { stock },
  run: () => [],
});

const project = () =>
  projectOf({
    sources: [il.source({ key: "shop", assets: [orders, monthly, stock, dailyStock] })({ destinations: new il.MemoryDestination() })],
  });

describe("edges across granularities and kinds", () => {
  it("a project holding both loads, and list describes the invalid edge beside its asset only", () => {
    const described = describeAssets(project().dag);
    const byKey = Object.fromEntries(described.map((a) => [a.key, a]));
    expect(byKey["shop.monthly_revenue"]!.problems).toEqual([]);
    expect(byKey["shop.daily_stock"]!.problems).toEqual([
      'asset "shop.daily_stock" (by day) requires "shop.stock" (by list eu,us): time and list partitions do not map onto each other; require "shop.stock" from an unpartitioned asset (which reads all its values), or partition "shop.daily_stock" by the same list',
    ]);
  });

  it("the monthly asset runs over its days; planning the invalid edge's asset is a ConfigError", async () => {
    const { dag } = project();
    await dag.materialize(new il.TimePartitionWindow("2026-02-01", "2026-02-28"), { assets: ["shop.orders"] });
    const result = await dag.materialize(il.TimePartition.fromKey("2026-02"), { assets: ["shop.monthly_revenue"] });
    expect(result.status).toBe("completed");
    expect(await dag.find("shop.monthly_revenue")!.read(il.TimePartition.fromKey("2026-02"))).toEqual([
      { month: "2026-02-01", revenue: (28 * 29) / 2 },
    ]);
    expect(() => il.planMaterialize(project(), { assets: ["daily_stock"], partition: "2026-02-01" })).toThrow(il.ConfigError);
    expect(il.planMaterialize(project(), { assets: ["monthly_revenue"], partition: "2026-02" }).assets.map((a) => a.qualifiedKey)).toEqual([
      "shop.monthly_revenue",
    ]);
  });
});
