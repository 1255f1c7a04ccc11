// `--stale` through the session (issue 34, item 5): exactly the stale partitions, and what
// rebuilding them makes stale downstream within the selection, in one run in dependency order.
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

afterEach(() => il.MemoryDestination.clear());

const rows = (column: string) => (ctx: il.ExecutionContext) => [{ [column]: ctx.partition!.key }];
const time = (column: string, granularity: il.TimeGranularity) => new il.TimePartitionConfig({ column, granularity, start: "2026-01-01" });

/** Daily orders, daily revenue of them, and weekly and monthly rollups of revenue. */
function shop() {
  const orders = il.asset({ key: "orders", partitioning: time("day", il.TimeGranularity.DAY), run: rows("day") });
  const revenue = il.asset({
    key: "revenue",
    partitioning: time("day", il.TimeGranularity.DAY),
    requires: { orders: "orders" },
    run: rows("day"),
  });
  const weekly = il.asset({
    key: "weekly",
    partitioning: time("week", il.TimeGranularity.WEEK),
    requires: { revenue: "revenue" },
    run: rows("week"),
  });
  const monthly = il.asset({
    key: "monthly",
    partitioning: time("month", il.TimeGranularity.MONTH),
    requires: { revenue: "revenue" },
    run: rows("month"),
  });
  return il.defineConfig({
    sources: [il.source({ key: "shop", assets: [orders, revenue, weekly, monthly] })({ destinations: new il.MemoryDestination() })],
  });
}

/** A session on the shop with January built, then the 15th's orders corrected. */
async function corrected(): Promise<il.Session> {
  const session = await il.openProject(shop());
  await session.materialize({ window: "2026-01-01..2026-01-31" });
  await session.materialize({ selection: "orders", partition: "2026-01-15" });
  return session;
}

const runsOf = (plan: il.Plan) => plan.runs.map((run) => `${run.assets.join("+")} ${run.partition}`);

describe("materialize --stale", () => {
  it("alone: the stale day, then the week and the month holding it, upstream first, each with why", async () => {
    const session = await corrected();
    const plan = await session.plan({ stale: true, order: "oldest" });
    expect(runsOf(plan).sort()).toEqual(["shop.monthly 2026-01", "shop.revenue 2026-01-15", "shop.weekly 2026-W03"].sort());
    const revenueAt = runsOf(plan).indexOf("shop.revenue 2026-01-15");
    expect(revenueAt).toBeLessThan(runsOf(plan).indexOf("shop.weekly 2026-W03"));
    expect(revenueAt).toBeLessThan(runsOf(plan).indexOf("shop.monthly 2026-01"));
    expect(plan.staleReasons!.get("shop.revenue")).toEqual({
      "2026-01-15": [expect.stringMatching(/^shop\.orders 2026-01-15 was materialized again at /)],
    });
    expect(plan.staleReasons!.get("shop.weekly")).toEqual({ "2026-W03": ["shop.revenue 2026-01-15 is rebuilt first in this run"] });
    expect(plan.staleReasons!.get("shop.orders")).toEqual({});
    const outcome = await session.materialize({ plan });
    expect(outcome.status).toBe("completed");
    for (const asset of ["revenue", "weekly", "monthly"]) expect(await session.staleness(asset)).toEqual({});
    expect(runsOf(await session.plan({ stale: true }))).toEqual([]);
    await session.close();
  });

  it("with a selection: only the selected assets' partitions; what is left stays stale", async () => {
    const session = await corrected();
    const plan = await session.plan({ stale: true, selection: "revenue" });
    expect(runsOf(plan)).toEqual(["shop.revenue 2026-01-15"]);
    await session.materialize({ plan });
    expect(Object.keys(await session.staleness("monthly"))).toEqual(["2026-01"]);
    await session.close();
  });

  it("with a window: only what lies in it", async () => {
    const session = await corrected();
    expect(runsOf(await session.plan({ stale: true, window: "2026-01-01..2026-01-10" }))).toEqual([]);
    expect(runsOf(await session.plan({ stale: true, selection: "revenue", window: "2026-01-10..2026-01-20" }))).toEqual([
      "shop.revenue 2026-01-15",
    ]);
    await session.close();
  });

  it("is refused beside --missing, which picks the partitions too", async () => {
    const session = await il.openProject(shop());
    await expect(session.plan({ stale: true, missing: true })).rejects.toThrow("each pick the partitions to run: give one");
    await session.close();
  });
});
