// A window over a whole project (issue 17 item 2), through the API: planMaterialize builds
// stages (a month after its days) and skips what the window does not name; runStages runs
// them, leaving a partition whose upstream partitions are not stored waiting, and canceling
// one whose upstream partition failed in the same backfill. Real assets on MemoryDestination.
import { beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { runStages } from "../../src/runner/backfill.js";
import type { Plan, PlanOptions } from "../../src/api/plan.js";

beforeEach(() => il.MemoryDestination.clear());

const DAY_FORMAT = (date: Date) => il.TimeGranularity.DAY.format(date);
/** Days whose orders run throws, set by a test. */
const failing = new Set<string>();

const events = il.asset({
  key: "events",
  partitioning: new il.TimePartitionConfig({ column: "hour", granularity: il.TimeGranularity.HOUR, start: "2026-01-01T00" }),
  run: (ctx) => [{ hour: ctx.partitionDate.toISOString(), views: ctx.partitionDate.getUTCHours() }],
});
const dailyEvents = il.asset({
  key: "daily_events",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  requires: { events },
  run: (ctx, { events }) => [{ date: DAY_FORMAT(ctx.partitionDate), hours: (events as unknown[]).length }],
});
const orders = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  run(ctx) {
    const day = DAY_FORMAT(ctx.partitionDate);
    if (failing.has(day)) throw new Error(`no orders for ${day}`);
    return [{ date: day, amount: Number(day.slice(8, 10)) }];
  },
});
// No start: it begins where the orders do (the first day reading them).
const dailyRevenue = il.asset({
  key: "daily_revenue",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  requires: { orders },
  run: (ctx, { orders }) => [
    { date: DAY_FORMAT(ctx.partitionDate), revenue: (orders as Array<{ amount: number }>).reduce((t, o) => t + o.amount, 0) },
  ],
});
const weekly = il.asset({
  key: "weekly_orders",
  partitioning: new il.TimePartitionConfig({ column: "week", granularity: il.TimeGranularity.WEEK }),
  requires: { orders },
  run: (ctx, { orders }) => [{ week: DAY_FORMAT(ctx.partitionDate), days: (orders as unknown[]).length }],
});
const monthly = il.asset({
  key: "monthly_revenue",
  partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
  requires: { orders },
  run: (ctx, { orders }) => [
    {
      month: DAY_FORMAT(ctx.partitionDate),
      days: (orders as unknown[]).length,
      revenue: (orders as Array<{ amount: number }>).reduce((t, o) => t + o.amount, 0),
    },
  ],
});
// Reads its month partition by partition: the same slot as the month.
const monthlyReport = il.asset({
  key: "monthly_report",
  partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
  requires: { monthly },
  run: (ctx, { monthly }) => [{ month: DAY_FORMAT(ctx.partitionDate), lines: (monthly as unknown[]).length }],
});
const rolling = il.asset({
  key: "rolling",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  requires: { week: { asset: orders, mapping: il.trailing(7) } },
  run: (ctx, { week }) => [{ date: DAY_FORMAT(ctx.partitionDate), days: (week as unknown[]).length }],
});
const stock = il.asset({
  key: "stock",
  partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "asia"] }),
  run: (ctx) => [{ region: ctx.partition!.key, units: 5 }],
});
const summary = il.asset({ key: "summary", requires: { stock }, run: (_ctx, { stock }) => [{ regions: (stock as unknown[]).length }] });
const customers = il.asset({ key: "customers", run: () => [{ customer: "c1" }] });

const ALL = [events, dailyEvents, orders, dailyRevenue, weekly, monthly, monthlyReport, rolling, stock, summary, customers];
const project = (assets = ALL) =>
  projectOf({ sources: [il.source({ key: "shop", assets })({ destinations: new il.MemoryDestination() })] });

// The library's reason says only what is true for any caller: no command to type (the CLI adds that).
const SKIP_STOCK = "partitioned by a list (eu, us, asia), which a window of time does not name";

/** Per stage, per asset, its partition keys in the order they run. */
function stagesOf(plan: Plan): Array<Record<string, Array<string | null>>> {
  return (plan.stages ?? []).map((stage) => {
    const byAsset: Record<string, Array<string | null>> = {};
    for (const slot of stage) for (const asset of slot.assets) (byAsset[asset.qualifiedKey] ??= []).push(slot.partition?.key ?? null);
    return byAsset;
  });
}

function days(first: string, last: string): string[] {
  const out: string[] = [];
  for (let d = new Date(`${first}T00:00:00Z`); d <= new Date(`${last}T00:00:00Z`); d = new Date(d.getTime() + 86_400_000))
    out.push(d.toISOString().slice(0, 10));
  return out;
}

describe("planMaterialize: a window over a whole project", () => {
  it("refuses a list window whose text means another range in an asset's own order (issue 41, item 16)", () => {
    // The same regions in another order: eu..asia of (eu, us, asia) is every region, of (eu, asia, us) two.
    const byAsia = il.asset({
      key: "stock_by_asia",
      partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "asia", "us"] }),
      run: (ctx) => [{ region: ctx.partition!.key }],
    });
    const p = projectOf({ sources: [il.source({ key: "shop", assets: [stock, byAsia] })({ destinations: new il.MemoryDestination() })] });
    expect(() => il.planMaterialize(p, { window: "eu..asia" })).toThrow(
      'asset "shop.stock_by_asia": the list window eu..asia was made in the order eu, us, asia',
    );
    // A range that means the same values in both orders runs.
    expect(il.planMaterialize(p, { window: "eu..eu" }).partitions).toEqual(["eu", "eu"]);
  });

  it("each asset its periods wholly inside, in stages after what they read; the list asset skipped with one line", () => {
    const plan = il.planMaterialize(project(), { window: "2026-01-01..2026-02-03", order: "oldest" });
    expect(plan.mode).toBe("backfill");
    expect(plan.skipped).toEqual([{ asset: "shop.stock", reason: SKIP_STOCK, listValues: ["eu", "us", "asia"] }]);
    const stages = stagesOf(plan);
    expect(stages.map((s) => Object.keys(s).sort())).toEqual([
      ["shop.customers", "shop.daily_revenue", "shop.events", "shop.orders"],
      // The summary reads the (skipped) list asset: staged after it all the same.
      ["shop.daily_events", "shop.monthly_report", "shop.monthly_revenue", "shop.rolling", "shop.summary", "shop.weekly_orders"],
    ]);
    const [first, second] = stages as [Record<string, Array<string | null>>, Record<string, Array<string | null>>];
    expect(first["shop.orders"]).toEqual(days("2026-01-01", "2026-02-03"));
    expect(first["shop.daily_revenue"]).toEqual(days("2026-01-01", "2026-02-03"));
    expect(first["shop.events"]).toHaveLength(34 * 24);
    expect(first["shop.events"]![0]).toBe("2026-01-01T00");
    expect(first["shop.events"]!.at(-1)).toBe("2026-02-03T23");
    expect(first["shop.customers"]).toEqual([null]);
    expect(second["shop.weekly_orders"]).toEqual(["2026-W02", "2026-W03", "2026-W04", "2026-W05"]);
    expect(second["shop.monthly_revenue"]).toEqual(["2026-01"]);
    expect(second["shop.monthly_report"]).toEqual(["2026-01"]);
    expect(second["shop.daily_events"]).toEqual(days("2026-01-01", "2026-02-03"));
    // The month and its report share one slot, where the run orders them.
    const monthSlot = plan.stages![1]!.find((slot) => slot.partition?.key === "2026-01")!;
    expect(monthSlot.assets.map((a) => a.qualifiedKey)).toEqual(["shop.monthly_revenue", "shop.monthly_report"]);
    // The runs list the stages in order: every day of orders before the month.
    const at = (asset: string, key: string) => plan.runs.findIndex((r) => r.partition === key && r.assets.includes(asset));
    const month = at("shop.monthly_revenue", "2026-01");
    for (const day of days("2026-01-01", "2026-01-31")) expect(at("shop.orders", day)).toBeLessThan(month);
    expect(plan.assets.map((a) => a.qualifiedKey)).not.toContain("shop.stock");
  });

  it("clamps each asset to its start; an asset with no start to its upstream's, and says which periods hold a shorter window", () => {
    const plan = il.planMaterialize(project([orders, dailyRevenue, monthly]), { window: "2025-12-30..2026-01-02", order: "oldest" });
    expect(plan.skipped).toEqual([
      {
        asset: "shop.monthly_revenue",
        reason: "no month of it lies wholly inside 2025-12-30..2026-01-02; the month holding it is 2026-01",
        holding: ["2026-01"],
      },
    ]);
    expect(stagesOf(plan)).toEqual([
      { "shop.orders": days("2026-01-01", "2026-01-02"), "shop.daily_revenue": days("2026-01-01", "2026-01-02") },
    ]);
    expect(plan.runs).toEqual([
      { partition: "2026-01-01", assets: ["shop.orders", "shop.daily_revenue"] },
      { partition: "2026-01-02", assets: ["shop.orders", "shop.daily_revenue"] },
    ]);
  });

  it("a window before every start is refused before anything runs, each asset with its start (its upstream's when it has none)", () => {
    const p = project([events, orders, dailyRevenue, weekly, monthly]);
    expect(() => il.planMaterialize(p, { window: "2025-06-20..2025-06-30" })).toThrow(il.PartitionError);
    expect(() => il.planMaterialize(p, { window: "2025-06-20..2025-06-30" })).toThrow(
      "nothing to run in 2025-06-20..2025-06-30: " +
        [
          "shop.events: the window 2025-06-20..2025-06-30 ends before its start 2026-01-01T00",
          "shop.orders: the window 2025-06-20..2025-06-30 ends before its start 2026-01-01",
          'shop.daily_revenue: the window 2025-06-20..2025-06-30 ends before its start 2026-01-01 (the first day reading its upstream "shop.orders")',
          'shop.weekly_orders: the window 2025-06-20..2025-06-30 ends before its start 2026-W01 (the first week reading its upstream "shop.orders")',
          'shop.monthly_revenue: the window 2025-06-20..2025-06-30 ends before its start 2026-01 (the first month reading its upstream "shop.orders")',
        ].join("; "),
    );
    expect(() => il.planMaterialize(p, { assets: ["weekly_orders"], window: "2025-W20" })).toThrow(
      'nothing to run in 2025-W20: shop.weekly_orders: the window 2025-W20 ends before its start 2026-W01 (the first week reading its upstream "shop.orders")',
    );
    // Alone over its own days it plans as one partitioning: refused as a declared start is.
    expect(() => il.planMaterialize(p, { assets: ["daily_revenue"], window: "2025-12-30..2026-01-02" })).toThrow(
      'asset "shop.daily_revenue": the window 2025-12-30..2026-01-02 reaches before its start 2026-01-01 (the first day reading its upstream "shop.orders")',
    );
  });

  // 377,000 runs: a few seconds alone, nearly a minute on a machine loaded well past its cores.
  it("plans a window of 365,000 days (a thousand years) and its months without running out of stack", { timeout: 120_000 }, () => {
    const plan = il.planMaterialize(project([orders, monthly]), { window: "2026-01-01..3025-12-31", order: "oldest" });
    expect(plan.runs).toHaveLength(365_242 + 12_000);
    expect(plan.runs[0]).toEqual({ partition: "2026-01-01", assets: ["shop.orders"] });
    expect(plan.runs.at(-1)).toEqual({ partition: "3025-12", assets: ["shop.monthly_revenue"] });
  });

  // The count starts at the orders' own start, 2026-01-01, not at the window's.
  it("refuses a window of more than a million partitions of an asset, naming it, before listing any", () => {
    expect(() => il.planMaterialize(project([orders, monthly]), { window: "2024-01-18..9999-12-31" })).toThrow(
      new il.PartitionError(
        'window 2024-01-18..9999-12-31 holds 2,912,443 day partitions of asset "shop.orders": expected at most 1,000,000 in one plan (run it in parts)',
      ),
    );
  });

  it("an unpartitioned asset reading a list asset runs in a stage after its values, not first", () => {
    const plan = il.planMaterialize(project([stock, summary]), { window: "eu..us", order: "oldest" });
    expect(stagesOf(plan)).toEqual([{ "shop.stock": ["eu", "us"] }, { "shop.summary": [null] }]);
  });

  it("newest first within each stage, the stages still in order", () => {
    const plan = il.planMaterialize(project([orders, monthly]), { window: "2026-01-01..2026-02-28" });
    expect(plan.order).toBe("newest");
    expect(plan.runs.map((r) => r.partition)).toEqual([...days("2026-01-01", "2026-02-28").reverse(), "2026-02", "2026-01"]);
  });

  it("a monthly window reaches the days and hours of its month; A...B is A..B", () => {
    const plan = il.planMaterialize(project([events, orders, monthly]), { window: "2026-02", order: "oldest" });
    expect(stagesOf(plan)).toEqual([
      { "shop.events": expect.any(Array), "shop.orders": days("2026-02-01", "2026-02-28") },
      { "shop.monthly_revenue": ["2026-02"] },
    ]);
    expect(stagesOf(plan)[0]!["shop.events"]).toHaveLength(28 * 24);
    const dots = il.planMaterialize(project([orders, monthly]), { window: "2026-01-01...2026-02-28", order: "oldest" });
    expect(dots.runs).toEqual(il.planMaterialize(project([orders, monthly]), { window: "2026-01-01..2026-02-28", order: "oldest" }).runs);
  });

  it("a selection the window gives nothing to run is a PartitionError naming why", () => {
    // A PartitionError of its own class (NothingToRunError, which holds the reasons apart too).
    const refusal = (options: PlanOptions): unknown => {
      try {
        il.planMaterialize(project(), options);
      } catch (error) {
        return error;
      }
      throw new Error("planned, where nothing was to run");
    };
    const month = refusal({ assets: ["monthly_revenue"], window: "2026-01-05..2026-01-20" });
    expect(month).toBeInstanceOf(il.PartitionError);
    expect((month as Error).message).toBe(
      "nothing to run in 2026-01-05..2026-01-20: shop.monthly_revenue: no month of it lies wholly inside 2026-01-05..2026-01-20; the month holding it is 2026-01",
    );
    const weekAndList = refusal({ assets: ["stock", "weekly_orders"], window: "2026-01-01..2026-01-04" });
    expect(weekAndList).toBeInstanceOf(il.PartitionError);
    expect((weekAndList as Error).message).toBe(
      `nothing to run in 2026-01-01..2026-01-04: shop.weekly_orders: no week of it lies wholly inside 2026-01-01..2026-01-04; the week holding it is 2026-W01; shop.stock: ${SKIP_STOCK}`,
    );
  });

  it("a list asset selected alone with no window: all its values; with its unpartitioned reader, the reader after them", () => {
    const alone = il.planMaterialize(project(), { assets: ["stock"], order: "oldest" });
    expect(alone.runs).toEqual([
      { partition: "eu", assets: ["shop.stock"] },
      { partition: "us", assets: ["shop.stock"] },
      { partition: "asia", assets: ["shop.stock"] },
    ]);
    const upstream = il.planMaterialize(project(), { assets: ["+summary"], order: "oldest" });
    expect(stagesOf(upstream)).toEqual([{ "shop.stock": ["eu", "us", "asia"] }, { "shop.summary": [null] }]);
    expect(upstream.skipped).toEqual([]);
  });

  it("a trailing window reads across partitions: its asset runs a stage after the orders", () => {
    const plan = il.planMaterialize(project([orders, rolling]), { window: "2026-01-01..2026-01-10", order: "oldest" });
    expect(stagesOf(plan)).toEqual([
      { "shop.orders": days("2026-01-01", "2026-01-10") },
      { "shop.rolling": days("2026-01-01", "2026-01-10") },
    ]);
  });

  it("with only and onlyByAsset (as --missing gives), each asset runs just its own keys", () => {
    const options: PlanOptions = {
      window: "2026-01-01..2026-01-31",
      order: "oldest",
      only: new Set(["2026-01-15", "2026-01"]),
      onlyByAsset: new Map([
        ["shop.orders", new Set(["2026-01-15"])],
        ["shop.daily_revenue", new Set<string>()],
        ["shop.monthly_revenue", new Set(["2026-01"])],
      ]),
    };
    const plan = il.planMaterialize(project([orders, dailyRevenue, monthly]), options);
    expect(plan.runs).toEqual([
      { partition: "2026-01-15", assets: ["shop.orders"] },
      { partition: "2026-01", assets: ["shop.monthly_revenue"] },
    ]);
  });
});

describe("runStages: waiting and canceled", () => {
  /** Runs a plan's stages, collecting the asset:canceled events. */
  async function runPlan(p: il.Project, options: PlanOptions & { failFast?: boolean }) {
    const plan = il.planMaterialize(p, options);
    const canceled: Array<{ asset: string; partition?: string; reason: string }> = [];
    const result = await runStages(p.dag, plan.stages!, {
      window: String(plan.window ?? "(every value)"),
      order: plan.order,
      failFast: options.failFast ?? true,
      onEvent: (event) => {
        if (event.type === "asset:canceled")
          canceled.push({ asset: event.asset, ...(event.partition ? { partition: event.partition } : {}), reason: event.reason });
      },
    });
    return { result, canceled };
  }

  it("a month runs after its days in one backfill, over all of them", async () => {
    const p = project([orders, monthly, monthlyReport]);
    const { result, canceled } = await runPlan(p, { window: "2026-01", order: "newest" });
    expect(result.status).toBe("completed");
    expect(result.waiting).toEqual([]);
    expect(canceled).toEqual([]);
    expect(await p.dag.find("shop.monthly_revenue")!.read(il.TimePartition.fromKey("2026-01"))).toEqual([
      { month: "2026-01-01", days: 31, revenue: (31 * 32) / 2 },
    ]);
    expect(await p.dag.find("shop.monthly_report")!.read(il.TimePartition.fromKey("2026-01"))).toEqual([{ month: "2026-01-01", lines: 1 }]);
  });

  it("a month whose days are not stored waits, reported by range; what reads it in its slot is canceled", async () => {
    const p = project([orders, monthly, monthlyReport]);
    await il.backfill(p.dag, new il.TimePartitionWindow("2026-01-01", "2026-01-10"), { assets: ["shop.orders"] });
    await p.dag.materialize(il.TimePartition.fromKey("2026-01-20"), { assets: ["shop.orders"] });
    const { result, canceled } = await runPlan(p, { assets: ["monthly_revenue", "monthly_report"], partition: "2026-01" });
    expect(result.status).toBe("failed");
    expect(result.waiting).toEqual([
      {
        asset: "shop.monthly_revenue",
        partition: "2026-01",
        upstream: "shop.orders",
        missing: "2026-01-11..2026-01-19, 2026-01-21..2026-01-31",
      },
    ]);
    expect(canceled).toEqual([
      {
        asset: "shop.monthly_revenue",
        partition: "2026-01",
        reason: 'waiting for "shop.orders" 2026-01-11..2026-01-19, 2026-01-21..2026-01-31',
      },
      {
        asset: "shop.monthly_report",
        partition: "2026-01",
        reason: 'its dependency "shop.monthly_revenue" 2026-01 is waiting for upstream data',
      },
    ]);
    expect(result.notRun).toEqual([
      {
        asset: "shop.monthly_report",
        partition: "2026-01",
        reason: 'its dependency "shop.monthly_revenue" 2026-01 is waiting for upstream data',
      },
    ]);
    expect(result.partitions).toEqual([
      { key: "2026-01", status: "canceled", result: null, assets: ["shop.monthly_revenue", "shop.monthly_report"] },
    ]);
    expect(await p.dag.find("shop.monthly_revenue")!.partitionRowCounts()).toEqual({});
  });

  it("days stored earlier and days run now together let the month run", async () => {
    const p = project([orders, monthly]);
    await il.backfill(p.dag, new il.TimePartitionWindow("2026-02-01", "2026-02-14"), { assets: ["shop.orders"] });
    // The window covers the second half of February and the whole month: the month reads both.
    const { result } = await runPlan(p, { window: "2026-02", order: "oldest", assets: ["monthly_revenue"] });
    expect(result.status).toBe("failed");
    expect(result.waiting.map((w) => w.missing)).toEqual(["2026-02-15..2026-02-28"]);
    // As --missing plans it: the days not stored, and the month, in one backfill.
    const rest = days("2026-02-15", "2026-02-28");
    const both = await runPlan(p, {
      window: "2026-02",
      order: "oldest",
      only: new Set([...rest, "2026-02"]),
      onlyByAsset: new Map([
        ["shop.orders", new Set(rest)],
        ["shop.monthly_revenue", new Set(["2026-02"])],
      ]),
    });
    expect(both.result.status).toBe("completed");
    expect(both.result.completedPartitions).toEqual([...rest, "2026-02"]);
    expect(await p.dag.find("shop.monthly_revenue")!.read(il.TimePartition.fromKey("2026-02"))).toEqual([
      { month: "2026-02-01", days: 28, revenue: (28 * 29) / 2 },
    ]);
  });

  it("a day that fails in the same backfill cancels the month (not waiting), the other days complete", async () => {
    failing.add("2026-03-15");
    try {
      const p = project([orders, monthly]);
      const { result, canceled } = await runPlan(p, { window: "2026-03", order: "oldest", failFast: false });
      expect(result.status).toBe("failed");
      expect(result.waiting).toEqual([]);
      expect(result.failedPartitions).toEqual(["2026-03-15"]);
      expect(result.canceledPartitions).toEqual(["2026-03"]);
      expect(result.completedPartitions).toEqual(days("2026-03-01", "2026-03-31").filter((d) => d !== "2026-03-15"));
      expect(canceled).toEqual([
        { asset: "shop.monthly_revenue", partition: "2026-03", reason: 'its dependency "shop.orders" 2026-03-15 failed' },
      ]);
      expect(result.notRun).toEqual([
        { asset: "shop.monthly_revenue", partition: "2026-03", reason: 'its dependency "shop.orders" 2026-03-15 failed' },
      ]);
      expect(await p.dag.find("shop.monthly_revenue")!.partitionRowCounts()).toEqual({});
    } finally {
      failing.clear();
    }
  });

  it("with fail-fast, a failed day stops the backfill: the month is canceled without running", async () => {
    failing.add("2026-03-31");
    try {
      const p = project([orders, monthly]);
      const { result } = await runPlan(p, { window: "2026-03", order: "newest" });
      expect(result.status).toBe("failed");
      expect(result.failedPartitions).toEqual(["2026-03-31"]);
      expect(result.canceledPartitions).toContain("2026-03");
      expect(await p.dag.find("shop.monthly_revenue")!.partitionRowCounts()).toEqual({});
    } finally {
      failing.clear();
    }
  });

  it("an unpartitioned asset reading a list asset that is not stored waits for its values; once they are, it runs", async () => {
    const p = project([stock, summary]);
    // Selected alone, an unpartitioned asset plans as one run: its stage is written here.
    const result = await runStages(p.dag, [[{ partition: null, assets: [p.dag.find("shop.summary")!] }]], { window: "(every value)" });
    expect(result.status).toBe("failed");
    expect(result.waiting).toEqual([{ asset: "shop.summary", partition: null, upstream: "shop.stock", missing: "eu..asia" }]);
    const all = await runPlan(p, { assets: ["+summary"] });
    expect(all.result.status).toBe("completed");
    expect(await p.dag.find("shop.summary")!.read(null)).toEqual([{ regions: 3 }]);
  });
});
