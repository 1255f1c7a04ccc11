import { describe, expect, it } from "vitest";
import { PartitionError, TimeGranularity, TimePartitionWindow } from "../../src/index.js";
import type { LookbackOptions } from "../../src/index.js";
import { D, errorOf } from "../support/assertions.js";

/** A UTC instant from an ISO string; a bare date means UTC midnight. Never the local zone. */

/** The window's name, or null when lookback returns null. */
function lookback(options: LookbackOptions): string | null {
  const w = TimePartitionWindow.lookback(options);
  return w === null ? null : String(w);
}

const { HOUR, DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;
const now = D("2026-05-20T13:45:00Z");

describe("TimePartitionWindow.lookback: shape of the window", () => {
  it("with offset 0 and lookback 1 is the current partition", () => {
    expect(lookback({ now, lookback: 1, offset: 0, granularity: DAY })).toBe("2026-05-20");
  });

  it("offset defaults to 0", () => {
    expect(lookback({ now, lookback: 1, granularity: DAY })).toBe("2026-05-20");
    expect(lookback({ now, lookback: 3, granularity: DAY })).toBe("2026-05-18..2026-05-20");
  });

  it("ends offset partitions back from the current one and is lookback partitions long", () => {
    const w = TimePartitionWindow.lookback({ now, lookback: 7, offset: 1, granularity: DAY });
    expect(w).not.toBeNull();
    expect(String(w)).toBe("2026-05-13..2026-05-19");
    expect(w?.length).toBe(7);
    expect(w?.granularity).toBe(DAY);
    expect(lookback({ now, lookback: 1, offset: 1, granularity: DAY })).toBe("2026-05-19");
    expect(lookback({ now, lookback: 2, offset: 5, granularity: DAY })).toBe("2026-05-14..2026-05-15");
  });

  it("works at every granularity", () => {
    expect(lookback({ now, lookback: 24, offset: 1, granularity: HOUR })).toBe("2026-05-19T13..2026-05-20T12");
    expect(lookback({ now, lookback: 2, offset: 1, granularity: WEEK })).toBe("2026-W19..2026-W20");
    expect(lookback({ now, lookback: 3, offset: 0, granularity: MONTH })).toBe("2026-03..2026-05");
    expect(lookback({ now, lookback: 6, offset: 1, granularity: MONTH })).toBe("2025-11..2026-04");
    expect(lookback({ now, lookback: 2, offset: 1, granularity: QUARTER })).toBe("2025-Q4..2026-Q1");
    expect(lookback({ now, lookback: 1, offset: 1, granularity: YEAR })).toBe("2025");
  });

  it("crosses year boundaries and month ends", () => {
    const jan = D("2026-01-02T00:30:00Z");
    expect(lookback({ now: jan, lookback: 3, offset: 1, granularity: DAY })).toBe("2025-12-30..2026-01-01");
    expect(lookback({ now: D("2026-03-31T12:00:00Z"), lookback: 2, offset: 1, granularity: MONTH })).toBe("2026-01..2026-02");
    expect(lookback({ now: D("2024-03-01T12:00:00Z"), lookback: 2, offset: 1, granularity: DAY })).toBe("2024-02-28..2024-02-29");
  });

  it("accepts now as an ISO datetime string", () => {
    expect(lookback({ now: "2026-05-20T13:45:00Z", lookback: 1, granularity: DAY })).toBe("2026-05-20");
  });

  it("defaults now to the current time", () => {
    const before = DAY.format(new Date());
    const key = lookback({ lookback: 1, granularity: DAY });
    const after = DAY.format(new Date());
    expect([before, after]).toContain(key);
  });

  it("does not mutate now", () => {
    const n = D("2026-05-20T13:45:00Z");
    TimePartitionWindow.lookback({ now: n, lookback: 3, offset: 2, granularity: MONTH, timeZone: "Asia/Tokyo" });
    expect(n.toISOString()).toBe("2026-05-20T13:45:00.000Z");
  });
});

describe("TimePartitionWindow.lookback: clamping to start", () => {
  it("clamps the window's start to start", () => {
    expect(lookback({ now, lookback: 7, offset: 1, granularity: DAY, start: "2026-05-16" })).toBe("2026-05-16..2026-05-19");
    expect(lookback({ now, lookback: 7, offset: 1, granularity: DAY, start: D("2026-05-16") })).toBe("2026-05-16..2026-05-19");
    expect(lookback({ now, lookback: 12, offset: 0, granularity: MONTH, start: "2026-01-01" })).toBe("2026-01..2026-05");
  });

  it("leaves the window alone when start is earlier", () => {
    expect(lookback({ now, lookback: 7, offset: 1, granularity: DAY, start: "2026-01-01" })).toBe("2026-05-13..2026-05-19");
    expect(lookback({ now, lookback: 7, offset: 1, granularity: DAY, start: "2026-05-13" })).toBe("2026-05-13..2026-05-19");
  });

  it("keeps one partition when start is the window's end", () => {
    expect(lookback({ now, lookback: 7, offset: 1, granularity: DAY, start: "2026-05-19" })).toBe("2026-05-19");
  });

  it("returns null when clamping leaves nothing", () => {
    expect(TimePartitionWindow.lookback({ now, lookback: 7, offset: 1, granularity: DAY, start: "2026-05-20" })).toBeNull();
    expect(TimePartitionWindow.lookback({ now, lookback: 1, offset: 0, granularity: DAY, start: "2026-06-01" })).toBeNull();
    expect(TimePartitionWindow.lookback({ now, lookback: 3, offset: 0, granularity: MONTH, start: "2027-01-01" })).toBeNull();
  });
});

describe("TimePartitionWindow.lookback: time zones", () => {
  // 2026-03-01T03:00Z is 2026-02-28 19:00 in Los Angeles and 2026-03-01 12:00 in Tokyo.
  const instant = D("2026-03-01T03:00:00Z");

  it("defaults to UTC", () => {
    expect(lookback({ now: instant, lookback: 1, offset: 0, granularity: DAY })).toBe("2026-03-01");
    expect(lookback({ now: instant, lookback: 1, offset: 0, granularity: DAY, timeZone: "UTC" })).toBe("2026-03-01");
  });

  it("follows the zone's calendar for days", () => {
    expect(lookback({ now: instant, lookback: 1, offset: 0, granularity: DAY, timeZone: "America/Los_Angeles" })).toBe("2026-02-28");
    expect(lookback({ now: instant, lookback: 1, offset: 0, granularity: DAY, timeZone: "Asia/Tokyo" })).toBe("2026-03-01");
    expect(lookback({ now: instant, lookback: 3, offset: 1, granularity: DAY, timeZone: "America/Los_Angeles" })).toBe(
      "2026-02-25..2026-02-27",
    );
    // a half-hour zone: 2026-02-28T19:00Z is 2026-03-01 00:30 in Kolkata
    expect(lookback({ now: D("2026-02-28T19:00:00Z"), lookback: 1, granularity: DAY, timeZone: "Asia/Kolkata" })).toBe("2026-03-01");
    expect(lookback({ now: D("2026-02-28T18:00:00Z"), lookback: 1, granularity: DAY, timeZone: "Asia/Kolkata" })).toBe("2026-02-28");
  });

  it("follows the zone's calendar for weeks, months, quarters and years", () => {
    // 2026-03-02T03:00Z is Monday (W10) in UTC and Sunday 2026-03-01 (W09) in Los Angeles.
    const monday = D("2026-03-02T03:00:00Z");
    expect(lookback({ now: monday, lookback: 1, granularity: WEEK })).toBe("2026-W10");
    expect(lookback({ now: monday, lookback: 1, granularity: WEEK, timeZone: "America/Los_Angeles" })).toBe("2026-W09");
    expect(lookback({ now: instant, lookback: 1, granularity: MONTH, timeZone: "America/Los_Angeles" })).toBe("2026-02");
    expect(lookback({ now: instant, lookback: 1, granularity: MONTH, timeZone: "Asia/Tokyo" })).toBe("2026-03");
    const april = D("2026-04-01T02:00:00Z");
    expect(lookback({ now: april, lookback: 1, granularity: QUARTER })).toBe("2026-Q2");
    expect(lookback({ now: april, lookback: 1, granularity: QUARTER, timeZone: "America/Los_Angeles" })).toBe("2026-Q1");
    const newYear = D("2027-01-01T05:00:00Z");
    expect(lookback({ now: newYear, lookback: 1, granularity: YEAR })).toBe("2027");
    expect(lookback({ now: newYear, lookback: 1, granularity: YEAR, timeZone: "America/Los_Angeles" })).toBe("2026");
    // Tokyo is already in the new year at 2026-12-31T20:00Z
    expect(lookback({ now: D("2026-12-31T20:00:00Z"), lookback: 1, granularity: YEAR, timeZone: "Asia/Tokyo" })).toBe("2027");
  });

  it("keeps hour windows in UTC whatever the zone", () => {
    for (const timeZone of ["UTC", "America/Los_Angeles", "Asia/Tokyo", "Asia/Kolkata"]) {
      expect(lookback({ now: instant, lookback: 1, offset: 0, granularity: HOUR, timeZone })).toBe("2026-03-01T03");
      expect(lookback({ now: D("2026-03-01T03:59:59Z"), lookback: 3, offset: 1, granularity: HOUR, timeZone })).toBe(
        "2026-03-01T00..2026-03-01T02",
      );
    }
  });

  it("clamps to start in the zone's calendar", () => {
    expect(
      lookback({
        now: instant,
        lookback: 5,
        offset: 0,
        granularity: DAY,
        timeZone: "America/Los_Angeles",
        start: "2026-02-27",
      }),
    ).toBe("2026-02-27..2026-02-28");
    expect(
      TimePartitionWindow.lookback({
        now: instant,
        lookback: 5,
        offset: 0,
        granularity: DAY,
        timeZone: "America/Los_Angeles",
        start: "2026-03-01",
      }),
    ).toBeNull();
  });

  it("refuses an unknown time zone, naming it", () => {
    const error = errorOf(() => TimePartitionWindow.lookback({ now, lookback: 1, granularity: DAY, timeZone: "Mars/Olympus_Mons" }));
    expect(error instanceof PartitionError || error instanceof RangeError).toBe(true);
    expect((error as Error).message).toContain("Mars/Olympus_Mons");
  });
});

describe("TimePartitionWindow.lookback: bad input", () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    it(`refuses lookback ${bad}`, () => {
      expect(() => TimePartitionWindow.lookback({ now, lookback: bad, granularity: DAY })).toThrow();
    });
  }

  it("refuses an invalid now", () => {
    expect(errorOf(() => TimePartitionWindow.lookback({ now: new Date(Number.NaN), lookback: 1 }))).toBeInstanceOf(TypeError);
  });
});

describe("TimePartitionWindow.lookback: a now string stating an offset", () => {
  it("is that instant on that offset's wall clock, unless a timeZone is given", () => {
    // 01:00 on the 20th at +05:00 is 20:00 on the 19th in UTC.
    const at = "2026-05-20T01:00:00+05:00";
    expect(lookback({ now: at, lookback: 1 })).toBe("2026-05-20");
    expect(lookback({ now: at, lookback: 2, offset: 1, granularity: DAY })).toBe("2026-05-18..2026-05-19");
    expect(lookback({ now: "2026-06-01T01:00:00+05:00", lookback: 1, granularity: MONTH })).toBe("2026-06");
    expect(lookback({ now: "2026-05-31T21:00:00-0500", lookback: 1, granularity: MONTH })).toBe("2026-05");
    // Hour keys are UTC labels.
    expect(lookback({ now: at, lookback: 1, granularity: HOUR })).toBe("2026-05-19T20");
    // A zone given explicitly is the calendar; Z and a zoneless string are UTC.
    expect(lookback({ now: at, lookback: 1, timeZone: "America/New_York" })).toBe("2026-05-19");
    expect(lookback({ now: "2026-05-19T20:00:00Z", lookback: 1 })).toBe("2026-05-19");
    expect(lookback({ now: "2026-05-19T20:00:00", lookback: 1 })).toBe("2026-05-19");
  });
});
