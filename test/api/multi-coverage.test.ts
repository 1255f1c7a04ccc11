// Coverage of a multi-partitioned asset (issue 36): one partition per combination of list values
// and period (expected: the window, or the range from its start, times the values), each with its
// keys by dimension, one combination at a time so a front end draws a row per combination; the
// ranges stay within a combination; `values` narrows it.
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

afterEach(() => il.MemoryDestination.clear());

const stock = il.asset({
  key: "stock",
  partitioning: new il.MultiPartitionConfig({
    region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
    date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  }),
  run: (ctx) => {
    const { region, date } = (ctx.partition as il.MultiPartition).keys;
    return Array.from({ length: region === "eu" ? 2 : 1 }, () => ({ region, date }));
  },
});

const grid = il.asset({
  key: "grid",
  partitioning: new il.MultiPartitionConfig({
    channel: new il.ListPartitionConfig({ column: "channel", values: ["web", "shop"] }),
    date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  }),
  run: (ctx) => [{ ...(ctx.partition as il.MultiPartition).keys }],
});

async function open() {
  const config = il.defineConfig({
    sources: [il.source({ key: "shop", assets: [stock, grid] })({ destinations: new il.MemoryDestination() })],
  });
  return il.openProject(config);
}

describe("coverage of a multi asset", () => {
  it("expects the window times the values, one combination at a time, each partition with its keys", async () => {
    const session = await open();
    // The time dimension is second here: keys are region|date.
    await session.materialize({ partition: "eu|2026-01-01" });
    await session.materialize({ partition: "eu|2026-01-03" });
    await session.materialize({ partition: "us|2026-01-02" });
    const [coverage] = await session.coverage("stock", { window: "2026-01-01..2026-01-03" });
    expect(coverage!.partitions.map((p) => [p.key, p.status, p.rows])).toEqual([
      ["eu|2026-01-01", "materialized", 2],
      ["eu|2026-01-02", "missing", null],
      ["eu|2026-01-03", "materialized", 2],
      ["us|2026-01-01", "missing", null],
      ["us|2026-01-02", "materialized", 1],
      ["us|2026-01-03", "missing", null],
    ]);
    expect(coverage!.partitions[4]!.keys).toEqual({ region: "us", date: "2026-01-02" });
    expect({
      expected: coverage!.expected,
      materialized: coverage!.materialized,
      missing: coverage!.missing,
      rows: coverage!.rows,
    }).toEqual({
      expected: 6,
      materialized: 3,
      missing: 3,
      rows: 5,
    });
    // A range never spans two combinations.
    expect(coverage!.missingRanges).toEqual(["eu|2026-01-02", "us|2026-01-01", "us|2026-01-03"]);
    expect(coverage!.kind).toBe("multi");
    expect(coverage!.dimensions).toEqual([
      { name: "region", kind: "list", column: "region", granularity: null, values: ["eu", "us"] },
      { name: "date", kind: "time", column: "date", granularity: "day", values: null },
    ]);
    await session.close();
  });

  it("without a window: from the time dimension's start to the period before now, every value; values narrows it", async () => {
    const session = await open();
    await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-02" });
    const now = new Date("2026-01-04T10:00:00Z");
    const [coverage] = await session.coverage("stock", { now });
    expect(coverage!.partitions.map((p) => `${p.key}:${p.status}`)).toEqual([
      "eu|2026-01-01:materialized",
      "eu|2026-01-02:materialized",
      "eu|2026-01-03:missing",
      "us|2026-01-01:materialized",
      "us|2026-01-02:materialized",
      "us|2026-01-03:missing",
    ]);
    expect(coverage!.missingRanges).toEqual(["eu|2026-01-03", "us|2026-01-03"]);
    const [us] = await session.coverage("stock", { now, values: { region: ["us"] } });
    expect(us!.partitions.map((p) => p.key)).toEqual(["us|2026-01-01", "us|2026-01-02", "us|2026-01-03"]);
    const [window] = await session.coverage("stock", { window: "2026-01-01..2026-01-02", values: { region: ["eu"] } });
    expect(window!.partitions.map((p) => p.key)).toEqual(["eu|2026-01-01", "eu|2026-01-02"]);
    await session.close();
  });

  it("a stored combination of the current period, or after --until, is neither expected nor unexpected", async () => {
    const session = await open();
    await session.materialize({ selection: "stock", window: "2026-01-01..2026-01-02" });
    const [coverage] = await session.coverage("stock", { now: new Date("2026-01-02T10:00:00Z") });
    expect(coverage!.partitions.map((p) => `${p.key}:${p.status}`)).toEqual(["eu|2026-01-01:materialized", "us|2026-01-01:materialized"]);
    const [until] = await session.coverage("stock", { now: new Date("2026-01-05T10:00:00Z"), until: "2026-01-01" });
    expect(until!.partitions.map((p) => `${p.key}:${p.status}`)).toEqual(["eu|2026-01-01:materialized", "us|2026-01-01:materialized"]);
    await session.close();
  });

  it("values narrow only the assets that have the dimension named", async () => {
    const session = await open();
    const [stockCoverage, gridCoverage] = await session.coverage(undefined, { window: "2026-01-01", values: { region: ["us"] } });
    expect(stockCoverage!.partitions.map((p) => p.key)).toEqual(["us|2026-01-01"]);
    expect(gridCoverage!.partitions.map((p) => p.key)).toEqual(["web|2026-01-01", "shop|2026-01-01"]);
    await expect(session.coverage(undefined, { window: "2026-01-01", values: { market: ["fr"] } })).rejects.toThrow(
      'names "market", which is no list dimension of the selected assets: expected one of "region", "channel"',
    );
    await session.close();
  });
});
