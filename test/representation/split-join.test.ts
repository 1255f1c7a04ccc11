import { describe, expect, it } from "vitest";
import { ListPartitionConfig, TimeGranularity, TimePartitionWindow } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import type { Row } from "../../src/representation/index.js";

const week = new TimePartitionWindow("2026-01-01", "2026-01-07");
const weekRows: Row[] = [
  { date: "2026-01-03", n: 1 },
  { date: "2026-01-01", n: 2 },
  { date: "2025-12-31", n: 3 }, // before the window
  { date: "2026-01-03", n: 4 },
  { date: "2026-01-07", n: 5 },
  { date: "2026-01-08", n: 6 }, // after the window
  { n: 7 }, // no partition value at all
];

describe.each(["rows", "columns"])("split (%s)", (kind) => {
  const table = kind === "rows" ? TableData.from(weekRows)! : TableData.from(TableData.from(weekRows)!.to("columns"))!;

  it("gives one slice per partition of a 7-day window, in window order, empty ones included", () => {
    const { slices } = table.split(week, "date");
    expect(slices.map(([p]) => p.key)).toEqual([
      "2026-01-01",
      "2026-01-02",
      "2026-01-03",
      "2026-01-04",
      "2026-01-05",
      "2026-01-06",
      "2026-01-07",
    ]);
    expect(slices.map(([, t]) => t.length)).toEqual([1, 0, 2, 0, 0, 0, 1]);
    expect(slices.every(([, t]) => t.kind === kind)).toBe(true);
    expect(slices[2]![1].rows.map((r) => r.n)).toEqual([1, 4]);
    expect(slices[0]![0]).toBe(week.partitions[0]);
  });

  it("counts the rows outside the window and samples their values", () => {
    const { outside, outsideSample } = table.split(week, "date");
    expect(outside).toBe(3);
    expect(outsideSample).toEqual(["2025-12-31", "2026-01-08", null]);
  });

  it("agrees with slice for every partition", () => {
    for (const [partition, slice] of table.split(week, "date").slices) {
      expect(slice.rows).toEqual(table.slice(partition, "date").rows);
    }
  });

  it("splits a monthly window over Dates and a list window", () => {
    const months = new TimePartitionWindow("2026-01-01", "2026-03-01", TimeGranularity.MONTH);
    const dated = TableData.from([
      { at: new Date(Date.UTC(2026, 2, 31, 23)), n: 1 },
      { at: new Date(Date.UTC(2026, 0, 1)), n: 2 },
      { at: new Date(Date.UTC(2026, 0, 31, 23, 30)), n: 3 },
    ])!;
    expect(dated.split(months, "at").slices.map(([p, t]) => [p.key, t.rows.map((r) => r.n)])).toEqual([
      ["2026-01", [2, 3]],
      ["2026-02", []],
      ["2026-03", [1]],
    ]);
    const regions = new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] });
    const split = TableData.from({ region: ["apac", "eu", "mars", "apac"], n: [1, 2, 3, 4] })!.split(
      regions.window("eu", "apac"),
      "region",
    );
    expect(split.slices.map(([p, t]) => [p.key, t.to("columns").n])).toEqual([
      ["eu", [2]],
      ["us", []],
      ["apac", [1, 4]],
    ]);
    expect(split.outside).toBe(1);
  });
});

it("splits distinct ISO timestamps over an hourly window, sorted or not", () => {
  const hours = new TimePartitionWindow("2026-05-20T22", "2026-05-21T01", TimeGranularity.HOUR);
  const stamps: string[] = [];
  for (let m = 0; m < 6 * 60; m += 7) stamps.push(new Date(Date.UTC(2026, 4, 20, 21, m)).toISOString());
  const expected = hours.partitions.map((p) => stamps.filter((s) => p.contains(s)));
  for (const order of [stamps, [...stamps].reverse()]) {
    const { slices, outside } = TableData.from(order.map((at) => ({ at })))!.split(hours, "at");
    expect(slices.map(([p]) => p.key)).toEqual(["2026-05-20T22", "2026-05-20T23", "2026-05-21T00", "2026-05-21T01"]);
    expect(slices.map(([, t]) => [...t.values("at")].sort())).toEqual(expected);
    expect(outside).toBe(stamps.length - expected.flat().length);
  }
});

describe("TableData.join", () => {
  it("concatenates rows tables in the order given", () => {
    const a = TableData.from([{ n: 1 }, { n: 2 }])!;
    const b = TableData.from([])!;
    const c = TableData.from([{ n: 3 }])!;
    const joined = TableData.join([c, b, a]);
    expect(joined.kind).toBe("rows");
    expect(joined.rows).toEqual([{ n: 3 }, { n: 1 }, { n: 2 }]);
  });

  it("concatenates columns tables, a column some tables lack filled with null", () => {
    const joined = TableData.join([TableData.from({ a: [1], b: ["x"] })!, TableData.from({ c: [true], a: [2] })!]);
    expect(joined.kind).toBe("columns");
    expect(joined.to("columns")).toEqual({ a: [1, 2], b: ["x", null], c: [null, true] });
  });

  it("converts the other tables to the first one's kind", () => {
    const joined = TableData.join([TableData.from({ a: [1] })!, TableData.from([{ a: 2 }])!]);
    expect(joined.to("columns")).toEqual({ a: [1, 2] });
  });

  it("gives an empty rows table for no tables, and the table itself for one", () => {
    const empty = TableData.join([]);
    expect(empty.kind).toBe("rows");
    expect(empty.data).toEqual([]);
    const one = TableData.from([{ a: 1 }])!;
    expect(TableData.join([one])).toBe(one);
  });

  it("rebuilds the original order from a split of rows sorted by date", () => {
    const sorted = weekRows.filter((r) => typeof r.date === "string" && r.date >= "2026-01-01" && r.date <= "2026-01-07");
    sorted.sort((x, y) => String(x.date).localeCompare(String(y.date)));
    const { slices } = TableData.from(sorted)!.split(week, "date");
    expect(TableData.join(slices.map(([, t]) => t)).rows).toEqual(sorted);
  });
});
