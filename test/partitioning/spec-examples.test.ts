// partitioning.md's code blocks, translated to TypeScript by api.md's mapping rules.
import { describe, expect, it } from "vitest";
import { ListPartitionConfig, TimeGranularity, TimePartition, TimePartitionConfig, TimePartitionWindow, date } from "../../src/index.js";
import { D } from "../support/assertions.js";

describe("partitioning.md: Time partitioning", () => {
  it("TimePartitionConfig(column='date')", () => {
    const partitioning = new TimePartitionConfig({ column: "date" });
    expect(partitioning.column).toBe("date");
    expect(partitioning.granularity).toBe(TimeGranularity.DAY);
    expect(partitioning.allowWindow).toBe(false);
  });

  it("il.TimePartition(dt.date(2026, 1, 15))", () => {
    const partition = new TimePartition(date("2026-01-15"));
    expect(partition.key).toBe("2026-01-15");
    expect(partition.value).toEqual(D("2026-01-15"));
    expect(partition.granularity).toBe(TimeGranularity.DAY);
  });
});

describe("partitioning.md: Granularity", () => {
  const g = TimeGranularity.MONTH;

  it("g.truncate(dt.date(2026, 5, 20)) is 2026-05-01, the period start", () => {
    expect(g.truncate(date("2026-05-20"))).toEqual(D("2026-05-01"));
  });

  it("g.advance(dt.date(2026, 5, 1), -1) is 2026-04-01", () => {
    expect(g.advance(date("2026-05-01"), -1)).toEqual(D("2026-04-01"));
  });

  it("g.bounds(dt.date(2026, 5, 20)) is (2026-05-01, 2026-06-01), half-open", () => {
    expect(g.bounds(date("2026-05-20"))).toEqual([D("2026-05-01"), D("2026-06-01")]);
  });

  it("g.periods_between(a, b): whole periods from a to b", () => {
    expect(g.periodsBetween(date("2026-01-01"), date("2026-05-20"))).toBe(4);
  });

  it('g.format(dt.date(2026, 5, 20)) is "2026-05"', () => {
    expect(g.format(date("2026-05-20"))).toBe("2026-05");
  });

  it('g.parse("2026-05") is 2026-05-01', () => {
    expect(g.parse("2026-05")).toEqual(D("2026-05-01"));
  });

  it("list(g.period_range(start, end)): period starts, inclusive", () => {
    expect([...g.periodRange(date("2026-01-01"), date("2026-03-15"))]).toEqual([D("2026-01-01"), D("2026-02-01"), D("2026-03-01")]);
  });

  it('il.TimePartition.from_key("2026-08") rebuilds the partition without being told it is monthly', () => {
    const p = TimePartition.fromKey("2026-08");
    expect(p.granularity).toBe(TimeGranularity.MONTH);
    expect(p.value).toEqual(D("2026-08-01"));
  });

  it("ids are ISO-8601 prefixes that sort chronologically as strings", () => {
    const keys = ["2026-10", "2026-02", "2025-12", "2026-01"];
    expect([...keys].sort()).toEqual(["2025-12", "2026-01", "2026-02", "2026-10"]);
    expect([...keys].sort().map((k) => g.parse(k).getTime())).toEqual(keys.map((k) => g.parse(k).getTime()).sort((a, b) => a - b));
  });
});

describe("partitioning.md: Partitions and windows", () => {
  const partition = new TimePartition(date("2026-05-20"), TimeGranularity.MONTH);

  it("partition.value is 2026-05-01, normalized to the period start", () => {
    expect(partition.value).toEqual(D("2026-05-01"));
  });

  it('partition.key is "2026-05"', () => {
    expect(partition.key).toBe("2026-05");
  });

  it("partition.bounds is (2026-05-01, 2026-06-01)", () => {
    expect(partition.bounds).toEqual([D("2026-05-01"), D("2026-06-01")]);
  });

  it("partition.window is the one-partition window", () => {
    expect(partition.window.length).toBe(1);
    expect(String(partition.window)).toBe("2026-05");
  });

  it('partition.filter("date") is the bounds, as a database selects them', () => {
    expect(partition.filter("date")).toEqual({ column: "date", start: D("2026-05-01"), end: D("2026-06-01") });
  });

  it('partition.slice(rows, "date") is the rows inside the bounds (a monthly partition holding daily dates)', () => {
    const rows = [{ date: "2026-04-30" }, { date: "2026-05-01" }, { date: "2026-05-20" }, { date: "2026-06-01" }];
    expect(partition.slice(rows, "date")).toEqual([{ date: "2026-05-01" }, { date: "2026-05-20" }]);
  });

  const window = new TimePartitionWindow(date("2026-01-01"), date("2026-01-07"));

  it('str(window) is "2026-01-01..2026-01-07"; "2026-01-01" for a window of one', () => {
    expect(String(window)).toBe("2026-01-01..2026-01-07");
    expect(String(new TimePartitionWindow(date("2026-01-01"), date("2026-01-01")))).toBe("2026-01-01");
  });

  it("len(window) is 7", () => {
    expect(window.length).toBe(7);
  });

  it("list(window) is a TimePartition per day, oldest first", () => {
    const parts = [...window];
    expect(parts).toHaveLength(7);
    expect(parts.every((p) => p instanceof TimePartition)).toBe(true);
    expect(parts.map((p) => p.key)).toEqual([
      "2026-01-01",
      "2026-01-02",
      "2026-01-03",
      "2026-01-04",
      "2026-01-05",
      "2026-01-06",
      "2026-01-07",
    ]);
  });

  it("window.bounds is (2026-01-01, 2026-01-08)", () => {
    expect(window.bounds).toEqual([D("2026-01-01"), D("2026-01-08")]);
  });

  it("a window ending before it starts raises", () => {
    expect(() => new TimePartitionWindow(date("2026-01-07"), date("2026-01-01"))).toThrow();
  });

  it("lookback(now, lookback, offset, granularity, start): offset back, lookback long, clamped, or null", () => {
    const now = D("2026-01-10T08:00:00Z");
    expect(String(TimePartitionWindow.lookback({ now, lookback: 7, offset: 1, granularity: TimeGranularity.DAY }))).toBe(
      "2026-01-03..2026-01-09",
    );
    expect(
      String(TimePartitionWindow.lookback({ now, lookback: 7, offset: 1, granularity: TimeGranularity.DAY, start: "2026-01-05" })),
    ).toBe("2026-01-05..2026-01-09");
    expect(TimePartitionWindow.lookback({ now, lookback: 7, offset: 1, granularity: TimeGranularity.DAY, start: "2026-01-10" })).toBeNull();
  });
});

describe("partitioning.md: List partitioning", () => {
  const partitioning = new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] });

  it("the values are the partition keys, in the declared order", () => {
    expect(partitioning.values).toEqual(["eu", "us", "apac"]);
    expect(partitioning.partition("eu").key).toBe("eu");
  });

  it('config.window("eu", "us") covers eu and us', () => {
    expect([...partitioning.window("eu", "us")].map((p) => p.key)).toEqual(["eu", "us"]);
  });

  it("a backfill from the first value to the last covers everything", () => {
    expect([...partitioning.window("eu", "apac")].map((p) => p.key)).toEqual(["eu", "us", "apac"]);
  });

  it("context.partition.value is the region; rows carry it", () => {
    const partition = partitioning.partition("us");
    const rows = [{ region: partition.value, amount: 1 }];
    expect(partition.slice(rows, "region")).toEqual(rows);
  });
});

describe("partitioning.md: Windowed assets", () => {
  const partitioning = new TimePartitionConfig({ column: "date", allowWindow: true });

  it("a window is a single execution covering the whole range", () => {
    const window = new TimePartitionWindow("2026-01-01", "2026-01-31");
    const checked = partitioning.check(window, "ads_stats") as TimePartitionWindow;
    expect(checked.length).toBe(31);
    expect(checked.start).toEqual(D("2026-01-01"));
    expect(checked.end).toEqual(D("2026-01-31"));
  });

  it("a single partition is presented as a one-partition window", () => {
    const checked = partitioning.check(new TimePartition("2026-01-15"), "ads_stats");
    expect(checked).toBeInstanceOf(TimePartitionWindow);
    expect(checked.length).toBe(1);
  });
});
