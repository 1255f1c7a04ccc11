import { describe, expect, it, test } from "vitest";
import { PartitionWindow, TimeGranularity, TimePartition, TimePartitionWindow } from "../../src/index.js";
import { D, errorOf, expectPartitionError } from "../support/assertions.js";

/** A UTC instant from an ISO string; a bare date means UTC midnight. Never the local zone. */

const { HOUR, DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;

describe("TimePartitionWindow: a week of days", () => {
  const w = new TimePartitionWindow(D("2026-01-01"), D("2026-01-07"));
  const keys = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05", "2026-01-06", "2026-01-07"];

  it("prints as first..last", () => {
    expect(w.toString()).toBe("2026-01-01..2026-01-07");
    expect(String(w)).toBe("2026-01-01..2026-01-07");
    expect(`${w}`).toBe("2026-01-01..2026-01-07");
    expect(w.key).toBe("2026-01-01..2026-01-07");
  });

  it("has length 7, start, end, granularity", () => {
    expect(w.length).toBe(7);
    expect(w.start).toEqual(D("2026-01-01"));
    expect(w.end).toEqual(D("2026-01-07"));
    expect(w.granularity).toBe(DAY);
    expect(w).toBeInstanceOf(PartitionWindow);
  });

  it("iterates TimePartitions oldest first", () => {
    const parts = [...w];
    expect(parts.map((p) => p.key)).toEqual(keys);
    for (const p of parts) {
      expect(p).toBeInstanceOf(TimePartition);
      expect((p as TimePartition).granularity).toBe(DAY);
    }
    expect(w.partitions.map((p) => p.key)).toEqual(keys);
    expect(w.partitions.map((p) => p.value)).toEqual(keys.map(D));
  });

  it("can be iterated more than once", () => {
    expect([...w]).toHaveLength(7);
    expect([...w]).toHaveLength(7);
  });

  it("has half-open bounds", () => {
    expect(w.bounds).toEqual([D("2026-01-01"), D("2026-01-08")]);
  });

  it("filters by its bounds and names the partition holding a value", () => {
    expect(w.filter("date")).toEqual({ column: "date", start: D("2026-01-01"), end: D("2026-01-08") });
    expect(w.keyOf("2026-01-03T12:00:00Z")).toBe("2026-01-03");
    expect(w.keyOf(D("2026-01-07T23:59:59Z"))).toBe("2026-01-07");
    expect(w.keyOf("2026-01-01")).toBe("2026-01-01");
    expect(w.keyOf("2026-01-08")).toBeNull();
    expect(w.keyOf("2025-12-31T23:59:59Z")).toBeNull();
  });
});

describe("TimePartitionWindow: construction", () => {
  it("is a single key for a window of one", () => {
    const w = new TimePartitionWindow("2026-01-01", "2026-01-01");
    expect(String(w)).toBe("2026-01-01");
    expect(w.length).toBe(1);
    expect(w.bounds).toEqual([D("2026-01-01"), D("2026-01-02")]);
  });

  it("normalizes start and end to period starts", () => {
    const w = new TimePartitionWindow("2026-01-15", "2026-03-20", MONTH);
    expect(w.start).toEqual(D("2026-01-01"));
    expect(w.end).toEqual(D("2026-03-01"));
    expect(String(w)).toBe("2026-01..2026-03");
    expect(w.length).toBe(3);
    expect(w.bounds).toEqual([D("2026-01-01"), D("2026-04-01")]);
  });

  it("crosses an ISO year boundary by weeks", () => {
    const w = new TimePartitionWindow("2025-12-22", "2026-01-05", WEEK);
    expect(String(w)).toBe("2025-W52..2026-W02");
    expect([...w].map((p) => p.key)).toEqual(["2025-W52", "2026-W01", "2026-W02"]);
    expect(w.bounds).toEqual([D("2025-12-22"), D("2026-01-12")]);
  });

  it("spans hours across midnight", () => {
    const w = new TimePartitionWindow("2026-05-20T22", "2026-05-21T01:30:00Z", HOUR);
    expect(String(w)).toBe("2026-05-20T22..2026-05-21T01");
    expect(w.length).toBe(4);
    expect(w.bounds).toEqual([D("2026-05-20T22:00:00Z"), D("2026-05-21T02:00:00Z")]);
  });

  it("spans quarters and years", () => {
    const q = new TimePartitionWindow("2025-11-01", "2026-05-20", QUARTER);
    expect(String(q)).toBe("2025-Q4..2026-Q2");
    expect(q.length).toBe(3);
    const y = new TimePartitionWindow("2024-02-29", "2026-12-31", YEAR);
    expect(String(y)).toBe("2024..2026");
    expect(y.bounds).toEqual([D("2024-01-01"), D("2027-01-01")]);
  });

  it("holds a leap February's days", () => {
    expect(new TimePartitionWindow("2024-02-01", "2024-02-29").length).toBe(29);
    expect(new TimePartitionWindow("2024-02-28", "2024-03-01").length).toBe(3);
    expect(new TimePartitionWindow("2026-02-28", "2026-03-01").length).toBe(2);
  });

  it("refuses an end before its start with a PartitionError naming both", () => {
    expectPartitionError(() => new TimePartitionWindow(D("2026-01-07"), D("2026-01-01")), "2026-01-07", "2026-01-01");
    expectPartitionError(() => new TimePartitionWindow("2026-03", "2026-01", MONTH));
    expectPartitionError(() => new TimePartitionWindow("2026-03-01", "2026-01-31", MONTH));
  });

  it("refuses an end given as the key of a longer period than the window's, which would stand for its first day", () => {
    expectPartitionError(
      () => new TimePartitionWindow("2026-01", "2026-03"),
      'window start "2026-01" is a month key, but the window is of days: expected a day key or a date, or granularity month for a window of months',
    );
    expectPartitionError(() => new TimePartitionWindow("2026-05-18", "2026-W21"), 'window end "2026-W21" is a week key');
    expectPartitionError(() => new TimePartitionWindow("2026-Q1", "2026-Q2", MONTH), "quarter key");
    expectPartitionError(() => new TimePartitionWindow("2025", "2026", QUARTER), "year key");
    // Its own granularity's keys, and dates or shorter keys inside its periods, are read as before.
    expect(new TimePartitionWindow("2026-01", "2026-03", MONTH).length).toBe(3);
    expect(String(new TimePartitionWindow("2026-01-15", "2026-W12", MONTH))).toBe("2026-01..2026-03");
    expect(String(new TimePartitionWindow("2026-05-20T22", "2026-05-21", DAY))).toBe("2026-05-20..2026-05-21");
  });

  it("refuses bad input", () => {
    expectPartitionError(() => new TimePartitionWindow("2026-02-30", "2026-03-01"), "2026-02-30");
    expect(errorOf(() => new TimePartitionWindow(null as unknown as Date, "2026-01-01"))).toBeInstanceOf(TypeError);
    expect(errorOf(() => new TimePartitionWindow("2026-01-01", new Date(Number.NaN)))).toBeInstanceOf(TypeError);
  });

  it("makes a window of one period from one instant given twice, as from two", () => {
    const noon = D("2026-01-15T12:30:00Z");
    for (const [start, end, granularity] of [
      [noon, noon, DAY],
      [noon, new Date(noon.getTime()), MONTH],
      ["2026-01-15T12", "2026-01-15T12", HOUR],
      ["2026-01-15", "2026-01-15", WEEK],
    ] as const) {
      const w = new TimePartitionWindow(start, end, granularity);
      // The same period, its end given as another instant in it: the general path.
      const apart = new TimePartitionWindow(start, new Date(granularity.truncate(end).getTime() + 1), granularity);
      expect([w.start, w.end, w.length, w.bounds, String(w)]).toEqual([apart.start, apart.end, 1, apart.bounds, String(apart)]);
      // Its two ends are two Dates: changing one leaves the other.
      w.end.setTime(0);
      expect(w.start).toEqual(apart.start);
    }
  });

  it("does not mutate its Date arguments", () => {
    const a = D("2026-01-15T10:00:00Z");
    const b = D("2026-03-20T10:00:00Z");
    const w = new TimePartitionWindow(a, b, MONTH);
    expect(a.toISOString()).toBe("2026-01-15T10:00:00.000Z");
    expect(b.toISOString()).toBe("2026-03-20T10:00:00.000Z");
    a.setTime(0);
    expect(w.start).toEqual(D("2026-01-01"));
  });
});

describe("TimePartitionWindow.parse", () => {
  const cases: readonly [string, typeof DAY, number, string, string][] = [
    ["2026-01-01..2026-01-07", DAY, 7, "2026-01-01", "2026-01-07"],
    ["2026-01..2026-03", MONTH, 3, "2026-01-01", "2026-03-01"],
    ["2025-Q4..2026-Q1", QUARTER, 2, "2025-10-01", "2026-01-01"],
    ["2020-W52..2021-W01", WEEK, 3, "2020-12-21", "2021-01-04"],
    ["2025..2026", YEAR, 2, "2025-01-01", "2026-01-01"],
    ["2026-05-20T22..2026-05-21T01", HOUR, 4, "2026-05-20T22:00:00Z", "2026-05-21T01:00:00Z"],
  ];
  for (const [text, g, length, start, end] of cases) {
    test(`parses ${text}, taking the granularity from the key shape`, () => {
      const w = TimePartitionWindow.parse(text);
      expect(w.granularity).toBe(g);
      expect(w.length).toBe(length);
      expect(w.start).toEqual(D(start));
      expect(w.end).toEqual(D(end));
      expect(String(w)).toBe(text);
    });
  }

  it("reads a single key as a window of one", () => {
    const w = TimePartitionWindow.parse("2026-01-01");
    expect(w.length).toBe(1);
    expect(String(w)).toBe("2026-01-01");
    const m = TimePartitionWindow.parse("2026-08");
    expect(m.granularity).toBe(MONTH);
    expect(m.length).toBe(1);
  });

  it("reads a window of one written as k..k back as its single key", () => {
    expect(String(TimePartitionWindow.parse("2026-01-01..2026-01-01"))).toBe("2026-01-01");
  });

  it("round-trips toString", () => {
    for (const w of [
      new TimePartitionWindow("2026-01-01", "2026-12-31"),
      new TimePartitionWindow("2026-01-01", "2026-12-31", WEEK),
      new TimePartitionWindow("2026-05-20T13", "2026-05-20T13", HOUR),
    ]) {
      const back = TimePartitionWindow.parse(String(w));
      expect(String(back)).toBe(String(w));
      expect(back.granularity).toBe(w.granularity);
      expect(back.bounds).toEqual(w.bounds);
    }
  });

  it("refuses mismatched shapes", () => {
    expectPartitionError(() => TimePartitionWindow.parse("2026-01..2026-03-01"), "2026-01..2026-03-01");
    expectPartitionError(() => TimePartitionWindow.parse("2026-01-01..2026-W02"));
    expectPartitionError(() => TimePartitionWindow.parse("2026..2026-Q2"));
  });

  it("refuses an end before its start", () => {
    expectPartitionError(() => TimePartitionWindow.parse("2026-03..2026-01"), "2026-03");
    expectPartitionError(() => TimePartitionWindow.parse("2026-01-07..2026-01-01"), "2026-01-07");
  });

  it("refuses keys of no known shape and invalid keys", () => {
    for (const bad of ["abc", "2026/01/01..2026/01/07", "2026-01-01..", "..2026-01-01", "2026-13..2026-14", "2026-02-30"]) {
      expectPartitionError(() => TimePartitionWindow.parse(bad));
    }
    expectPartitionError(() => TimePartitionWindow.parse(""));
    expectPartitionError(() => TimePartitionWindow.parse("2026-02-30"), "2026-02-30");
  });
});
