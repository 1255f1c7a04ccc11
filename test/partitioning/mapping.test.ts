// Partition mappings across granularities: pure UTC arithmetic, run in three process time zones.
import { describe, expect, it } from "vitest";
import {
  edgeProblem,
  ListPartitionConfig,
  previousPeriod,
  TimeGranularity,
  TimePartitionConfig,
  TimePartitionWindow,
  TimeWindowMapping,
  trailing,
  upstreamWindow,
} from "../../src/partitioning/index.js";
import { PartitionError } from "../../src/errors.js";

const { HOUR, DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;

const time = (granularity: TimeGranularity, start?: string) =>
  new TimePartitionConfig({ column: "date", granularity, ...(start ? { start } : {}) });
const regions = (values = ["eu", "us", "apac"]) => new ListPartitionConfig({ column: "region", values });

/** The upstream window (as its string) a downstream window reads through a mapping. */
function mapped(window: string, upstream: TimePartitionConfig, mapping: TimeWindowMapping | null = null): string {
  return String(upstreamWindow(upstream, TimePartitionWindow.parse(window), mapping));
}

describe("default mapping: a partition reads the upstream periods covering its own", () => {
  it("a month reads its days, its weeks overlapping it, its hours", () => {
    expect(mapped("2026-01", time(DAY))).toBe("2026-01-01..2026-01-31");
    expect(mapped("2026-02", time(DAY))).toBe("2026-02-01..2026-02-28");
    expect(mapped("2028-02", time(DAY))).toBe("2028-02-01..2028-02-29");
    expect(mapped("2026-01", time(HOUR))).toBe("2026-01-01T00..2026-01-31T23");
    // 2026-01-01 is a Thursday in ISO week 2026-W01; 2026-01-31 is a Saturday in 2026-W05.
    expect(mapped("2026-01", time(WEEK))).toBe("2026-W01..2026-W05");
  });

  it("a week reads its seven days, a day its 24 hours", () => {
    const days = upstreamWindow(time(DAY), TimePartitionWindow.parse("2026-W02"), null)!;
    expect(String(days)).toBe("2026-01-05..2026-01-11");
    expect(days.length).toBe(7);
    const hours = upstreamWindow(time(HOUR), TimePartitionWindow.parse("2026-03-08"), null)!;
    expect(String(hours)).toBe("2026-03-08T00..2026-03-08T23");
    expect(hours.length).toBe(24);
  });

  it("a quarter reads its 3 months or its days; a year its 4 quarters", () => {
    expect(mapped("2026-Q1", time(MONTH))).toBe("2026-01..2026-03");
    const days = upstreamWindow(time(DAY), TimePartitionWindow.parse("2026-Q1"), null)!;
    expect(String(days)).toBe("2026-01-01..2026-03-31");
    expect(days.length).toBe(90);
    expect(mapped("2026", time(QUARTER))).toBe("2026-Q1..2026-Q4");
  });

  it("a finer partition reads the coarser partition holding it", () => {
    expect(mapped("2026-01-15", time(MONTH))).toBe("2026-01");
    expect(mapped("2026-12-31T23", time(DAY))).toBe("2026-12-31");
    expect(mapped("2026-05-20", time(WEEK))).toBe("2026-W21");
    expect(mapped("2026-03", time(YEAR))).toBe("2026");
  });

  it("a week straddling two months reads both", () => {
    // 2026-W05 runs Monday 2026-01-26 to Sunday 2026-02-01.
    expect(mapped("2026-W05", time(MONTH))).toBe("2026-01..2026-02");
  });

  it("a window reads the union of what its partitions read", () => {
    expect(mapped("2026-01..2026-03", time(DAY))).toBe("2026-01-01..2026-03-31");
    expect(mapped("2026-01-30..2026-02-02", time(MONTH))).toBe("2026-01..2026-02");
    expect(mapped("2026-01-01..2026-01-07", time(DAY))).toBe("2026-01-01..2026-01-07");
  });

  it("is clamped to the upstream's start", () => {
    expect(mapped("2026-01", time(DAY, "2026-01-15"))).toBe("2026-01-15..2026-01-31");
  });
});

describe("explicit mappings", () => {
  it("trailing(7) reads the 7 upstream periods ending with the partition's own", () => {
    expect(mapped("2026-03-01", time(DAY), trailing(7))).toBe("2026-02-23..2026-03-01");
    expect(mapped("2026-01-03..2026-01-05", time(DAY), trailing(7))).toBe("2025-12-28..2026-01-05");
    expect(mapped("2026-03", time(MONTH), trailing(3))).toBe("2026-01..2026-03");
    // A coarser downstream: its covered days plus the 6 before.
    expect(mapped("2026-02", time(DAY), trailing(7))).toBe("2026-01-26..2026-02-28");
    expect(trailing(1).trailing).toBe(1);
  });

  it("trailing is clamped to the upstream's start, so the first partitions read what exists", () => {
    expect(mapped("2026-01-03", time(DAY, "2026-01-01"), trailing(7))).toBe("2026-01-01..2026-01-03");
  });

  it("previousPeriod() reads the upstream data of the period before", () => {
    expect(mapped("2026-03-01", time(DAY), previousPeriod())).toBe("2026-02-28");
    expect(mapped("2026-03", time(DAY), previousPeriod())).toBe("2026-02-01..2026-02-28");
    expect(mapped("2026-01", time(MONTH), previousPeriod())).toBe("2025-12");
    expect(mapped("2026-01-01", time(MONTH), previousPeriod())).toBe("2025-12");
    expect(mapped("2026-01-05..2026-01-06", time(DAY), previousPeriod())).toBe("2026-01-04..2026-01-05");
  });

  it("offset and trailing combine: the trailing window of the previous period", () => {
    expect(mapped("2026-03-01", time(DAY), new TimeWindowMapping({ offset: -1, trailing: 7 }))).toBe("2026-02-22..2026-02-28");
    expect(mapped("2026-03-01", time(DAY), new TimeWindowMapping({ offset: 2 }))).toBe("2026-03-03");
  });

  it("a period wholly before the upstream's start is a PartitionError naming both windows", () => {
    expect(() => mapped("2026-01", time(DAY, "2026-01-01"), previousPeriod())).toThrow(PartitionError);
    expect(() => mapped("2026-01", time(DAY, "2026-01-01"), previousPeriod())).toThrow(
      "the previous period of 2026-01: 2025-12-01..2025-12-31, before the upstream's first partition 2026-01-01",
    );
  });

  it("refuses a trailing length below 1 and a fractional offset", () => {
    expect(() => trailing(0)).toThrow(PartitionError);
    expect(() => trailing(2.5)).toThrow(PartitionError);
    expect(() => new TimeWindowMapping({ offset: 0.5 })).toThrow(PartitionError);
  });

  it("describes itself for list and messages", () => {
    expect(trailing(7).describe()).toBe("the trailing 7 periods");
    expect(previousPeriod().describe()).toBe("the previous period");
    expect(new TimeWindowMapping().describe()).toBe("the covering periods");
  });

  it("never mutates the window it maps", () => {
    const window = TimePartitionWindow.parse("2026-03");
    const before = window.start.getTime();
    upstreamWindow(time(DAY), window, new TimeWindowMapping({ offset: -1, trailing: 3 }));
    expect(window.start.getTime()).toBe(before);
  });
});

describe("non-time edges", () => {
  it("an unpartitioned upstream is read whole; a list upstream of an unpartitioned downstream reads all its values", () => {
    expect(upstreamWindow(null, TimePartitionWindow.parse("2026-01"), null)).toBeNull();
    expect(String(upstreamWindow(regions(), null, null))).toBe("eu..apac");
    const same = regions().window("us", "apac");
    expect(upstreamWindow(regions(), same, null)).toBe(same);
  });

  it("edgeProblem accepts time to time of any granularity, list to the same list, list or nothing to unpartitioned", () => {
    const end = (key: string, partitioning: TimePartitionConfig | ListPartitionConfig | null) => ({ key, partitioning });
    expect(edgeProblem(end("up", time(DAY)), end("down", time(MONTH)), null)).toBeNull();
    expect(edgeProblem(end("up", time(MONTH)), end("down", time(HOUR)), trailing(2))).toBeNull();
    expect(edgeProblem(end("up", regions()), end("down", regions()), null)).toBeNull();
    expect(edgeProblem(end("up", regions()), end("down", null), null)).toBeNull();
    expect(edgeProblem(end("up", null), end("down", time(DAY)), null)).toBeNull();
  });

  it("edgeProblem names both assets and what to do for time to list, list to time, and the rest", () => {
    const end = (key: string, partitioning: TimePartitionConfig | ListPartitionConfig | null) => ({ key, partitioning });
    expect(edgeProblem(end("shop.stock", regions()), end("shop.daily", time(DAY)), null)).toBe(
      'asset "shop.daily" (by day) requires "shop.stock" (by list eu,us,apac): time and list partitions do not map onto each other; require "shop.stock" from an unpartitioned asset (which reads all its values), or partition "shop.daily" by the same list',
    );
    expect(edgeProblem(end("shop.orders", time(DAY)), end("shop.stock", regions()), null)).toMatch(
      /^asset "shop\.stock" \(by list eu,us,apac\) requires "shop\.orders" \(by day\): time and list/,
    );
    expect(edgeProblem(end("shop.orders", time(DAY)), end("shop.total", null), null)).toMatch(
      /"shop\.total" \(unpartitioned\) requires "shop\.orders" \(by day\).*partition "shop\.total" by time/,
    );
    expect(edgeProblem(end("up", regions(["eu"])), end("down", regions()), null)).toMatch(/the same values in the same order/);
    expect(edgeProblem(end("up", regions()), end("down", null), trailing(7))).toMatch(/time mapping \(the trailing 7 periods\).*remove it/);
  });
});
