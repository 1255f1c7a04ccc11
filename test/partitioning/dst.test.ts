// Daylight-saving weeks. The suite runs under TZ=UTC, America/Los_Angeles and Asia/Kolkata; none
// of these results may depend on the process zone, and periods are always UTC-defined.
import { describe, expect, it, test } from "vitest";
import { TimeGranularity, TimePartition, TimePartitionWindow } from "../../src/index.js";
import { D } from "../support/assertions.js";

const { HOUR, DAY, WEEK, MONTH } = TimeGranularity;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

// US DST starts 2026-03-08 (10:00Z), EU DST starts 2026-03-29 (01:00Z), US DST ends 2026-11-01 (09:00Z);
// EU DST ends 2026-10-25 (01:00Z).
const changeDays = ["2026-03-08", "2026-03-29", "2026-10-25", "2026-11-01"];

describe("DST: the process zone never leaks in", () => {
  it("runs under a known zone", () => {
    expect(["UTC", "America/Los_Angeles", "Asia/Kolkata", undefined]).toContain(process.env.TZ);
  });

  for (const day of changeDays) {
    test(`${day} is a 24-hour day period in UTC`, () => {
      const [start, end] = DAY.bounds(day);
      expect(start).toEqual(D(day));
      expect(end.getTime() - start.getTime()).toBe(DAY_MS);
      expect(new TimePartition(day).bounds[1].getTime() - new TimePartition(day).bounds[0].getTime()).toBe(DAY_MS);
      expect([...HOUR.periodRange(`${day}T00`, `${day}T23`)]).toHaveLength(24);
      expect(HOUR.periodsBetween(start, end)).toBe(24);
    });
  }

  it("DST-week days are consecutive UTC midnights", () => {
    const days = [...DAY.periodRange("2026-03-05", "2026-03-11")];
    expect(days).toHaveLength(7);
    for (let i = 1; i < days.length; i += 1) {
      expect((days[i] as Date).getTime() - (days[i - 1] as Date).getTime()).toBe(DAY_MS);
    }
    expect(days.map((d) => DAY.format(d))).toEqual([
      "2026-03-05",
      "2026-03-06",
      "2026-03-07",
      "2026-03-08",
      "2026-03-09",
      "2026-03-10",
      "2026-03-11",
    ]);
  });

  it("weeks holding a change are 7 x 24 hours", () => {
    for (const day of changeDays) {
      const [start, end] = WEEK.bounds(day);
      expect(end.getTime() - start.getTime()).toBe(7 * DAY_MS);
    }
    expect(WEEK.format("2026-03-08")).toBe("2026-W10");
    expect(WEEK.format("2026-03-09")).toBe("2026-W11");
    expect(WEEK.format("2026-03-29")).toBe("2026-W13");
    expect(WEEK.format("2026-11-01")).toBe("2026-W44");
  });

  it("months holding a change have their calendar length", () => {
    const [start, end] = MONTH.bounds("2026-03-15");
    expect((end.getTime() - start.getTime()) / DAY_MS).toBe(31);
    const [ns, ne] = MONTH.bounds("2026-11-15");
    expect((ne.getTime() - ns.getTime()) / DAY_MS).toBe(30);
  });

  it("hour ranges across the US spring change count every UTC hour", () => {
    const hours = [...HOUR.periodRange("2026-03-08T08:30:00Z", "2026-03-08T12:10:00Z")];
    expect(hours.map((h) => HOUR.format(h))).toEqual(["2026-03-08T08", "2026-03-08T09", "2026-03-08T10", "2026-03-08T11", "2026-03-08T12"]);
    // the same range given in Los Angeles wall time: 00:30 PST to 05:10 PDT is 3h40m later
    expect(HOUR.periodsBetween("2026-03-08T00:30:00-08:00", "2026-03-08T05:10:00-07:00")).toBe(4);
    expect([...HOUR.periodRange("2026-03-07T12:00:00Z", "2026-03-09T11:00:00Z")]).toHaveLength(48);
  });

  it("hour ranges across the US autumn change count every UTC hour", () => {
    // 01:00 PDT (08:00Z) to 01:00 PST (09:00Z): one hour, however a wall clock reads it
    expect(HOUR.periodsBetween("2026-11-01T01:00:00-07:00", "2026-11-01T01:00:00-08:00")).toBe(1);
    expect([...HOUR.periodRange("2026-10-31T12:00:00Z", "2026-11-02T11:00:00Z")]).toHaveLength(48);
    const w = new TimePartitionWindow("2026-11-01T07", "2026-11-01T10", HOUR);
    expect(String(w)).toBe("2026-11-01T07..2026-11-01T10");
    expect(w.length).toBe(4);
    expect(w.bounds[1].getTime() - w.bounds[0].getTime()).toBe(4 * HOUR_MS);
  });

  it("hour ranges across the EU changes count every UTC hour", () => {
    // 00:30 CET (23:30Z) to 03:30 CEST (01:30Z): two hours of UTC
    expect(HOUR.periodsBetween("2026-03-29T00:30:00+01:00", "2026-03-29T03:30:00+02:00")).toBe(2);
    expect([...HOUR.periodRange("2026-03-28T22:00:00Z", "2026-03-29T03:00:00Z")]).toHaveLength(6);
    expect([...HOUR.periodRange("2026-10-24T22:00:00Z", "2026-10-25T03:00:00Z")]).toHaveLength(6);
  });

  it("a day window across a change is as many days as it says", () => {
    const w = new TimePartitionWindow("2026-03-01", "2026-03-31");
    expect(w.length).toBe(31);
    expect(w.bounds[1].getTime() - w.bounds[0].getTime()).toBe(31 * DAY_MS);
    expect(new TimePartitionWindow("2026-10-25", "2026-11-01").length).toBe(8);
  });
});

describe("DST: lookback in a zone that changes", () => {
  const la = "America/Los_Angeles";

  it("uses PST before the US spring change and PDT after it", () => {
    // 2026-03-08T09:30Z is 01:30 PST on 2026-03-08
    expect(String(TimePartitionWindow.lookback({ now: D("2026-03-08T09:30:00Z"), lookback: 1, granularity: DAY, timeZone: la }))).toBe(
      "2026-03-08",
    );
    // 2026-03-08T07:30Z is 23:30 PST on 2026-03-07
    expect(String(TimePartitionWindow.lookback({ now: D("2026-03-08T07:30:00Z"), lookback: 1, granularity: DAY, timeZone: la }))).toBe(
      "2026-03-07",
    );
    // 2026-03-09T07:30Z is 00:30 PDT on 2026-03-09 (it would still be 03-08 at a fixed -08:00)
    expect(String(TimePartitionWindow.lookback({ now: D("2026-03-09T07:30:00Z"), lookback: 1, granularity: DAY, timeZone: la }))).toBe(
      "2026-03-09",
    );
  });

  it("uses PST after the US autumn change", () => {
    // 2026-11-02T07:30Z is 23:30 PST on 2026-11-01 (it would be 11-02 at a fixed -07:00)
    expect(String(TimePartitionWindow.lookback({ now: D("2026-11-02T07:30:00Z"), lookback: 1, granularity: DAY, timeZone: la }))).toBe(
      "2026-11-01",
    );
    // 2026-11-01T06:30Z is 23:30 PDT on 2026-10-31
    expect(String(TimePartitionWindow.lookback({ now: D("2026-11-01T06:30:00Z"), lookback: 1, granularity: DAY, timeZone: la }))).toBe(
      "2026-10-31",
    );
  });

  it("uses CEST after the EU spring change", () => {
    // 2026-03-29T22:30Z is 00:30 CEST on 2026-03-30 (it would still be 03-29 at a fixed +01:00)
    expect(
      String(TimePartitionWindow.lookback({ now: D("2026-03-29T22:30:00Z"), lookback: 1, granularity: DAY, timeZone: "Europe/Berlin" })),
    ).toBe("2026-03-30");
    // 2026-03-28T22:30Z is 23:30 CET on 2026-03-28
    expect(
      String(TimePartitionWindow.lookback({ now: D("2026-03-28T22:30:00Z"), lookback: 1, granularity: DAY, timeZone: "Europe/Berlin" })),
    ).toBe("2026-03-28");
  });

  it("builds a full week back across the change", () => {
    const w = TimePartitionWindow.lookback({ now: D("2026-03-10T18:00:00Z"), lookback: 7, offset: 1, granularity: DAY, timeZone: la });
    expect(String(w)).toBe("2026-03-03..2026-03-09");
    expect(w?.length).toBe(7);
    expect(w?.bounds).toEqual([D("2026-03-03"), D("2026-03-10")]);
  });

  it("keeps hour windows in UTC across the change", () => {
    const w = TimePartitionWindow.lookback({ now: D("2026-03-08T11:15:00Z"), lookback: 4, offset: 0, granularity: HOUR, timeZone: la });
    expect(String(w)).toBe("2026-03-08T08..2026-03-08T11");
    expect(w?.length).toBe(4);
    const autumn = TimePartitionWindow.lookback({
      now: D("2026-11-01T10:15:00Z"),
      lookback: 4,
      offset: 1,
      granularity: HOUR,
      timeZone: la,
    });
    expect(String(autumn)).toBe("2026-11-01T06..2026-11-01T09");
  });
});
