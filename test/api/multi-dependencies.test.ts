// Dependency edges with a multi partitioning at one end (issue 36, item 3): what each partition
// reads of its upstream, and the edges refused with a ConfigError naming them.
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

afterEach(() => il.MemoryDestination.clear());

const REGIONS = ["eu", "us", "apac"];
const day = (options: { start?: string } = {}) => new il.TimePartitionConfig({ column: "date", ...options });
const month = () => new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH });
const regions = () => new il.ListPartitionConfig({ column: "region", values: REGIONS });
const byDayAndRegion = (start?: string) => new il.MultiPartitionConfig({ date: day(start ? { start } : {}), region: regions() });

type Row = Record<string, unknown>;
const keysOf = (ctx: il.ExecutionContext) => (ctx.partition as il.MultiPartition).keys;

/** Units of a region's day: the day of the month times 10, plus 1 for us and 2 for apac. */
const units = (date: string, region: string) => Number(date.slice(8)) * 10 + REGIONS.indexOf(region);

const stock = il.asset({
  key: "stock",
  partitioning: byDayAndRegion("2026-01-01"),
  run: (ctx) => {
    const { date, region } = keysOf(ctx);
    return [{ date, region, units: units(date!, region!) }];
  },
});

/** A project of `stock` and the given assets, in one source over the memory destination. */
async function open(...assets: il.AssetDefinition[]) {
  const config = il.defineConfig({
    sources: [il.source({ key: "shop", assets: [stock, ...assets] })({ destinations: new il.MemoryDestination() })],
  });
  return il.openProject(config);
}

/** What each run of an asset read, by its partition key. */
function recorder() {
  const seen = new Map<string, Row[]>();
  return { seen, keep: (ctx: il.ExecutionContext, rows: unknown) => void seen.set(ctx.partition!.key, rows as Row[]) };
}

describe("multi to time", () => {
  it("a day reads every region of its day: a daily total across regions", async () => {
    const read = recorder();
    const total = il.asset({
      key: "total",
      partitioning: day(),
      requires: { stock },
      run: (ctx, deps) => {
        read.keep(ctx, deps.stock);
        const rows = deps.stock as Row[];
        return [{ date: ctx.partition!.key, units: rows.reduce((s, r) => s + (r["units"] as number), 0), regions: rows.length }];
      },
    });
    const session = await open(total);
    const outcome = await session.materialize({ window: "2026-01-01..2026-01-02" });
    expect(outcome.status).toBe("completed");
    expect(
      read.seen
        .get("2026-01-02")!
        .map((r) => r["region"])
        .sort(),
    ).toEqual(["apac", "eu", "us"]);
    expect((await session.read("total", "2026-01-02")).rows).toEqual([{ date: "2026-01-02", units: 20 + 21 + 22, regions: 3 }]);
    await session.close();
  });

  it("a month reads every region of each of its days", async () => {
    const read = recorder();
    const monthly = il.asset({
      key: "monthly",
      partitioning: month(),
      requires: { stock },
      run: (ctx, deps) => {
        read.keep(ctx, deps.stock);
        return [{ month: ctx.partition!.key, rows: (deps.stock as Row[]).length }];
      },
    });
    const session = await open(monthly);
    await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-31" });
    await session.materialize({ selection: "monthly", partition: "2026-01" });
    expect(read.seen.get("2026-01")).toHaveLength(31 * 3);
    await session.close();
  });

  it("with a mapping: the previous day's every region", async () => {
    const read = recorder();
    const before = il.asset({
      key: "before",
      partitioning: day(),
      requires: { stock: { asset: stock, mapping: il.previousPeriod() } },
      run: (ctx, deps) => (read.keep(ctx, deps.stock), [{ date: ctx.partition!.key }]),
    });
    const session = await open(before);
    await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-03" });
    await session.materialize({ selection: "before", partition: "2026-01-03" });
    expect(read.seen.get("2026-01-03")!.map((r) => `${r["date"]}|${r["region"]}`)).toEqual([
      "2026-01-02|eu",
      "2026-01-02|us",
      "2026-01-02|apac",
    ]);
    await session.close();
  });
});

describe("multi to multi with the same lists", () => {
  it("a region's month reads its own region's days: a per-region monthly rollup", async () => {
    const read = recorder();
    const rollup = il.asset({
      key: "rollup",
      partitioning: new il.MultiPartitionConfig({ month: month(), region: regions() }),
      requires: { stock },
      run: (ctx, deps) => {
        read.keep(ctx, deps.stock);
        const { month: m, region } = keysOf(ctx);
        const rows = deps.stock as Row[];
        return [{ month: m, region, units: rows.reduce((s, r) => s + (r["units"] as number), 0), days: rows.length }];
      },
    });
    const session = await open(rollup);
    const outcome = await session.materialize({ window: "2026-01-01..2026-01-31" });
    expect(outcome.status).toBe("completed");
    expect(read.seen.get("2026-01|us")!.every((r) => r["region"] === "us")).toBe(true);
    const sum = (region: string) =>
      Array.from({ length: 31 }, (_, i) => units(`2026-01-${String(i + 1).padStart(2, "0")}`, region)).reduce((a, b) => a + b);
    expect((await session.read("rollup", "2026-01|us")).rows).toEqual([{ month: "2026-01", region: "us", units: sum("us"), days: 31 }]);
    // The rollup runs after every day it reads: its months are a later stage.
    const plan = await session.plan({ window: "2026-01-01..2026-01-31" });
    expect(plan.partitions.slice(-3)).toEqual(["2026-01|eu", "2026-01|us", "2026-01|apac"]);
    await session.close();
  });

  it("same granularity: each partition reads its own; trailing(2) reads its region's two days", async () => {
    const own = recorder();
    const rolling = recorder();
    const copy = il.asset({
      key: "copy",
      partitioning: byDayAndRegion(),
      requires: { stock },
      run: (ctx, deps) => (own.keep(ctx, deps.stock), deps.stock as Row[]),
    });
    const twoDays = il.asset({
      key: "two_days",
      partitioning: byDayAndRegion("2026-01-01"),
      requires: { stock: { asset: stock, mapping: il.trailing(2) } },
      run: (ctx, deps) => (rolling.keep(ctx, deps.stock), [{ ...keysOf(ctx) }]),
    });
    const session = await open(copy, twoDays);
    await session.materialize({ window: "2026-01-01..2026-01-03" });
    expect(own.seen.get("2026-01-02|apac")).toEqual([{ date: "2026-01-02", region: "apac", units: 22 }]);
    expect(rolling.seen.get("2026-01-03|us")!.map((r) => `${r["date"]}|${r["region"]}`)).toEqual(["2026-01-02|us", "2026-01-03|us"]);
    // Clamped to the upstream's start: the first day reads itself alone.
    expect(rolling.seen.get("2026-01-01|eu")).toHaveLength(1);
    await session.close();
  });
});

describe("time or list to multi", () => {
  it("each region-day reads its day of a time upstream", async () => {
    const read = recorder();
    const rates = il.asset({
      key: "rates",
      partitioning: day({ start: "2026-01-01" }),
      run: (ctx) => [{ date: ctx.partition!.key, rate: 2 }],
    });
    const priced = il.asset({
      key: "priced",
      partitioning: byDayAndRegion(),
      requires: { rates },
      run: (ctx, deps) => (read.keep(ctx, deps.rates), [{ ...keysOf(ctx) }]),
    });
    const session = await open(rates, priced);
    await session.materialize({ window: "2026-01-01..2026-01-02" });
    expect(read.seen.get("2026-01-02|us")).toEqual([{ date: "2026-01-02", rate: 2 }]);
    expect(read.seen.size).toBe(6);
    await session.close();
  });

  it("each region-day reads its region of a list upstream", async () => {
    const read = recorder();
    const info = il.asset({
      key: "info",
      partitioning: regions(),
      run: (ctx) => [{ region: ctx.partition!.key, tz: `tz-${ctx.partition!.key}` }],
    });
    const local = il.asset({
      key: "local",
      partitioning: byDayAndRegion("2026-01-01"),
      requires: { info },
      run: (ctx, deps) => (read.keep(ctx, deps.info), [{ ...keysOf(ctx) }]),
    });
    const session = await open(info, local);
    await session.materialize({ selection: "info" });
    await session.materialize({ selection: "local", window: "2026-01-01" });
    expect(read.seen.get("2026-01-01|apac")).toEqual([{ region: "apac", tz: "tz-apac" }]);
    await session.close();
  });

  it("a multi partitioning of lists only reads whole into an unpartitioned asset", async () => {
    const grid = il.asset({
      key: "grid",
      partitioning: new il.MultiPartitionConfig({
        region: regions(),
        channel: new il.ListPartitionConfig({ column: "channel", values: ["web", "shop"] }),
      }),
      run: (ctx) => [{ ...keysOf(ctx) }],
    });
    let read: Row[] = [];
    const all = il.asset({ key: "all", requires: { grid }, run: (_ctx, deps) => ((read = deps.grid as Row[]), [{ n: read.length }]) });
    const session = await open(grid, all);
    await session.materialize({ selection: ["grid", "all"] });
    expect(read).toHaveLength(6);
    await session.close();
  });
});

describe("edges refused", () => {
  const cases: Array<[string, () => il.AssetDefinition, string]> = [
    [
      "multi to list",
      () => il.asset({ key: "bad", partitioning: regions(), requires: { stock }, run: () => [] }),
      'asset "shop.bad" (by list eu,us,apac) requires "shop.stock" (by date (day) | region (eu, us, apac)): a multi partition reads only its own values of the same list dimensions (region: eu, us, apac); partition "shop.bad" by the same lists (with or without time), or by time alone to read every value of a period',
    ],
    [
      "multi to multi with other lists",
      () =>
        il.asset({
          key: "bad",
          partitioning: new il.MultiPartitionConfig({
            date: day(),
            market: new il.ListPartitionConfig({ column: "market", values: ["fr", "de"] }),
          }),
          requires: { stock },
          run: () => [],
        }),
      "a multi partition reads only its own values of the same list dimensions (region: eu, us, apac)",
    ],
    [
      "multi with time to unpartitioned",
      () => il.asset({ key: "bad", requires: { stock }, run: () => [] }),
      'asset "shop.bad" (unpartitioned) requires "shop.stock" (by date (day) | region (eu, us, apac)): an unpartitioned asset cannot choose which periods to read',
    ],
    [
      "time to multi without time",
      () => {
        const rates = il.asset({ key: "rates", partitioning: day(), run: () => [] });
        return il.asset({
          key: "bad",
          partitioning: new il.MultiPartitionConfig({
            region: regions(),
            channel: new il.ListPartitionConfig({ column: "channel", values: ["web"] }),
          }),
          requires: { rates },
          run: () => [],
        });
      },
      '"shop.bad" has no time dimension, so it cannot choose which periods to read',
    ],
    [
      "list of other values to multi",
      () => {
        const markets = il.asset({
          key: "markets",
          partitioning: new il.ListPartitionConfig({ column: "market", values: ["fr"] }),
          run: () => [],
        });
        return il.asset({ key: "bad", partitioning: byDayAndRegion(), requires: { markets }, run: () => [] });
      },
      'a list upstream needs one list dimension of "shop.bad" with the same values (fr) to read its own value from; region: eu, us, apac has none',
    ],
    [
      "a mapping where one end has no time",
      () => {
        const info = il.asset({ key: "info", partitioning: regions(), run: () => [] });
        return il.asset({
          key: "bad",
          partitioning: byDayAndRegion(),
          requires: { info: { asset: info, mapping: il.trailing(2) } },
          run: () => [],
        });
      },
      "with a time mapping (the trailing 2 periods): it applies only when both have a time dimension; remove it",
    ],
  ];
  for (const [name, make, message] of cases) {
    it(`${name}: a ConfigError naming the edge when a run selects it`, async () => {
      const bad = make();
      const config = il.defineConfig({
        sources: [il.source({ key: "shop", assets: [stock, ...collect(bad)] })({ destinations: new il.MemoryDestination() })],
      });
      const session = await il.openProject(config);
      const error = await session.plan({ selection: "bad", window: "2026-01-01" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(il.ConfigError);
      expect((error as Error).message).toContain(message);
      await session.close();
    });
  }
});

/** The asset and the upstream definitions it names (other than stock), for the source. */
function collect(asset: il.AssetDefinition): il.AssetDefinition[] {
  const upstream = Object.values(asset.requires)
    .map((t) => (typeof t === "object" && "asset" in t ? t.asset : t))
    .filter((t): t is il.AssetDefinition => typeof t === "object" && t !== stock);
  return [...upstream, asset];
}
