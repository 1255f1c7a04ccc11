// The staleness rules (issue 34), each reason and each kind of edge, over real runs into the
// memory destination: an upstream materialized again, an upstream that exists now but did not,
// a code version changed, destinations holding different writes; a partition or an upstream
// without records is never stale.
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { staleness } from "../../src/asset/staleness.js";

afterEach(() => il.MemoryDestination.clear());

/** A destination of its own store that keeps records, as a user could write one: the second destination of an asset. */
class Recording extends il.Destination {
  readonly stored = new Map<string, { data: unknown; record: il.Materialization }>();
  writePartition(context: il.IOContext, partition: il.Partition | null, data: unknown) {
    this.stored.set(partition?.key ?? "", { data, record: context.materialization(partition, (data as unknown[]).length) });
  }
  readPartition(_context: il.IOContext, partition: il.Partition | null) {
    return this.stored.get(partition?.key ?? "")?.data ?? [];
  }
  partitionRowCounts() {
    return Object.fromEntries([...this.stored].map(([key, { data }]) => [key, (data as unknown[]).length]));
  }
  override materializations() {
    return Object.fromEntries([...this.stored].map(([key, { record }]) => [key, record]));
  }
}

/** The memory store, reading a partition never written as no rows (as a SQL table's window read does). */
class Lenient extends il.MemoryDestination {
  override readPartition(context: il.IOContext, partition: il.Partition | null): unknown {
    try {
      return super.readPartition(context, partition);
    } catch {
      return [];
    }
  }
}

const day = (start = "2026-01-01") => new il.TimePartitionConfig({ column: "day", start });
const rows = (column: string) => (ctx: il.ExecutionContext) => [{ [column]: ctx.partition!.key }];

function shop(options: { codeVersion?: string; second?: il.Destination; lenient?: boolean } = {}) {
  const orders = il.asset({ key: "orders", partitioning: day(), run: rows("day") });
  const revenue = il.asset({
    key: "revenue",
    partitioning: day(),
    requires: { orders: "orders" },
    ...(options.codeVersion ? { codeVersion: options.codeVersion } : {}),
    ...(options.second ? { destinations: { main: new il.MemoryDestination(), copy: options.second } } : {}),
    ...(options.lenient ? { destinations: new Lenient() } : {}),
    run: rows("day"),
  });
  const trailingSum = il.asset({
    key: "trailing_sum",
    partitioning: day("2026-01-02"),
    requires: { orders: { asset: "orders", mapping: il.trailing(2) } },
    run: rows("day"),
  });
  const previous = il.asset({
    key: "previous",
    partitioning: day("2026-01-02"),
    requires: { orders: { asset: "orders", mapping: il.previousPeriod() } },
    run: rows("day"),
  });
  const monthly = il.asset({
    key: "monthly",
    partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH, start: "2026-01-01" }),
    requires: { revenue: "revenue" },
    run: rows("month"),
  });
  const regions = il.asset({
    key: "regions",
    partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
    run: rows("region"),
  });
  const byRegion = il.asset({
    key: "by_region",
    partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
    requires: { regions: "regions" },
    run: rows("region"),
  });
  return il.defineConfig({
    sources: [
      il.source({ key: "shop", assets: [orders, revenue, trailingSum, previous, monthly, regions, byRegion] })({
        destinations: new il.MemoryDestination(),
      }),
    ],
  });
}

describe("a stored partition is stale", () => {
  it("when an upstream partition it read was materialized again since; other partitions stay fresh", async () => {
    const session = await il.openProject(shop());
    await session.materialize({ selection: "orders+", window: "2026-01-01..2026-01-03", concurrency: 1 });
    expect(await session.staleness("revenue")).toEqual({});
    await session.materialize({ selection: "orders", partition: "2026-01-02" });
    const stale = await session.staleness("revenue");
    expect(Object.keys(stale)).toEqual(["2026-01-02"]);
    expect(stale["2026-01-02"]![0]).toMatch(/^shop\.orders 2026-01-02 was materialized again at 2026-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // Rebuilt, it is fresh again; what reads it (the month) is now stale.
    await session.materialize({ selection: "monthly", partition: "2026-01" }).catch(() => undefined);
    await session.materialize({ selection: "revenue", partition: "2026-01-02" });
    expect(await session.staleness("revenue")).toEqual({});
    await session.close();
  });

  it("through trailing and previous-period mappings, and a month of days", async () => {
    const session = await il.openProject(shop());
    await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-31" });
    await session.materialize({ selection: "revenue", window: "2026-01-01..2026-01-31" });
    await session.materialize({ selection: "trailing_sum", window: "2026-01-02..2026-01-05" });
    await session.materialize({ selection: "previous", window: "2026-01-02..2026-01-05" });
    await session.materialize({ selection: "monthly", partition: "2026-01" });
    await session.materialize({ selection: "orders", partition: "2026-01-03" });
    // trailing(2): the 3rd is read by the 3rd and the 4th; previous period: by the 4th.
    expect(Object.keys(await session.staleness("trailing_sum"))).toEqual(["2026-01-03", "2026-01-04"]);
    expect(Object.keys(await session.staleness("previous"))).toEqual(["2026-01-04"]);
    expect(await session.staleness("monthly")).toEqual({});
    await session.materialize({ selection: "revenue", partition: "2026-01-15" });
    expect(await session.staleness("monthly")).toEqual({
      "2026-01": [expect.stringContaining("shop.revenue 2026-01-15 was materialized again")],
    });
    await session.close();
  });

  it("when an upstream partition it should have read exists now but did not then (a month built before its last day)", async () => {
    // revenue's store reads a day never written as no rows, so the month builds from 30 days of 31.
    const session = await il.openProject(shop({ lenient: true }));
    await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-31" });
    await session.materialize({ selection: "revenue", window: "2026-01-01..2026-01-30" });
    // A plan waits for the missing day: the month is built directly, as a script can.
    const monthly = session.project.dag.find("monthly")!;
    await monthly.materialize(monthly.partitioning!.partition("2026-01"));
    expect(await session.staleness("monthly")).toEqual({});
    await session.materialize({ selection: "revenue", partition: "2026-01-31" });
    expect(await session.staleness("monthly")).toEqual({
      "2026-01": ["shop.revenue 2026-01-31 exists now but did not when this was built"],
    });
    await session.close();
  });

  it("when the asset's codeVersion is not the one it was built with", async () => {
    const first = await il.openProject(shop({ codeVersion: "1" }));
    await first.materialize({ selection: "orders+", partition: "2026-01-01" });
    expect(await first.staleness("revenue")).toEqual({});
    await first.close();
    const second = await il.openProject(shop({ codeVersion: "2" }));
    expect(await second.staleness("revenue")).toEqual({ "2026-01-01": ['code version changed: "1" when built, "2" now'] });
    await second.close();
    const third = await il.openProject(shop());
    expect(await third.staleness("revenue")).toEqual({ "2026-01-01": ['code version changed: "1" when built, none now'] });
    await third.close();
  });

  it("through list partitions, value by value", async () => {
    const session = await il.openProject(shop());
    await session.materialize({ selection: "regions+", window: "eu..us", concurrency: 1 });
    await session.materialize({ selection: "regions", partition: "us" });
    expect(Object.keys(await session.staleness("by_region"))).toEqual(["us"]);
    await session.close();
  });

  it("states a reason once for an asset with two destinations holding the same write (issue 41.12)", async () => {
    const session = await il.openProject(shop({ second: new Recording() }));
    await session.materialize({ selection: "orders+", window: "2026-01-01..2026-01-02", concurrency: 1 });
    await session.materialize({ selection: "orders", partition: "2026-01-02" });
    expect(await session.staleness("revenue")).toEqual({
      "2026-01-02": [expect.stringMatching(/^shop\.orders 2026-01-02 was materialized again at .* UTC$/)],
    });
    await session.close();
  });

  it("when its destinations hold different writes; narrowed to a window", async () => {
    const session = await il.openProject(shop({ second: new Recording() }));
    await session.materialize({ selection: "orders+", window: "2026-01-01..2026-01-02", concurrency: 1 });
    const revenue = session.project.dag.find("revenue")!;
    // The copy gets an older write of the 2nd: the same data written apart, by another run.
    await revenue.destinations[1]!.write(revenue.ioContext(new il.TimePartition("2026-01-02")), [{ day: "2026-01-02" }]);
    const stale = await session.staleness("revenue");
    expect(Object.keys(stale)).toEqual(["2026-01-02"]);
    // The write made apart read nothing: the copy's record says so too, once, naming the copy.
    expect(stale["2026-01-02"]).toEqual([
      "in copy: shop.orders is read now but was not when this was built",
      expect.stringMatching(/^copy holds another write \(run adhoc, .* UTC\) than main \(run [0-9a-f]{8}, .* UTC\)$/),
    ]);
    expect(await session.staleness("revenue", "2026-01-01")).toEqual({});
    await session.close();
  });
});

/**
 * Day x region assets (`s`, and `s_renamed` and `other` to read instead or besides), and `t`
 * reading every region of them for its day; `regions` are the values declared (added or removed
 * between two projects over the same memory store), `rollupReads` what `t` reads.
 */
function regional(regions: readonly string[], rollupReads: Record<string, string> = { s: "s" }) {
  const multi = () =>
    new il.MultiPartitionConfig({
      date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      region: new il.ListPartitionConfig({ column: "region", values: [...regions] }),
    });
  const daily = (key: string) => il.asset({ key, partitioning: multi(), run: (ctx) => [{ ...(ctx.partition as il.MultiPartition).keys }] });
  const t = il.asset({
    key: "t",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    requires: rollupReads,
    run: (ctx, deps) => [{ date: ctx.partition!.key, rows: Object.values(deps).flat().length }],
  });
  const assets = [daily("s"), daily("s_renamed"), daily("other"), t];
  return il.defineConfig({
    sources: [il.source({ key: "shop", assets })({ destinations: new il.MemoryDestination() })],
  });
}

describe("a list value added or removed, an upstream added or renamed (issues 41.3, 41.20)", () => {
  it("a value declared and materialized makes the rollup across that dimension stale, and only the days it has", async () => {
    const before = await il.openProject(regional(["eu", "us"]));
    await before.materialize({ selection: "s+", window: "2026-01-01..2026-01-02", concurrency: 1 });
    expect(await before.staleness("t")).toEqual({});
    await before.close();
    const after = await il.openProject(regional(["eu", "us", "apac"]));
    // Declared but not materialized: nothing more to read yet.
    expect(await after.staleness("t")).toEqual({});
    await after.materialize({ selection: "s", partition: "2026-01-02|apac" });
    expect(await after.staleness("t")).toEqual({
      "2026-01-02": ["shop.s 2026-01-02|apac exists now but was not read when this was built"],
    });
    const [coverage] = await after.coverage("t");
    expect(coverage!.staleRanges).toEqual(["2026-01-02"]);
    const plan = await after.plan({ selection: "t", stale: true });
    expect(plan.partitions).toEqual(["2026-01-02"]);
    await after.materialize({ selection: "t", stale: true });
    expect(await after.staleness("t")).toEqual({});
    await after.close();
  });

  it("a value removed makes what read it stale; one that was never stored does not", async () => {
    const before = await il.openProject(regional(["eu", "us", "apac"]));
    await before.materialize({ selection: "s", window: "2026-01-01..2026-01-02", values: { region: ["eu", "us"] } });
    await before.materialize({ selection: "s", partition: "2026-01-02|apac" });
    await before.materialize({ selection: "t", window: "2026-01-01..2026-01-02" });
    await before.close();
    const after = await il.openProject(regional(["eu", "us"]));
    expect(await after.staleness("t")).toEqual({
      "2026-01-02": ["shop.s 2026-01-02|apac was read when this was built and is no longer read"],
    });
    const plan = await after.plan({ selection: "t", stale: true });
    expect(plan.partitions).toEqual(["2026-01-02"]);
    await after.close();
  });

  it("an upstream added or renamed makes its readers stale, once it has records; one no longer read too", async () => {
    const before = await il.openProject(regional(["eu"]));
    await before.materialize({ selection: "s+", partition: "2026-01-01" });
    await before.close();
    const added = await il.openProject(regional(["eu"], { s: "s", other: "other" }));
    expect(await added.staleness("t")).toEqual({});
    await added.materialize({ selection: "other", window: "2026-01-01" });
    expect(await added.staleness("t")).toEqual({ "2026-01-01": ["shop.other is read now but was not when this was built"] });
    await added.close();
    const renamed = await il.openProject(regional(["eu"], { s: "s_renamed" }));
    await renamed.materialize({ selection: "s_renamed", window: "2026-01-01" });
    expect(await renamed.staleness("t")).toEqual({
      "2026-01-01": [
        "shop.s_renamed is read now but was not when this was built",
        "shop.s was read when this was built and is no longer read",
      ],
    });
    // The same through the asset alone (its source), and through coverage and --stale.
    expect(await renamed.project.dag.find("t")!.staleness()).toEqual(await renamed.staleness("t"));
    expect((await renamed.coverage("t"))[0]!.stale).toBe(1);
    expect((await renamed.plan({ selection: "t", stale: true })).partitions).toEqual(["2026-01-01"]);
    await renamed.close();
  });
});

describe("coverage", () => {
  it("marks stale partitions with why, counts them and gives their ranges; --json keeps the fields", async () => {
    const session = await il.openProject(shop());
    await session.materialize({ selection: "orders+", window: "2026-01-01..2026-01-05", concurrency: 1 });
    await session.materialize({ selection: "orders", window: "2026-01-02..2026-01-03" });
    await session.materialize({ selection: "orders", partition: "2026-01-05" });
    const [orders, revenue] = await session.coverage(["orders", "revenue"], { window: "2026-01-01..2026-01-05" });
    expect(orders!.stale).toBe(0);
    expect(revenue!.stale).toBe(3);
    expect(revenue!.staleRanges).toEqual(["2026-01-02..2026-01-03", "2026-01-05"]);
    const third = revenue!.partitions.find((p) => p.key === "2026-01-03")!;
    expect(third).toMatchObject({
      status: "materialized",
      stale: true,
      staleReasons: [expect.stringContaining("shop.orders 2026-01-03 was materialized again")],
    });
    expect(revenue!.partitions.find((p) => p.key === "2026-01-01")!.stale).toBeUndefined();
    expect(JSON.parse(JSON.stringify(revenue))).toMatchObject({ stale: 3, staleRanges: ["2026-01-02..2026-01-03", "2026-01-05"] });
    await session.close();
  });
});

describe("never stale", () => {
  it("a partition without a record, or one whose upstream keeps no records", () => {
    const record = {
      id: "r",
      asset: "a",
      partition: "k",
      runId: "run",
      backfillId: null,
      startedAt: "2026-01-02T00:00:00.000Z",
      endedAt: "2026-01-02T00:00:01.000Z",
      rows: 1,
      codeVersion: null,
      interloperVersion: "0",
      upstream: [{ asset: "up", partition: "k", materialization: "u1" }],
    };
    const up = (records: il.Materialization[] | Record<string, il.Materialization>) =>
      new Map([["up", { records: records as Record<string, il.Materialization>, keysRead: () => new Set(["k"]) }]]);
    expect(staleness({ own: [{ destination: "d", records: {} }], upstream: up({}), codeVersion: null })).toEqual({});
    // An upstream that keeps no records (none now), or one that could not be looked for.
    expect(staleness({ own: [{ destination: "d", records: { k: record } }], upstream: up({}), codeVersion: null })).toEqual({});
    expect(
      staleness({ own: [{ destination: "d", records: { k: record } }], upstream: new Map(), complete: false, codeVersion: null }),
    ).toEqual({});
    const again = { ...record, id: "u2", asset: "up", upstream: [] };
    expect(staleness({ own: [{ destination: "d", records: { k: record } }], upstream: up({ k: again }), codeVersion: null })).toEqual({
      k: ["up k was materialized again at 2026-01-02 00:00:01 UTC"],
    });
  });

  // Issue 41.18: records of destinations as a user writes them are plain objects, where a key
  // named like Object.prototype's members ("constructor", "toString") reads a function.
  it("a partition named like an Object.prototype member that another destination or the upstream does not hold", () => {
    const record = {
      id: "r",
      asset: "a",
      partition: "constructor",
      runId: "run",
      backfillId: null,
      startedAt: "2026-01-02T00:00:00.000Z",
      endedAt: "2026-01-02T00:00:01.000Z",
      rows: 1,
      codeVersion: null,
      interloperVersion: "0",
      upstream: [{ asset: "up", partition: "toString", materialization: "u1" }],
    };
    const own = [
      { destination: "main", records: { constructor: record } },
      { destination: "copy", records: {} as Record<string, typeof record> },
    ];
    expect(
      staleness({ own, upstream: new Map([["up", { records: {}, keysRead: () => new Set(["toString"]) }]]), codeVersion: null }),
    ).toEqual({});
  });
});

describe("issue 41.23: clock skew", () => {
  it("a reader built by a host an hour ahead from an upstream of unknown provenance is stale once the upstream is rebuilt", () => {
    const reader = {
      id: "r",
      asset: "a",
      partition: "k",
      runId: "run",
      backfillId: null,
      // Built by a host an hour ahead: its clock said 13:00 when it was noon.
      startedAt: "2026-01-02T13:00:00.000Z",
      endedAt: "2026-01-02T13:00:01.000Z",
      rows: 1,
      codeVersion: null,
      interloperVersion: "0",
      // It read the upstream when its provenance was unknown (no record then).
      upstream: [{ asset: "up", partition: "k", materialization: null }],
    };
    // The upstream rebuilt at 12:30 by a host whose clock is right: after the reader was built.
    const rebuilt = {
      ...reader,
      id: "u2",
      asset: "up",
      startedAt: "2026-01-02T12:30:00.000Z",
      endedAt: "2026-01-02T12:30:01.000Z",
      upstream: [],
    };
    expect(
      staleness({
        own: [{ destination: "d", records: { k: reader } }],
        upstream: new Map([["up", { records: { k: rebuilt }, keysRead: () => new Set(["k"]) }]]),
        codeVersion: null,
      }),
    ).toEqual({ k: ["up k exists now but did not when this was built"] });
  });
});
