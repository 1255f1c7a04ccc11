// Runs of multi-partitioned assets (issue 36, item 4): a window runs every combination, newest
// period first and each period's values in declared order; a failed combination fails alone;
// --missing, --stale and --full-refresh work per combination; values narrow a window; a
// project-wide window reaches multi assets; shards split combinations; a window of a million
// combinations is refused before anything is listed.
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

afterEach(() => il.MemoryDestination.clear());

const REGIONS = ["eu", "us", "apac"];
const regions = () => new il.ListPartitionConfig({ column: "region", values: REGIONS });
const byDayAndRegion = (options: { allowWindow?: boolean } = {}) =>
  new il.MultiPartitionConfig({ date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }), region: regions() }, options);

type Row = Record<string, unknown>;

/** A project: `stock` (day x region), `copy` reading its own combination, `total` a day of every region. */
function project(fail: ReadonlySet<string> = new Set(), version = "1") {
  const ran: string[] = [];
  const dates: string[] = [];
  const stock = il.asset({
    key: "stock",
    partitioning: byDayAndRegion(),
    run: (ctx) => {
      const p = ctx.partition as il.MultiPartition;
      ran.push(p.key);
      dates.push(ctx.partitionDate.toISOString());
      if (fail.has(p.key)) throw new Error(`the ${p.keys.region} API is down`);
      return [{ ...p.keys, units: 1 }];
    },
  });
  const copy = il.asset({
    key: "copy",
    codeVersion: version,
    partitioning: byDayAndRegion(),
    requires: { stock },
    run: (_ctx, deps) => deps.stock as Row[],
  });
  const total = il.asset({
    key: "total",
    partitioning: new il.TimePartitionConfig({ column: "date" }),
    requires: { stock },
    run: (ctx, deps) => [{ date: ctx.partition!.key, units: (deps.stock as Row[]).length }],
  });
  const config = il.defineConfig({
    sources: [il.source({ key: "shop", assets: [stock, copy, total] })({ destinations: new il.MemoryDestination() })],
  });
  return { config, ran, dates };
}

describe("a window of a multi asset", () => {
  it("runs every combination, newest period first, each period's values in declared order (oldest: oldest first)", async () => {
    const { config, ran } = project();
    const session = await il.openProject(config);
    const plan = await session.plan({ selection: "stock", window: "2026-01-01..2026-01-02" });
    expect(plan.partitions).toEqual([
      "2026-01-02|eu",
      "2026-01-02|us",
      "2026-01-02|apac",
      "2026-01-01|eu",
      "2026-01-01|us",
      "2026-01-01|apac",
    ]);
    const oldest = await session.plan({ selection: "stock", window: "2026-01-01..2026-01-02", order: "oldest" });
    expect(oldest.partitions.slice(0, 3)).toEqual(["2026-01-01|eu", "2026-01-01|us", "2026-01-01|apac"]);
    const outcome = await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-02", concurrency: 1 });
    expect(outcome.status).toBe("completed");
    expect(ran).toEqual(plan.partitions);
    await session.close();
  });

  it("runs with concurrency, every combination once", async () => {
    const { config, ran } = project();
    const session = await il.openProject(config);
    const outcome = await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-05", concurrency: 4 });
    expect(outcome.status).toBe("completed");
    expect(new Set(ran).size).toBe(15);
    expect(ran).toHaveLength(15);
    await session.close();
  });

  it("gives ctx.partitionDate the time dimension's date", async () => {
    const { config, dates } = project();
    const session = await il.openProject(config);
    await session.materialize({ selection: "stock", partition: "2026-01-05|eu" });
    expect(dates).toEqual(["2026-01-05T00:00:00.000Z"]);
    await session.close();
  });

  it("takes a partition as a key or by name, and a window as a multi window prints itself", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    expect((await session.plan({ selection: "stock", partition: "2026-01-05|eu" })).partitions).toEqual(["2026-01-05|eu"]);
    expect((await session.plan({ selection: "stock", partition: "region=us,date=2026-01-05" })).partitions).toEqual(["2026-01-05|us"]);
    expect((await session.plan({ selection: "stock", window: "2026-01-04..2026-01-05|eu,apac" })).partitions).toEqual([
      "2026-01-05|eu",
      "2026-01-05|apac",
      "2026-01-04|eu",
      "2026-01-04|apac",
    ]);
    // One day of every region.
    expect((await session.plan({ selection: "stock", partition: "2026-01-05" })).partitions).toEqual([
      "2026-01-05|eu",
      "2026-01-05|us",
      "2026-01-05|apac",
    ]);
    await session.close();
  });

  it("a lookback counts back in the time dimension's periods, every value of each", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    // The day in progress (2026-01-10) is left to finish.
    const plan = await session.plan({ selection: "stock", lookback: 2, now: new Date("2026-01-10T12:00:00Z") });
    expect(plan.partitions).toEqual([
      "2026-01-09|eu",
      "2026-01-09|us",
      "2026-01-09|apac",
      "2026-01-08|eu",
      "2026-01-08|us",
      "2026-01-08|apac",
    ]);
    await session.close();
  });

  it("narrows a window to the values given, kept in declared order", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    const plan = await session.plan({ selection: "stock", window: "2026-01-01..2026-01-02", values: { region: ["apac", "eu"] } });
    expect(plan.partitions).toEqual(["2026-01-02|eu", "2026-01-02|apac", "2026-01-01|eu", "2026-01-01|apac"]);
    await expect(session.plan({ selection: "stock", window: "2026-01-01", values: { market: ["fr"] } })).rejects.toThrow(
      '`values` names "market", which is no list dimension of the selected assets: expected one of "region"',
    );
    await expect(session.plan({ selection: "stock", window: "2026-01-01", values: { region: ["mars"] } })).rejects.toThrow(
      'multi window values of "region": string "mars" is not a declared value; expected some of eu, us, apac',
    );
    await expect(session.plan({ selection: "stock", partition: "2026-01-01|eu", values: { region: ["eu"] } })).rejects.toThrow(
      '`values` narrows a window; `partition` "2026-01-01|eu" already names one combination',
    );
    await session.close();
  });

  it("reads --values texts by the dimension named, for the values option", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    expect(session.parseValues(["region=us,eu", "region=apac"])).toEqual({ region: ["us", "eu", "apac"] });
    expect(() => session.parseValues(["region=mars"])).toThrow('"mars" is not a declared value; expected some of eu, us, apac');
    expect(() => session.parseValues(["region=eu"], "total")).toThrow("no selected asset is partitioned by several dimensions");
    await session.close();
  });

  it("a project-wide window runs multi assets over it, each after what it reads", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    const plan = await session.plan({ window: "2026-01-01..2026-01-02" });
    const stages = plan.stages!.map((stage) => stage.map((slot) => `${slot.partition?.key}:${slot.assets.map((a) => a.key).join("+")}`));
    expect(stages).toEqual([
      [
        "2026-01-02|eu:stock+copy",
        "2026-01-02|us:stock+copy",
        "2026-01-02|apac:stock+copy",
        "2026-01-01|eu:stock+copy",
        "2026-01-01|us:stock+copy",
        "2026-01-01|apac:stock+copy",
      ],
      ["2026-01-02:total", "2026-01-01:total"],
    ]);
    expect((await session.materialize({ window: "2026-01-01..2026-01-02" })).status).toBe("completed");
    expect((await session.read("total", "2026-01-02")).rows).toEqual([{ date: "2026-01-02", units: 3 }]);
    await session.close();
  });

  it("refuses a window of more than a million combinations before listing any", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    // 333,334 days of 3 regions: 1,000,002 combinations.
    const end = il.TimeGranularity.DAY.format(il.TimeGranularity.DAY.advance(new Date(Date.UTC(2026, 0, 1)), 333_333));
    const started = Date.now();
    const error = await session.plan({ selection: "stock", window: `2026-01-01..${end}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(il.PartitionError);
    expect((error as Error).message).toBe(
      `window 2026-01-01..${end} holds 1,000,002 day x value partitions of asset "shop.stock": expected at most 1,000,000 in one plan (run it in parts)`,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    // Narrowed values count as narrowed: two regions of 500,001 days are just as many.
    const longer = il.TimeGranularity.DAY.format(il.TimeGranularity.DAY.advance(new Date(Date.UTC(2026, 0, 1)), 500_000));
    const narrowed = await session
      .plan({ selection: "stock", window: `2026-01-01..${longer}`, values: { region: ["eu", "us"] } })
      .catch((e: unknown) => e);
    expect((narrowed as Error).message).toContain("holds 1,000,002 day x value partitions");
    await session.close();
  });
});

describe("reads of a multi asset", () => {
  it("reads a key, a range of time (every value, or those named) and a multi window", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-02" });
    const key = (rows: Row[] | null) => rows!.map((r) => `${r["date"]}|${r["region"]}`);
    expect(key((await session.read("stock", "2026-01-02|us")).rows)).toEqual(["2026-01-02|us"]);
    expect(key((await session.read("stock", "2026-01-02")).rows)).toEqual(["2026-01-02|eu", "2026-01-02|us", "2026-01-02|apac"]);
    expect((await session.read("stock", "2026-01-01..2026-01-02")).total).toBe(6);
    expect(key((await session.read("stock", { window: "2026-01-01..2026-01-02", values: { region: ["apac"] } })).rows)).toEqual([
      "2026-01-01|apac",
      "2026-01-02|apac",
    ]);
    const stock = session.namedAsset("stock")!.partitioning as il.MultiPartitionConfig;
    expect(key((await session.read("stock", stock.window("2026-01-01", "2026-01-02", { region: ["eu"] }))).rows)).toEqual([
      "2026-01-01|eu",
      "2026-01-02|eu",
    ]);
    expect(key((await session.read("stock", stock.fromKey("2026-01-01|us"))).rows)).toEqual(["2026-01-01|us"]);
    await session.close();
  });

  it("ctx.partitionDate of a multi partition without a time dimension says so", async () => {
    const grid = il.asset({
      key: "grid",
      partitioning: new il.MultiPartitionConfig({
        region: regions(),
        channel: new il.ListPartitionConfig({ column: "channel", values: ["web"] }),
      }),
      run: (ctx) => [{ date: ctx.partitionDate }],
    });
    const config = il.defineConfig({ sources: [il.source({ key: "shop", assets: [grid] })({ destinations: new il.MemoryDestination() })] });
    const session = await il.openProject(config);
    const outcome = await session.materialize({ partition: "eu|web" });
    expect(outcome.status).toBe("failed");
    expect(JSON.stringify(outcome)).toContain(
      "partitionDate needs a single time partition, but the run has the multi partition without a time dimension",
    );
    await session.close();
  });
});

describe("failures and reruns per combination", () => {
  it("a failed combination fails alone; --missing runs just it", async () => {
    const failing = project(new Set(["2026-01-02|us"]));
    const session = await il.openProject(failing.config);
    const outcome = await session.materialize({ selection: ["stock", "copy"], window: "2026-01-01..2026-01-02" });
    expect(outcome.status).toBe("failed");
    const [coverage] = await session.coverage("stock", { window: "2026-01-01..2026-01-02" });
    expect(coverage!.partitions.filter((p) => p.status === "missing").map((p) => p.key)).toEqual(["2026-01-02|us"]);
    expect(coverage!.materialized).toBe(5);
    const [copies] = await session.coverage("copy", { window: "2026-01-01..2026-01-02" });
    expect(copies!.missing).toBe(1);
    await session.close();

    const fixed = project();
    const again = await il.openProject(fixed.config);
    const missing = await again.plan({ selection: ["stock", "copy"], window: "2026-01-01..2026-01-02", missing: true });
    expect(missing.partitions).toEqual(["2026-01-02|us"]);
    expect((await again.materialize({ plan: missing })).status).toBe("completed");
    expect(fixed.ran).toEqual(["2026-01-02|us"]);
    // Without a window: the whole expected range up to yesterday of the clock given.
    const none = await again.plan({ selection: "stock", missing: { now: new Date("2026-01-03T12:00:00Z") } });
    expect(none.partitions).toEqual([]);
    await again.close();
  });

  it("--stale rebuilds the combinations whose upstream was rebuilt, and no other", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    await session.materialize({ selection: ["stock", "copy"], window: "2026-01-01..2026-01-02" });
    await session.materialize({ selection: "stock", partition: "2026-01-02|apac" });
    const stale = await session.plan({ selection: ["stock", "copy"], window: "2026-01-01..2026-01-02", stale: true });
    expect(stale.partitions).toEqual(["2026-01-02|apac"]);
    expect(stale.runs.map((r) => r.assets)).toEqual([["shop.copy"]]);
    expect(Object.keys(stale.staleReasons!.get("shop.copy")!)).toEqual(["2026-01-02|apac"]);
    const [coverage] = await session.coverage("copy", { window: "2026-01-01..2026-01-02" });
    expect(coverage!.partitions.filter((p) => p.stale).map((p) => p.key)).toEqual(["2026-01-02|apac"]);
    await session.close();
  });

  it("--full-refresh rebuilds every stored combination, those outside the window too", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-02" });
    const options = { selection: "stock", window: "2026-01-02" };
    const plan = await session.plan(options);
    const { targets, scope } = await session.fullRefreshScope(plan, options);
    expect(targets.length).toBeGreaterThan(0);
    expect(scope.outside).toBe(3);
    expect([...scope.options.only!].sort()).toEqual([
      "2026-01-01|apac",
      "2026-01-01|eu",
      "2026-01-01|us",
      "2026-01-02|apac",
      "2026-01-02|eu",
      "2026-01-02|us",
    ]);
    await session.drop(plan);
    const rebuilt = await session.materialize(scope.options);
    expect(rebuilt.status).toBe("completed");
    const [coverage] = await session.coverage("stock", { window: "2026-01-01..2026-01-02" });
    expect(coverage!.materialized).toBe(6);
    await session.close();
  });
});

describe("shards", () => {
  it("split the combinations of a window, every one to exactly one shard", async () => {
    const { config } = project();
    const session = await il.openProject(config);
    const all = (await session.plan({ selection: "stock", window: "2026-01-01..2026-01-03" })).partitions;
    const shares = await Promise.all(
      [1, 2].map(
        async (index) =>
          (await session.plan({ selection: "stock", window: "2026-01-01..2026-01-03", shard: { index, count: 2 } })).partitions,
      ),
    );
    expect(shares[0]).toEqual(all.filter((_, i) => i % 2 === 0));
    expect([...shares[0]!, ...shares[1]!].sort()).toEqual([...all].sort());
    await session.close();
  });
});
