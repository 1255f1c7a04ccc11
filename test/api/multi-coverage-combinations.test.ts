// Coverage of a multi asset cut by combination (issue 36, the command line's pictures): with
// `byCombination`, each combination of list values comes as a time coverage of its own
// (`shop.stock[eu]`), keyed by the time part, with its own totals, ranges and row spread, and
// each destination's share counted from that destination's own counts.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { multiKeyOf } from "../../src/api/session/index.js";

afterEach(() => il.MemoryDestination.clear());

/** Keys are region|date: the time dimension second. eu holds 2 rows a day, us 1; `extra` adds a row to eu. */
function stockAsset(values: readonly string[], extra = 0) {
  return il.asset({
    key: "stock",
    partitioning: new il.MultiPartitionConfig({
      region: new il.ListPartitionConfig({ column: "region", values: [...values] }),
      date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    }),
    run: (ctx) => {
      const { region, date } = (ctx.partition as il.MultiPartition).keys;
      return Array.from({ length: region === "eu" ? 2 + extra : 1 }, () => ({ region, date }));
    },
  });
}

const lists = il.asset({
  key: "lists",
  partitioning: new il.MultiPartitionConfig({
    region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
    channel: new il.ListPartitionConfig({ column: "channel", values: ["web", "shop"] }),
  }),
  run: (ctx) => [{ ...(ctx.partition as il.MultiPartition).keys }],
});

function open(assets: il.AssetDefinition[], destinations: il.SourceOptions["destinations"] = new il.MemoryDestination()) {
  return il.openProject(il.defineConfig({ sources: [il.source({ key: "shop", assets })({ destinations })] }));
}

describe("coverage by combination", () => {
  it("gives each combination its own time coverage, keyed by the time part", async () => {
    const session = await open([stockAsset(["eu", "us"]), lists]);
    await session.materialize({ selection: "stock", window: "eu|2026-01-01..2026-01-03" });
    await session.materialize({ selection: "stock", partition: "us|2026-01-02" });
    const [eu, us, whole] = await session.coverage(["stock", "lists"], { window: "2026-01-01..2026-01-04", byCombination: true });
    expect(eu!.asset).toBe("shop.stock[eu]");
    expect(eu!.combination).toEqual({ asset: "shop.stock", values: { region: "eu" } });
    expect([eu!.kind, eu!.granularity, eu!.column, eu!.first, eu!.last]).toEqual(["time", "day", "date", "2026-01-01", "2026-01-04"]);
    expect(eu!.partitions.map((p) => `${p.key}:${p.status}`)).toEqual([
      "2026-01-01:materialized",
      "2026-01-02:materialized",
      "2026-01-03:materialized",
      "2026-01-04:missing",
    ]);
    expect(eu!.partitions[0]!.keys).toEqual({ region: "eu", date: "2026-01-01" });
    expect([eu!.expected, eu!.materialized, eu!.missing, eu!.rows, eu!.medianRows]).toEqual([4, 3, 1, 6, 2]);
    expect(eu!.missingRanges).toEqual(["2026-01-04"]);
    expect(us!.asset).toBe("shop.stock[us]");
    expect([us!.materialized, us!.missing, us!.rows]).toEqual([1, 3, 1]);
    expect(us!.missingRanges).toEqual(["2026-01-01", "2026-01-03..2026-01-04"]);
    expect(us!.destinations).toEqual([
      expect.objectContaining({ materialized: 1, missing: 3, rows: 1, missingRanges: ["2026-01-01", "2026-01-03..2026-01-04"] }),
    ]);
    // A multi asset of lists alone has no periods to draw: it comes whole, drawn as a list of its combinations.
    expect(whole!.asset).toBe("shop.lists");
    expect([whole!.kind, whole!.granularity, whole!.combination]).toEqual(["multi", null, undefined]);
    // Without byCombination the multi asset comes whole.
    expect((await session.coverage("stock", { window: "2026-01-01..2026-01-04" })).map((c) => c.asset)).toEqual(["shop.stock"]);
    await session.close();
  });

  it("shows each combination's current period in progress when the range stops before it, as a time asset's", async () => {
    const session = await open([stockAsset(["eu", "us"])]);
    await session.materialize({ selection: "stock", window: "eu|2026-01-01..2026-01-04" });
    const now = new Date("2026-01-04T10:00:00Z");
    const [eu, us] = await session.coverage("stock", { now, byCombination: true });
    expect(eu!.last).toBe("2026-01-03");
    expect(eu!.inProgress).toEqual({ key: "2026-01-04", status: "in-progress", rows: 2 });
    expect(us!.inProgress).toEqual({ key: "2026-01-04", status: "in-progress", rows: null });
    // A window, or an end of range, decides alone: nothing is in progress.
    const [windowed] = await session.coverage("stock", { now, window: "2026-01-01..2026-01-04", byCombination: true });
    expect(windowed!.inProgress).toBeNull();
    const [until] = await session.coverage("stock", { now, until: "2026-01-02", byCombination: true });
    expect(until!.inProgress).toBeNull();
    await session.close();
  });

  it("names a combination's partitions and windows by the multi asset's keys", async () => {
    const session = await open([stockAsset(["eu", "us"])]);
    const [, us] = await session.coverage("stock", { window: "2026-01-01..2026-01-02", byCombination: true });
    expect(multiKeyOf(us!, "2026-01-02")).toBe("us|2026-01-02");
    expect(multiKeyOf(us!, "2026-01-01..2026-01-02")).toBe("us|2026-01-01..2026-01-02");
    // The window text is one the command line takes: it runs that combination alone.
    const plan = await session.plan({ selection: "stock", window: multiKeyOf(us!, "2026-01-01..2026-01-02") });
    expect(plan.runs.map((r) => r.partition)).toEqual(["us|2026-01-02", "us|2026-01-01"]);
    await session.close();
  });

  it("counts each destination's share of a combination from its own counts", async () => {
    const base = await mkdtemp(join(tmpdir(), "interloper-combinations-"));
    try {
      const csv = new il.CSVDestination({ basePath: base });
      const session = await open([stockAsset(["eu", "us"])], { memory: new il.MemoryDestination(), csv });
      await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-02" });
      // The CSV copy of eu|2026-01-02 is lost: only the memory store holds it.
      const [folder] = (await readdir(base, { recursive: true })).filter((p) => p.endsWith(join("region=eu", "date=2026-01-02")));
      await rm(join(base, folder!), { recursive: true });
      const [eu, us] = await session.coverage("stock", { window: "2026-01-01..2026-01-02", byCombination: true });
      expect(eu!.partitions.map((p) => `${p.key}:${p.status}:${(p.missingIn ?? []).join(",")}`)).toEqual([
        "2026-01-01:materialized:",
        "2026-01-02:missing:csv",
      ]);
      expect(eu!.destinations.map((d) => [d.key, d.materialized, d.missing, d.rows, d.missingRanges])).toEqual([
        ["memory", 2, 0, 4, []],
        ["csv", 1, 1, 2, ["2026-01-02"]],
      ]);
      expect(us!.destinations.map((d) => [d.key, d.materialized, d.missing, d.rows])).toEqual([
        ["memory", 2, 0, 2],
        ["csv", 2, 0, 2],
      ]);
      await session.close();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("shows a stored value no longer declared as a combination of unexpected partitions, after the declared ones", async () => {
    const before = await open([stockAsset(["eu", "us", "asia"])]);
    await before.materialize({ selection: "stock", window: "2026-01-01..2026-01-02" });
    await before.close();
    const after = await open([stockAsset(["eu", "us"])]);
    const combinations = await after.coverage("stock", { now: new Date("2026-01-03T12:00:00Z"), byCombination: true });
    expect(combinations.map((c) => c.asset)).toEqual(["shop.stock[eu]", "shop.stock[us]", "shop.stock[asia]"]);
    const asia = combinations[2]!;
    expect([asia.expected, asia.unexpected, asia.first]).toEqual([0, 2, null]);
    expect(asia.partitions.map((p) => `${p.key}:${p.status}`)).toEqual(["2026-01-01:unexpected", "2026-01-02:unexpected"]);
    await after.close();
  });
});
