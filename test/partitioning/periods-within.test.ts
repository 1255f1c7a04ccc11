// periodsWithin and spanning (issue 17 item 2): which periods of an asset's own granularity a
// project-wide window of time gives it, and the window of one granularity holding several.
// Pure UTC arithmetic, run in three process time zones.
import { describe, expect, it } from "vitest";
import { periodsWithin, spanning, TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";

const { HOUR, DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;

const time = (granularity: TimeGranularity, start?: string) =>
  new TimePartitionConfig({ column: "t", granularity, ...(start ? { start } : {}) });
const within = (window: string, config: TimePartitionConfig) => {
  const found = periodsWithin(TimePartitionWindow.parse(window), config);
  return found === null ? null : String(found);
};

/**
 * The periods of `g` lying wholly inside a window, by walking every period that touches it:
 * an independent statement of what periodsWithin computes.
 */
function bruteForce(window: TimePartitionWindow, g: TimeGranularity, start: Date | null): string | null {
  const from = window.start.getTime();
  const to = window.granularity.advance(window.end, 1).getTime();
  const keys: string[] = [];
  for (let period = g.truncate(window.start); period.getTime() < to; period = g.advance(period, 1)) {
    const end = g.advance(period, 1).getTime();
    if (period.getTime() >= from && end <= to && (!start || period.getTime() >= start.getTime())) keys.push(g.format(period));
  }
  return keys.length === 0 ? null : keys.length === 1 ? keys[0]! : `${keys[0]}..${keys.at(-1)}`;
}

describe("periodsWithin: the asset's periods lying wholly inside a window", () => {
  it("a range of days: the hours of those days, the days, the ISO weeks and months it covers completely", () => {
    expect(within("2026-01-01..2026-02-03", time(HOUR))).toBe("2026-01-01T00..2026-02-03T23");
    expect(within("2026-01-01..2026-02-03", time(DAY))).toBe("2026-01-01..2026-02-03");
    // 2026-01-01 is a Thursday: W01 (from 2025-12-29) starts before; W06 (to 02-08) ends after.
    expect(within("2026-01-01..2026-02-03", time(WEEK))).toBe("2026-W02..2026-W05");
    expect(within("2026-01-01..2026-02-03", time(MONTH))).toBe("2026-01");
    expect(within("2026-02-10..2026-03-31", time(MONTH))).toBe("2026-03");
    expect(within("2026-01-01..2026-03-31", time(QUARTER))).toBe("2026-Q1");
    expect(within("2026-01-01..2026-12-31", time(YEAR))).toBe("2026");
  });

  it("a coarser window: every finer period inside it", () => {
    expect(within("2026-02", time(DAY))).toBe("2026-02-01..2026-02-28");
    expect(within("2026-02", time(HOUR))).toBe("2026-02-01T00..2026-02-28T23");
    expect(within("2026-Q1", time(MONTH))).toBe("2026-01..2026-03");
    expect(within("2026", time(QUARTER))).toBe("2026-Q1..2026-Q4");
    // March 2026 starts on a Sunday: W10 (03-02..03-08) to W13 (03-23..03-29).
    expect(within("2026-03", time(WEEK))).toBe("2026-W10..2026-W13");
    expect(within("2026-W10", time(DAY))).toBe("2026-03-02..2026-03-08");
  });

  it("a window of hours: only the days it covers from midnight to midnight", () => {
    expect(within("2026-01-01T00..2026-01-02T23", time(DAY))).toBe("2026-01-01..2026-01-02");
    expect(within("2026-01-01T01..2026-01-02T23", time(DAY))).toBe("2026-01-02");
    expect(within("2026-01-01T00..2026-01-02T22", time(DAY))).toBe("2026-01-01");
  });

  it("null when no whole period fits", () => {
    expect(within("2026-01-01..2026-01-30", time(MONTH))).toBeNull();
    expect(within("2026-01-15..2026-02-14", time(MONTH))).toBeNull();
    // Tuesday to the next Monday: seven days, no whole ISO week.
    expect(within("2026-01-06..2026-01-12", time(WEEK))).toBeNull();
    expect(within("2026-01-01T00..2026-01-01T22", time(DAY))).toBeNull();
    expect(within("2026-01", time(QUARTER))).toBeNull();
    expect(within("2026-Q4", time(YEAR))).toBeNull();
  });

  it("starts at the asset's start, and is null when the asset starts after the window", () => {
    expect(within("2025-12-01..2026-01-10", time(DAY, "2026-01-05"))).toBe("2026-01-05..2026-01-10");
    expect(within("2025-12-31..2026-01-01", time(HOUR, "2026-01-01T06"))).toBe("2026-01-01T06..2026-01-01T23");
    expect(within("2025-10-01..2026-03-31", time(MONTH, "2026-02"))).toBe("2026-02..2026-03");
    expect(within("2025-12-01..2026-02-01", time(WEEK, "2026-01-14"))).toBe("2026-W03..2026-W05");
    expect(within("2026-01-01..2026-01-31", time(DAY, "2026-02-01"))).toBeNull();
    expect(within("2026-01-01..2026-01-31", time(DAY, "2026-01-31"))).toBe("2026-01-31");
  });

  it("leap years: February's 29th day, and a year of 366 days", () => {
    expect(within("2028-02", time(DAY))).toBe("2028-02-01..2028-02-29");
    expect(within("2028-02-01..2028-02-28", time(MONTH))).toBeNull();
    expect(within("2028-02-01..2028-02-29", time(MONTH))).toBe("2028-02");
    expect(within("2100-02-01..2100-02-28", time(MONTH))).toBe("2100-02");
    expect(within("2000-02-01..2000-02-29", time(MONTH))).toBe("2000-02");
    expect(periodsWithin(TimePartitionWindow.parse("2028"), time(DAY))!.length).toBe(366);
    expect(periodsWithin(TimePartitionWindow.parse("2028-02-29"), time(HOUR))!.length).toBe(24);
  });

  it("ISO weeks across year ends: a week belongs to the year of its Thursday", () => {
    // 2026-W53 (Mon 2026-12-28 .. Sun 2027-01-03): 2026 has 53 ISO weeks.
    expect(within("2026-12-28..2027-01-03", time(WEEK))).toBe("2026-W53");
    // 2026-12-01 is a Tuesday: W49 (from 11-30) starts before; 2027-01-31 is a Sunday.
    expect(within("2026-12-01..2027-01-31", time(WEEK))).toBe("2026-W50..2027-W04");
    // 2024-12-30 is a Monday: its week is 2025-W01.
    expect(within("2024-12-30..2025-01-05", time(WEEK))).toBe("2025-W01");
    expect(within("2026", time(WEEK))).toBe("2026-W02..2026-W52");
    // 2024 starts on a Monday, and its last two days belong to 2025-W01.
    expect(within("2024", time(WEEK))).toBe("2024-W01..2024-W52");
    expect(within("2026-W53", time(DAY))).toBe("2026-12-28..2027-01-03");
    expect(within("2026-W53", time(MONTH))).toBeNull();
  });

  it("every pair of granularities agrees with walking the periods one by one", () => {
    const windows = [
      "2026-01-01..2026-02-03",
      "2025-12-29..2027-01-03",
      "2028-02-27..2028-03-01",
      "2026-02-10..2026-03-31",
      "2026-03-29T22..2026-04-01T01",
      "2026-W52..2027-W02",
      "2026-11..2027-02",
      "2026-Q2..2026-Q3",
      "2025..2026",
    ];
    for (const text of windows) {
      const window = TimePartitionWindow.parse(text);
      for (const g of TimeGranularity.all) {
        for (const start of [
          null,
          g.truncate(new Date(window.start.getTime() + (window.granularity.advance(window.end, 1).getTime() - window.start.getTime()) / 3)),
        ]) {
          const config = new TimePartitionConfig({ column: "t", granularity: g, ...(start ? { start: g.format(start) } : {}) });
          const found = periodsWithin(window, config);
          expect(found === null ? null : String(found), `${text} as ${g.name} from ${start ? g.format(start) : "the beginning"}`).toBe(
            bruteForce(window, g, start),
          );
          if (found) expect(found.granularity).toBe(g);
        }
      }
    }
  });
});

describe("spanning: the smallest window of one granularity holding several", () => {
  const w = (text: string) => TimePartitionWindow.parse(text);

  it("windows of mixed granularities, in the finest or a coarser one", () => {
    expect(String(spanning([w("2026-01-05..2026-01-07"), w("2026-02")], DAY))).toBe("2026-01-05..2026-02-28");
    expect(String(spanning([w("2026-01-05..2026-01-07"), w("2026-02")], HOUR))).toBe("2026-01-05T00..2026-02-28T23");
    expect(String(spanning([w("2026-01-05..2026-01-07"), w("2026-02")], MONTH))).toBe("2026-01..2026-02");
    expect(String(spanning([w("2026-03-10T05..2026-03-10T07"), w("2026-03-01")], DAY))).toBe("2026-03-01..2026-03-10");
    expect(String(spanning([w("2026-W53"), w("2026-12-01")], DAY))).toBe("2026-12-01..2027-01-03");
    expect(String(spanning([w("2026-W53")], YEAR))).toBe("2026..2027");
    expect(String(spanning([w("2028-02")], DAY))).toBe("2028-02-01..2028-02-29");
  });

  it("one window in its own granularity is itself; none is null", () => {
    expect(String(spanning([w("2026-01-05..2026-01-07")], DAY))).toBe("2026-01-05..2026-01-07");
    expect(spanning([], DAY)).toBeNull();
  });
});
