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

describe("materialize --stale beyond partitioned assets", () => {
  /** An unpartitioned catalog, an unpartitioned summary of it, and daily orders reading it. */
  function withCatalog(codeVersion = "1") {
    const catalog = il.asset({ key: "catalog", run: () => [{ sku: "a" }] });
    const summary = il.asset({ key: "summary", codeVersion, requires: { catalog: "catalog" }, run: () => [{ total: 1 }] });
    const orders = il.asset({
      key: "orders",
      partitioning: time("day", il.TimeGranularity.DAY),
      requires: { catalog: "catalog" },
      run: rows("day"),
    });
    return il.defineConfig({
      sources: [il.source({ key: "shop", assets: [catalog, summary, orders] })({ destinations: new il.MemoryDestination() })],
    });
  }

  it("rebuilds a stale unpartitioned asset, and the partitions reading a rebuilt one, after it", async () => {
    const session = await il.openProject(withCatalog());
    await session.materialize({ window: "2026-01-01..2026-01-02" });
    await session.materialize({ selection: "catalog" });
    const plan = await session.plan({ stale: true, order: "oldest" });
    expect(runsOf(plan)).toEqual(["shop.summary null", "shop.orders 2026-01-01", "shop.orders 2026-01-02"]);
    expect(plan.staleReasons!.get("shop.summary")).toEqual({ "": [expect.stringMatching(/^shop\.catalog was materialized again at /)] });
    expect((await session.materialize({ plan })).status).toBe("completed");
    expect(await session.staleness("summary")).toEqual({});
    expect(await session.staleness("orders")).toEqual({});
    expect(runsOf(await session.plan({ stale: true }))).toEqual([]);
    await session.close();
  });

  it("a changed codeVersion makes the unpartitioned asset stale; a selection leaves it out", async () => {
    const before = await il.openProject(withCatalog("1"));
    await before.materialize({ window: "2026-01-01..2026-01-02" });
    await before.close();
    const after = await il.openProject(withCatalog("2"));
    const plan = await after.plan({ stale: true });
    expect(runsOf(plan)).toEqual(["shop.summary null"]);
    expect(plan.staleReasons!.get("shop.summary")).toEqual({ "": ['code version changed: "1" when built, "2" now'] });
    expect(runsOf(await after.plan({ stale: true, selection: "orders" }))).toEqual([]);
    await after.close();
  });

  it("a project with nothing stored, or nothing at all, has nothing to do", async () => {
    const empty = await il.openProject(il.defineConfig({ sources: [] }));
    expect(runsOf(await empty.plan({ stale: true }))).toEqual([]);
    await empty.close();
    const noStart = il.asset({ key: "orders", partitioning: new il.TimePartitionConfig({ column: "day" }), run: rows("day") });
    const unstarted = await il.openProject(
      il.defineConfig({ sources: [il.source({ key: "shop", assets: [noStart] })({ destinations: new il.MemoryDestination() })] }),
    );
    expect(runsOf(await unstarted.plan({ stale: true }))).toEqual([]);
    await unstarted.close();
    const fresh = await il.openProject(withCatalog());
    expect(runsOf(await fresh.plan({ stale: true }))).toEqual([]);
    await fresh.close();
  });
});

describe("materialize --stale: an unpartitioned total of a list asset", () => {
  /** Regions of sales, and one total over every region (unpartitioned, reading them all). */
  function regions(codeVersion: string) {
    const sales = il.asset({
      key: "sales",
      partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
      codeVersion,
      run: (ctx) => [{ region: ctx.partition!.key, amount: Number(codeVersion) }],
    });
    const total = il.asset({
      key: "total",
      requires: { sales: "sales" },
      run: (_ctx, { sales }) => [{ amount: (sales as Array<{ amount: number }>).reduce((sum, row) => sum + row.amount, 0) }],
    });
    return il.defineConfig({ sources: [il.source({ key: "shop", assets: [sales, total] })({ destinations: new il.MemoryDestination() })] });
  }

  it("rebuilds the total after the regions it reads, in the same run, and leaves nothing stale", async () => {
    const before = await il.openProject(regions("1"));
    await before.materialize({ selection: "sales" });
    await before.materialize({ selection: "total" });
    await before.close();
    const session = await il.openProject(regions("2"));
    const plan = await session.plan({ stale: true });
    expect(runsOf(plan)).toEqual(["shop.sales us", "shop.sales eu", "shop.total null"]);
    expect(plan.staleReasons!.get("shop.total")).toEqual({
      "": [expect.stringMatching(/^shop\.sales (eu|us) is rebuilt first in this run$/)],
    });
    expect((await session.materialize({ plan })).status).toBe("completed");
    expect((await session.read("total")).rows).toEqual([{ amount: 4 }]);
    expect(runsOf(await session.plan({ stale: true }))).toEqual([]);
    await session.close();
  });
});
