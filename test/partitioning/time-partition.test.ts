import { describe, expect, it, test } from "vitest";
import { Partition, TimeGranularity, TimePartition, TimePartitionWindow } from "../../src/index.js";
import { D, errorOf, expectPartitionError } from "../support/assertions.js";

/** A UTC instant from an ISO string; a bare date means UTC midnight. Never the local zone. */

const { HOUR, DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;

describe("TimePartition: construction", () => {
  it("defaults to a day partition", () => {
    const p = new TimePartition(D("2026-01-15"));
    expect(p.granularity).toBe(DAY);
    expect(p.key).toBe("2026-01-15");
    expect(p.value).toEqual(D("2026-01-15"));
    expect(p).toBeInstanceOf(Partition);
  });

  it("normalizes its value to the period start", () => {
    const p = new TimePartition(D("2026-05-20"), MONTH);
    expect(p.value).toEqual(D("2026-05-01"));
    expect(p.key).toBe("2026-05");
    expect(new TimePartition(D("2026-05-20T13:45:00Z")).value).toEqual(D("2026-05-20"));
    expect(new TimePartition("2026-05-20T13:45:00Z", HOUR).value).toEqual(D("2026-05-20T13:00:00Z"));
    expect(new TimePartition("2026-05-20", WEEK).value).toEqual(D("2026-05-18"));
    expect(new TimePartition("2026-05-20", QUARTER).value).toEqual(D("2026-04-01"));
    expect(new TimePartition("2026-05-20", YEAR).value).toEqual(D("2026-01-01"));
  });

  it("accepts a Date, an ISO date, an ISO datetime and the hour key", () => {
    expect(new TimePartition("2026-05-20").key).toBe("2026-05-20");
    expect(new TimePartition("2026-05-20T13:45:00Z", HOUR).key).toBe("2026-05-20T13");
    expect(new TimePartition("2026-05-20T13:45:00+02:00", HOUR).key).toBe("2026-05-20T11");
    expect(new TimePartition("2026-05-20T13", HOUR).key).toBe("2026-05-20T13");
  });

  it("does not mutate or keep a reference to its Date argument", () => {
    const input = D("2026-05-20T13:45:00Z");
    const p = new TimePartition(input, MONTH);
    expect(input.toISOString()).toBe("2026-05-20T13:45:00.000Z");
    input.setTime(0);
    expect(p.value).toEqual(D("2026-05-01"));
    expect(p.key).toBe("2026-05");
  });

  it("refuses bad input", () => {
    expectPartitionError(() => new TimePartition("2026-02-30"), "2026-02-30");
    expectPartitionError(() => new TimePartition("abc"), "abc");
    expect(errorOf(() => new TimePartition(new Date(Number.NaN)))).toBeInstanceOf(TypeError);
    expect(errorOf(() => new TimePartition(null as unknown as Date))).toBeInstanceOf(TypeError);
    expect(errorOf(() => new TimePartition(20260520 as unknown as Date))).toBeInstanceOf(TypeError);
  });

  it("prints as its key", () => {
    expect(String(new TimePartition("2026-05-20", WEEK))).toBe("2026-W21");
  });
});

describe("TimePartition: bounds, window, filter", () => {
  it("has half-open bounds", () => {
    expect(new TimePartition("2026-05-20", MONTH).bounds).toEqual([D("2026-05-01"), D("2026-06-01")]);
    expect(new TimePartition("2026-12-31").bounds).toEqual([D("2026-12-31"), D("2027-01-01")]);
    expect(new TimePartition("2026-05-20T13", HOUR).bounds).toEqual([D("2026-05-20T13:00:00Z"), D("2026-05-20T14:00:00Z")]);
    expect(new TimePartition("2027-01-01", WEEK).bounds).toEqual([D("2026-12-28"), D("2027-01-04")]);
  });

  it("has a window of one", () => {
    const p = new TimePartition("2026-05-20", MONTH);
    const w = p.window;
    expect(w).toBeInstanceOf(TimePartitionWindow);
    expect(w.length).toBe(1);
    expect(String(w)).toBe("2026-05");
    expect(w.start).toEqual(D("2026-05-01"));
    expect(w.end).toEqual(D("2026-05-01"));
    expect(w.granularity).toBe(MONTH);
    expect(w.bounds).toEqual([D("2026-05-01"), D("2026-06-01")]);
    expect(w.partitions.map((q) => q.key)).toEqual(["2026-05"]);
  });

  it("filters by its half-open bounds", () => {
    expect(new TimePartition("2026-05-20", MONTH).filter("date")).toEqual({
      column: "date",
      start: D("2026-05-01"),
      end: D("2026-06-01"),
    });
    expect(new TimePartition("2026-05-20T13", HOUR).filter("ts")).toEqual({
      column: "ts",
      start: D("2026-05-20T13:00:00Z"),
      end: D("2026-05-20T14:00:00Z"),
    });
  });
});

describe("TimePartition.slice", () => {
  it("selects a monthly partition's daily rows by half-open bounds (Date, date and datetime strings)", () => {
    const rows = [
      { id: 1, date: "2026-04-30" },
      { id: 2, date: "2026-05-01" },
      { id: 3, date: D("2026-05-15") },
      { id: 4, date: "2026-05-31" },
      { id: 5, date: "2026-05-31T23:59:59.999Z" },
      { id: 6, date: "2026-06-01" },
      { id: 7, date: D("2026-06-01T00:00:00Z") },
      { id: 8, date: "2026-05-31T23:30:00-02:00" }, // 2026-06-01T01:30Z
      { id: 9, date: "2026-05-01T01:00:00+02:00" }, // 2026-04-30T23:00Z
      { id: 10, date: D("2026-05-10T12:34:56Z") },
    ];
    const slice = new TimePartition("2026-05-20", MONTH).slice(rows, "date");
    expect(slice.map((r) => r.id)).toEqual([2, 3, 4, 5, 10]);
    expect(slice[0]).toBe(rows[1]);
  });

  it("selects an hourly partition's timestamps; a row exactly at the end bound is excluded", () => {
    const rows = [
      { ts: "2026-05-20T12:59:59.999Z", n: 1 },
      { ts: "2026-05-20T13:00:00Z", n: 2 },
      { ts: D("2026-05-20T13:45:00Z"), n: 3 },
      { ts: "2026-05-20T15:30:00+02:00", n: 4 }, // 13:30Z
      { ts: "2026-05-20T13:59:59.999Z", n: 5 },
      { ts: "2026-05-20T14:00:00Z", n: 6 },
      { ts: D("2026-05-20T14:00:00Z"), n: 7 },
      { ts: "2026-05-20T13:30:00+02:00", n: 8 }, // 11:30Z
    ];
    expect(new TimePartition("2026-05-20T13", HOUR).slice(rows, "ts").map((r) => r.n)).toEqual([2, 3, 4, 5]);
  });

  it("selects a daily partition's rows; the next midnight is excluded", () => {
    const rows = [
      { date: "2026-05-19" },
      { date: "2026-05-20" },
      { date: "2026-05-20T23:59:59Z" },
      { date: "2026-05-21" },
      { date: D("2026-05-21") },
    ];
    const slice = new TimePartition("2026-05-20").slice(rows, "date");
    expect(slice).toEqual([{ date: "2026-05-20" }, { date: "2026-05-20T23:59:59Z" }]);
  });

  it("selects an ISO week's rows", () => {
    const rows = ["2026-12-27", "2026-12-28", "2027-01-01", "2027-01-03", "2027-01-04"].map((date) => ({ date }));
    expect(new TimePartition("2027-01-01", WEEK).slice(rows, "date").map((r) => r.date)).toEqual([
      "2026-12-28",
      "2027-01-01",
      "2027-01-03",
    ]);
  });

  it("reads the hour key as a row value", () => {
    const rows = [{ ts: "2026-05-20T12" }, { ts: "2026-05-20T13" }, { ts: "2026-05-20T14" }];
    expect(new TimePartition("2026-05-20T13", HOUR).slice(rows, "ts")).toEqual([{ ts: "2026-05-20T13" }]);
    expect(new TimePartition("2026-05-20").slice(rows, "ts")).toEqual(rows);
  });

  it("answers contains by the same half-open bounds", () => {
    const p = new TimePartition("2026-05-20", MONTH);
    expect(p.contains("2026-05-01")).toBe(true);
    expect(p.contains(D("2026-05-31T23:59:59.999Z"))).toBe(true);
    expect(p.contains("2026-06-01")).toBe(false);
    expect(p.contains("2026-04-30T23:59:59Z")).toBe(false);
  });

  it("returns an empty slice when no row is inside", () => {
    expect(new TimePartition("2026-05-20").slice([{ date: "2026-01-01" }], "date")).toEqual([]);
    expect(new TimePartition("2026-05-20").slice([], "date")).toEqual([]);
  });
});

describe("TimePartition.fromKey", () => {
  const shapes: readonly [string, typeof DAY, string][] = [
    ["2026", YEAR, "2026-01-01"],
    ["2026-Q2", QUARTER, "2026-04-01"],
    ["2026-08", MONTH, "2026-08-01"],
    ["2026-W21", WEEK, "2026-05-18"],
    ["2026-W01", WEEK, "2025-12-29"],
    ["2026-05-20", DAY, "2026-05-20"],
    ["2026-05-20T13", HOUR, "2026-05-20T13:00:00Z"],
  ];
  for (const [key, g, value] of shapes) {
    test(`rebuilds ${key} without being told its granularity`, () => {
      const p = TimePartition.fromKey(key);
      expect(p).toBeInstanceOf(TimePartition);
      expect(p.granularity).toBe(g);
      expect(p.key).toBe(key);
      expect(p.value).toEqual(D(value));
    });
  }

  for (const bad of ["2026/05/20", "abc", "2026-13", "2026-02-30", "2026-W54", "2026-Q5", "2026-05-20T24", "2021-W53"]) {
    test(`refuses ${JSON.stringify(bad)} with a PartitionError naming it`, () => {
      expectPartitionError(() => TimePartition.fromKey(bad), bad);
    });
  }

  it("refuses the empty key with a PartitionError and a wrong type with a TypeError", () => {
    expectPartitionError(() => TimePartition.fromKey(""));
    expect(errorOf(() => TimePartition.fromKey(null as unknown as string))).toBeInstanceOf(TypeError);
    expect(errorOf(() => TimePartition.fromKey(2026 as unknown as string))).toBeInstanceOf(TypeError);
  });
});

describe("TimePartition.window", () => {
  for (const key of ["2026", "2026-Q2", "2026-08", "2026-W21", "2026-05-20", "2026-05-20T13"]) {
    it(`of ${key}: the window of that one partition, made once, whose only partition is the partition itself`, () => {
      const p = TimePartition.fromKey(key);
      const window = p.window;
      expect(window).toBeInstanceOf(TimePartitionWindow);
      expect(p.window).toBe(window);
      expect(window.partitions).toEqual([p]);
      expect(window.partitions[0]).toBe(p);
      expect(String(window)).toBe(key);
      expect(window.length).toBe(1);
      expect(window.bounds).toEqual([...p.bounds]);
      // The same as the window a parse of the key gives.
      const parsed = TimePartitionWindow.parse(key);
      expect([window.start, window.end, window.granularity]).toEqual([parsed.start, parsed.end, parsed.granularity]);
    });
  }
});
