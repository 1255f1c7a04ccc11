import { describe, expect, it, test } from "vitest";
import { PartitionError, TimeGranularity, date } from "../../src/index.js";
import { D, errorOf, expectPartitionError } from "../support/assertions.js";

type Granularity = typeof TimeGranularity.DAY;

/** A UTC instant from an ISO string; a bare date means UTC midnight. Never the local zone. */

function expectTypeError(fn: () => unknown): void {
  expect(errorOf(fn)).toBeInstanceOf(TypeError);
}

const { HOUR, DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;
const ALL: readonly [string, Granularity][] = [
  ["HOUR", HOUR],
  ["DAY", DAY],
  ["WEEK", WEEK],
  ["MONTH", MONTH],
  ["QUARTER", QUARTER],
  ["YEAR", YEAR],
];

/** api.md's key table for 2026-05-20 13:45 UTC, with each period's bounds. */
const TABLE: readonly { g: Granularity; name: string; key: string; start: string; end: string }[] = [
  { g: YEAR, name: "year", key: "2026", start: "2026-01-01", end: "2027-01-01" },
  { g: QUARTER, name: "quarter", key: "2026-Q2", start: "2026-04-01", end: "2026-07-01" },
  { g: MONTH, name: "month", key: "2026-05", start: "2026-05-01", end: "2026-06-01" },
  { g: WEEK, name: "week", key: "2026-W21", start: "2026-05-18", end: "2026-05-25" },
  { g: DAY, name: "day", key: "2026-05-20", start: "2026-05-20", end: "2026-05-21" },
  { g: HOUR, name: "hour", key: "2026-05-20T13", start: "2026-05-20T13:00:00Z", end: "2026-05-20T14:00:00Z" },
];

describe("date()", () => {
  it("builds a UTC-midnight Date", () => {
    expect(date("2026-05-20").getTime()).toBe(Date.UTC(2026, 4, 20));
    expect(date("2024-02-29").toISOString()).toBe("2024-02-29T00:00:00.000Z");
  });
});

describe("TimeGranularity: the objects", () => {
  it("has six distinct granularities, objects rather than strings", () => {
    const all = ALL.map(([, g]) => g);
    expect(new Set(all).size).toBe(6);
    for (const g of all) expect(typeof g).toBe("object");
  });

  it("names each granularity in lower case", () => {
    expect(ALL.map(([, g]) => g.name)).toEqual(["hour", "day", "week", "month", "quarter", "year"]);
  });
});

describe("TimeGranularity: the key table of api.md for 2026-05-20T13:45Z", () => {
  const instant = D("2026-05-20T13:45:00Z");
  for (const row of TABLE) {
    test(`${row.name}: format, truncate, bounds, parse, fromKey`, () => {
      expect(row.g.format(instant)).toBe(row.key);
      expect(row.g.truncate(instant)).toEqual(D(row.start));
      expect(row.g.bounds(instant)).toEqual([D(row.start), D(row.end)]);
      expect(row.g.parse(row.key)).toEqual(D(row.start));
      expect(TimeGranularity.fromKey(row.key)).toBe(row.g);
    });
  }
});

describe("TimeGranularity: accepted inputs", () => {
  // Every form names an instant inside 2026-05-20 13:00-14:00 UTC, except the bare date (midnight).
  const inHour: readonly [string, Date | string][] = [
    ["a Date", D("2026-05-20T13:45:00Z")],
    ["an ISO datetime in UTC", "2026-05-20T13:45:00Z"],
    ["an ISO datetime with milliseconds", "2026-05-20T13:45:00.123Z"],
    ["an ISO datetime with an offset", "2026-05-20T15:45:00+02:00"],
    ["an ISO datetime with a negative offset", "2026-05-20T08:45:00-05:00"],
    ["the hour key", "2026-05-20T13"],
  ];
  for (const row of TABLE) {
    for (const [label, input] of inHour) {
      test(`${row.name}.truncate accepts ${label}`, () => {
        expect(row.g.truncate(input)).toEqual(D(row.start));
        expect(row.g.format(input)).toBe(row.key);
      });
    }
    test(`${row.name}.truncate accepts an ISO date string`, () => {
      const expected = row.g === HOUR ? D("2026-05-20T00:00:00Z") : D(row.start);
      expect(row.g.truncate("2026-05-20")).toEqual(expected);
      expect(row.g.truncate(D("2026-05-20"))).toEqual(expected);
    });
  }

  it("reads an ISO datetime with an offset as the instant it names", () => {
    expect(HOUR.format("2026-05-20T13:45:00+02:00")).toBe("2026-05-20T11");
    // 23:30 at -05:00 is already the next day in UTC
    expect(DAY.format("2026-05-20T23:30:00-05:00")).toBe("2026-05-21");
    // 00:30 at +05:30 is still the previous day in UTC
    expect(DAY.format("2026-05-21T00:30:00+05:30")).toBe("2026-05-20");
    expect(MONTH.format("2026-05-31T23:30:00-02:00")).toBe("2026-06");
  });

  it("reads a Date by its UTC fields", () => {
    // 2026-05-20T23:30Z is 2026-05-21 in Kolkata and 16:30 in Los Angeles; neither matters.
    const late = D("2026-05-20T23:30:00Z");
    expect(DAY.format(late)).toBe("2026-05-20");
    expect(HOUR.format(late)).toBe("2026-05-20T23");
    const early = D("2026-06-01T00:30:00Z");
    expect(MONTH.format(early)).toBe("2026-06");
    expect(DAY.truncate(early)).toEqual(D("2026-06-01"));
  });

  it("never reads a datetime without an offset in the process's local zone", () => {
    // Either it is read as UTC (the only zone-free reading) or it is refused; never local time.
    let result: Date | undefined;
    try {
      result = HOUR.truncate("2026-05-20T13:45:00");
    } catch (error) {
      expect(error).toBeInstanceOf(PartitionError);
    }
    if (result !== undefined) expect(result).toEqual(D("2026-05-20T13:00:00Z"));
  });

  for (const [name, g] of ALL) {
    test(`${name}: no method mutates its Date input`, () => {
      const input = D("2026-05-20T13:45:17.250Z");
      const before = input.getTime();
      const other = D("2026-09-02T04:05:06.007Z");
      const otherBefore = other.getTime();
      g.truncate(input);
      g.advance(input, 3);
      g.advance(input, -3);
      g.bounds(input);
      g.periodsBetween(input, other);
      g.format(input);
      Array.from(g.periodRange(input, other));
      expect(input.getTime()).toBe(before);
      expect(other.getTime()).toBe(otherBefore);
    });

    test(`${name}: returned Dates are fresh objects (mutating one does not change the next)`, () => {
      const a = g.truncate(D("2026-05-20T13:45:00Z"));
      a.setTime(0);
      expect(g.truncate(D("2026-05-20T13:45:00Z")).getTime()).not.toBe(0);
      const b = g.parse(g.format(D("2026-05-20T13:45:00Z")));
      b.setTime(0);
      expect(g.parse(g.format(D("2026-05-20T13:45:00Z"))).getTime()).not.toBe(0);
    });
  }
});

describe("TimeGranularity.truncate", () => {
  it("truncates to the period start at every granularity's edges", () => {
    expect(HOUR.truncate(D("2026-05-20T13:59:59.999Z"))).toEqual(D("2026-05-20T13:00:00Z"));
    expect(DAY.truncate(D("2026-05-20T23:59:59.999Z"))).toEqual(D("2026-05-20"));
    expect(WEEK.truncate(D("2026-05-24T23:59:59Z"))).toEqual(D("2026-05-18")); // Sunday
    expect(WEEK.truncate(D("2026-05-18"))).toEqual(D("2026-05-18")); // Monday
    expect(MONTH.truncate(D("2026-02-28T23:00:00Z"))).toEqual(D("2026-02-01"));
    expect(QUARTER.truncate(D("2026-03-31"))).toEqual(D("2026-01-01"));
    expect(QUARTER.truncate(D("2026-06-30"))).toEqual(D("2026-04-01"));
    expect(QUARTER.truncate(D("2026-09-30"))).toEqual(D("2026-07-01"));
    expect(QUARTER.truncate(D("2026-12-31T23:59:59Z"))).toEqual(D("2026-10-01"));
    expect(YEAR.truncate(D("2026-12-31T23:59:59Z"))).toEqual(D("2026-01-01"));
  });

  it("truncates a week across the year boundary to the Monday in the previous year", () => {
    expect(WEEK.truncate(D("2026-01-01"))).toEqual(D("2025-12-29"));
    expect(WEEK.truncate(D("2027-01-03"))).toEqual(D("2026-12-28"));
  });

  it("works before 1970", () => {
    expect(DAY.truncate(D("1900-03-01T12:00:00Z"))).toEqual(D("1900-03-01"));
    expect(MONTH.truncate(D("1969-12-31T23:59:59Z"))).toEqual(D("1969-12-01"));
    expect(HOUR.truncate(D("1969-12-31T23:59:59Z"))).toEqual(D("1969-12-31T23:00:00Z"));
  });
});

describe("TimeGranularity.advance", () => {
  it("follows api.md: MONTH.advance('2026-01-31', 1) is 2026-02-01", () => {
    expect(MONTH.advance("2026-01-31", 1)).toEqual(D("2026-02-01"));
  });

  it("handles month ends without overflowing into the next month", () => {
    expect(MONTH.advance("2026-03-31", -1)).toEqual(D("2026-02-01"));
    expect(MONTH.advance("2024-01-31", 1)).toEqual(D("2024-02-01"));
    expect(MONTH.advance("2026-05-31", 1)).toEqual(D("2026-06-01"));
    expect(MONTH.advance("2026-08-31", 1)).toEqual(D("2026-09-01"));
    expect(MONTH.advance("2026-10-31", -1)).toEqual(D("2026-09-01"));
  });

  it("crosses year boundaries in both directions", () => {
    expect(MONTH.advance("2026-12-15", 1)).toEqual(D("2027-01-01"));
    expect(MONTH.advance("2026-01-10", -13)).toEqual(D("2024-12-01"));
    expect(MONTH.advance("2026-01-10", 24)).toEqual(D("2028-01-01"));
    expect(QUARTER.advance("2026-11-30", 1)).toEqual(D("2027-01-01"));
    expect(QUARTER.advance("2026-02-15", -1)).toEqual(D("2025-10-01"));
    expect(QUARTER.advance("2026-02-15", -5)).toEqual(D("2024-10-01"));
    expect(YEAR.advance("2024-02-29", 1)).toEqual(D("2025-01-01"));
    expect(YEAR.advance("2026-07-01", -26)).toEqual(D("2000-01-01"));
    expect(DAY.advance("2026-12-31", 1)).toEqual(D("2027-01-01"));
    expect(DAY.advance("2027-01-01", -1)).toEqual(D("2026-12-31"));
    expect(HOUR.advance("2026-12-31T23:30:00Z", 1)).toEqual(D("2027-01-01T00:00:00Z"));
    expect(HOUR.advance("2026-05-20T13", -14)).toEqual(D("2026-05-19T23:00:00Z"));
    expect(WEEK.advance("2026-01-01", 1)).toEqual(D("2026-01-05"));
    expect(WEEK.advance("2026-01-01", -1)).toEqual(D("2025-12-22"));
    expect(WEEK.advance("2026-12-31", 1)).toEqual(D("2027-01-04"));
  });

  it("handles leap days", () => {
    expect(DAY.advance("2024-02-28", 1)).toEqual(D("2024-02-29"));
    expect(DAY.advance("2024-02-29", 1)).toEqual(D("2024-03-01"));
    expect(DAY.advance("2026-02-28", 1)).toEqual(D("2026-03-01"));
    expect(DAY.advance("2024-03-01", -1)).toEqual(D("2024-02-29"));
    expect(DAY.advance("2026-03-01", -1)).toEqual(D("2026-02-28"));
    expect(DAY.advance("2024-01-01", 366)).toEqual(D("2025-01-01"));
    expect(DAY.advance("2026-01-01", 365)).toEqual(D("2027-01-01"));
  });

  for (const [name, g] of ALL) {
    test(`${name}.advance(x, 0) is truncate(x)`, () => {
      const x = D("2026-05-20T13:45:00Z");
      expect(g.advance(x, 0)).toEqual(g.truncate(x));
    });
  }
});

describe("TimeGranularity.bounds", () => {
  it("is half-open: the end is the next period's start", () => {
    expect(MONTH.bounds(D("2026-05-20"))).toEqual([D("2026-05-01"), D("2026-06-01")]);
    expect(MONTH.bounds(D("2026-12-31"))).toEqual([D("2026-12-01"), D("2027-01-01")]);
    expect(MONTH.bounds("2024-02-10")).toEqual([D("2024-02-01"), D("2024-03-01")]);
    expect(MONTH.bounds("2026-02-10")).toEqual([D("2026-02-01"), D("2026-03-01")]);
    expect(QUARTER.bounds("2026-11-11")).toEqual([D("2026-10-01"), D("2027-01-01")]);
    expect(WEEK.bounds("2027-01-01")).toEqual([D("2026-12-28"), D("2027-01-04")]);
    expect(DAY.bounds("2026-12-31")).toEqual([D("2026-12-31"), D("2027-01-01")]);
    expect(HOUR.bounds("2026-12-31T23:10:00Z")).toEqual([D("2026-12-31T23:00:00Z"), D("2027-01-01T00:00:00Z")]);
  });

  it("puts the end bound in the next period", () => {
    for (const [, g] of ALL) {
      const [start, end] = g.bounds(D("2026-05-20T13:45:00Z"));
      expect(g.truncate(end)).toEqual(end);
      expect(g.truncate(end)).not.toEqual(start);
      expect(g.advance(start, 1)).toEqual(end);
    }
  });
});

describe("TimeGranularity.periodsBetween", () => {
  it("counts periods from the one holding a to the one holding b", () => {
    expect(DAY.periodsBetween("2026-01-01", "2026-01-07")).toBe(6);
    expect(DAY.periodsBetween("2026-01-01", "2026-01-01")).toBe(0);
    expect(DAY.periodsBetween("2024-01-01", "2025-01-01")).toBe(366);
    expect(DAY.periodsBetween("2026-01-01", "2027-01-01")).toBe(365);
    expect(DAY.periodsBetween("2026-05-20T00:00:00Z", "2026-05-20T23:59:59Z")).toBe(0);
    expect(MONTH.periodsBetween("2026-01-31", "2026-02-01")).toBe(1);
    expect(MONTH.periodsBetween("2025-11-15", "2026-02-10")).toBe(3);
    expect(QUARTER.periodsBetween("2026-03-31", "2026-04-01")).toBe(1);
    expect(QUARTER.periodsBetween("2025-12-31", "2026-12-31")).toBe(4);
    expect(YEAR.periodsBetween("2026-12-31", "2027-01-01")).toBe(1);
    expect(YEAR.periodsBetween("1900-01-01", "2200-12-31")).toBe(300);
    expect(WEEK.periodsBetween("2025-12-29", "2026-01-04")).toBe(0);
    expect(WEEK.periodsBetween("2026-01-04", "2026-01-05")).toBe(1);
    expect(WEEK.periodsBetween("2025-12-29", "2026-12-28")).toBe(52);
    expect(HOUR.periodsBetween("2026-05-20T13:59:59Z", "2026-05-20T14:00:00Z")).toBe(1);
    expect(HOUR.periodsBetween("2026-05-20", "2026-05-21")).toBe(24);
  });
});

describe("TimeGranularity.periodRange", () => {
  it("lists period starts, inclusive at both ends", () => {
    expect([...MONTH.periodRange("2026-01-31", "2026-04-01")]).toEqual([
      D("2026-01-01"),
      D("2026-02-01"),
      D("2026-03-01"),
      D("2026-04-01"),
    ]);
    expect([...DAY.periodRange("2026-02-27", "2026-03-02")]).toEqual([D("2026-02-27"), D("2026-02-28"), D("2026-03-01"), D("2026-03-02")]);
    expect([...DAY.periodRange("2024-02-27", "2024-03-01")]).toEqual([D("2024-02-27"), D("2024-02-28"), D("2024-02-29"), D("2024-03-01")]);
    expect([...WEEK.periodRange("2025-12-31", "2026-01-12")]).toEqual([D("2025-12-29"), D("2026-01-05"), D("2026-01-12")]);
    expect([...QUARTER.periodRange("2025-11-01", "2026-02-01")]).toEqual([D("2025-10-01"), D("2026-01-01")]);
    expect([...YEAR.periodRange("2025-06-01", "2027-01-01")]).toEqual([D("2025-01-01"), D("2026-01-01"), D("2027-01-01")]);
    expect([...HOUR.periodRange("2026-12-31T22:30:00Z", "2027-01-01T01:00:00Z")]).toEqual([
      D("2026-12-31T22:00:00Z"),
      D("2026-12-31T23:00:00Z"),
      D("2027-01-01T00:00:00Z"),
      D("2027-01-01T01:00:00Z"),
    ]);
  });

  it("holds one period when both ends fall in it", () => {
    expect([...DAY.periodRange("2026-05-20", "2026-05-20")]).toEqual([D("2026-05-20")]);
    expect([...MONTH.periodRange("2026-05-02", "2026-05-30")]).toEqual([D("2026-05-01")]);
  });

  it("has periodsBetween + 1 elements", () => {
    for (const [, g] of ALL) {
      const a = "2025-11-03T07:00:00Z";
      const b = "2026-02-17T19:00:00Z";
      expect([...g.periodRange(a, b)]).toHaveLength(g.periodsBetween(a, b) + 1);
    }
  });
});

describe("TimeGranularity.format and parse", () => {
  it("formats zero-padded ISO prefixes", () => {
    expect(MONTH.format("2026-01-05")).toBe("2026-01");
    expect(DAY.format("2026-01-05")).toBe("2026-01-05");
    expect(WEEK.format("2026-01-05")).toBe("2026-W02");
    expect(HOUR.format("2026-01-05T03:00:00Z")).toBe("2026-01-05T03");
    expect(HOUR.format("2026-01-05T00:00:00Z")).toBe("2026-01-05T00");
    expect(YEAR.format("1900-07-01")).toBe("1900");
  });

  it("parses every shape to its period start", () => {
    expect(YEAR.parse("2026")).toEqual(D("2026-01-01"));
    expect(QUARTER.parse("2026-Q1")).toEqual(D("2026-01-01"));
    expect(QUARTER.parse("2026-Q3")).toEqual(D("2026-07-01"));
    expect(QUARTER.parse("2026-Q4")).toEqual(D("2026-10-01"));
    expect(MONTH.parse("2026-12")).toEqual(D("2026-12-01"));
    expect(WEEK.parse("2026-W21")).toEqual(D("2026-05-18"));
    expect(DAY.parse("2026-05-20")).toEqual(D("2026-05-20"));
    expect(HOUR.parse("2026-05-20T00")).toEqual(D("2026-05-20T00:00:00Z"));
    expect(HOUR.parse("2026-05-20T23")).toEqual(D("2026-05-20T23:00:00Z"));
  });

  it("formats quarters", () => {
    expect(QUARTER.format("2026-01-01")).toBe("2026-Q1");
    expect(QUARTER.format("2026-03-31")).toBe("2026-Q1");
    expect(QUARTER.format("2026-04-01")).toBe("2026-Q2");
    expect(QUARTER.format("2026-09-30")).toBe("2026-Q3");
    expect(QUARTER.format("2026-10-01")).toBe("2026-Q4");
    expect(QUARTER.format("2026-12-31T23:59:59Z")).toBe("2026-Q4");
  });

  it("names the expected granularity when refusing a key", () => {
    expectPartitionError(() => DAY.parse("2026-05"), "2026-05", "day");
    expectPartitionError(() => WEEK.parse("2026-05"), "2026-05", "week");
  });

  it("refuses a key of another granularity's shape", () => {
    expectPartitionError(() => DAY.parse("2026-05"), "2026-05");
    expectPartitionError(() => MONTH.parse("2026-05-20"), "2026-05-20");
    expectPartitionError(() => HOUR.parse("2026-05-20"), "2026-05-20");
    expectPartitionError(() => WEEK.parse("2026-Q2"), "2026-Q2");
    expectPartitionError(() => YEAR.parse("2026-05"), "2026-05");
  });
});

describe("TimeGranularity: ISO weeks", () => {
  it("2026-W01 starts on Monday 2025-12-29", () => {
    expect(WEEK.parse("2026-W01")).toEqual(D("2025-12-29"));
    expect(WEEK.format("2025-12-29")).toBe("2026-W01");
    expect(WEEK.format("2025-12-31")).toBe("2026-W01");
    expect(WEEK.format("2026-01-04")).toBe("2026-W01");
    expect(WEEK.format("2026-01-05")).toBe("2026-W02");
    expect(WEEK.format("2025-12-28")).toBe("2025-W52");
  });

  it("2020-W53 exists, 2021-W53 does not", () => {
    expect(WEEK.parse("2020-W53")).toEqual(D("2020-12-28"));
    expect(WEEK.format("2021-01-01")).toBe("2020-W53");
    expect(WEEK.format("2021-01-03")).toBe("2020-W53");
    expect(WEEK.format("2021-01-04")).toBe("2021-W01");
    expectPartitionError(() => WEEK.parse("2021-W53"), "2021-W53");
    expect(WEEK.format("2022-01-02")).toBe("2021-W52");
  });

  it("2027-01-01 is in 2026-W53", () => {
    expect(WEEK.format("2027-01-01")).toBe("2026-W53");
    expect(WEEK.format("2027-01-03")).toBe("2026-W53");
    expect(WEEK.parse("2026-W53")).toEqual(D("2026-12-28"));
    expect(WEEK.format("2027-01-04")).toBe("2027-W01");
    expect(WEEK.advance("2027-01-01", 1)).toEqual(D("2027-01-04"));
    expect(WEEK.advance("2027-01-04", -1)).toEqual(D("2026-12-28"));
  });

  it("puts late-December days into the next ISO year", () => {
    expect(WEEK.format("2024-12-30")).toBe("2025-W01");
    expect(WEEK.parse("2025-W01")).toEqual(D("2024-12-30"));
    expect(WEEK.format("2016-01-01")).toBe("2015-W53");
  });

  it("refuses W00 and W54", () => {
    expectPartitionError(() => WEEK.parse("2026-W00"), "2026-W00");
    expectPartitionError(() => WEEK.parse("2026-W54"), "2026-W54");
  });
});

describe("TimeGranularity: leap years", () => {
  it("accepts 2024-02-29 and 2000-02-29, refuses 2026-02-29, 1900-02-29, 2100-02-29", () => {
    expect(DAY.parse("2024-02-29")).toEqual(D("2024-02-29"));
    expect(DAY.parse("2000-02-29")).toEqual(D("2000-02-29"));
    expectPartitionError(() => DAY.parse("2026-02-29"), "2026-02-29");
    expectPartitionError(() => DAY.parse("1900-02-29"), "1900-02-29");
    expectPartitionError(() => DAY.parse("2100-02-29"), "2100-02-29");
  });

  it("counts 29 days in February 2024 and 28 in February 2026", () => {
    expect([...DAY.periodRange("2024-02-01", "2024-02-29")]).toHaveLength(29);
    expect(DAY.periodsBetween("2024-02-01", "2024-03-01")).toBe(29);
    expect(DAY.periodsBetween("2026-02-01", "2026-03-01")).toBe(28);
  });
});

describe("TimeGranularity.fromKey", () => {
  it("names the granularity of every key shape", () => {
    expect(TimeGranularity.fromKey("2026")).toBe(YEAR);
    expect(TimeGranularity.fromKey("2026-Q2")).toBe(QUARTER);
    expect(TimeGranularity.fromKey("2026-05")).toBe(MONTH);
    expect(TimeGranularity.fromKey("2026-W21")).toBe(WEEK);
    expect(TimeGranularity.fromKey("2026-05-20")).toBe(DAY);
    expect(TimeGranularity.fromKey("2026-05-20T13")).toBe(HOUR);
  });

  for (const bad of ["2026/05/20", "abc", "26-05", "2026-5", "2026-05-20T1", "2026-05-20 13", "2026-q2", "2026-w21"]) {
    test(`refuses a key of no known shape: ${JSON.stringify(bad)}`, () => {
      expectPartitionError(() => TimeGranularity.fromKey(bad), bad);
    });
  }

  it("refuses the empty key", () => {
    expectPartitionError(() => TimeGranularity.fromKey(""));
  });
});

describe("TimeGranularity: bad input", () => {
  const badKeys: readonly [Granularity, string][] = [
    [MONTH, "2026-13"],
    [MONTH, "2026-00"],
    [DAY, "2026-02-30"],
    [DAY, "2026-04-31"],
    [DAY, "2026-05-00"],
    [DAY, "2026-05-32"],
    [WEEK, "2026-W54"],
    [QUARTER, "2026-Q5"],
    [QUARTER, "2026-Q0"],
    [HOUR, "2026-05-20T24"],
    [HOUR, "2026-02-30T10"],
  ];
  for (const [g, key] of badKeys) {
    test(`${g.name}.parse(${JSON.stringify(key)}) is a PartitionError naming the key`, () => {
      expectPartitionError(() => g.parse(key), key);
    });
  }

  for (const [name, g] of ALL) {
    for (const bad of ["2026/05/20", "abc"]) {
      test(`${name}.parse(${JSON.stringify(bad)}) is a PartitionError naming the key`, () => {
        expectPartitionError(() => g.parse(bad), bad);
      });
      test(`${name}.truncate(${JSON.stringify(bad)}) is a PartitionError naming the input`, () => {
        expectPartitionError(() => g.truncate(bad), bad);
      });
    }
    test(`${name}.parse("") is a PartitionError`, () => {
      expectPartitionError(() => g.parse(""));
    });
    test(`${name}.truncate("") is a PartitionError`, () => {
      expectPartitionError(() => g.truncate(""));
    });
    test(`${name}.truncate of an impossible date is a PartitionError naming it`, () => {
      expectPartitionError(() => g.truncate("2026-02-30"), "2026-02-30");
      expectPartitionError(() => g.truncate("2026-13-01"), "2026-13-01");
    });

    test(`${name}: a wrong type is a TypeError`, () => {
      expectTypeError(() => g.truncate(20260520 as unknown as Date));
      expectTypeError(() => g.truncate(null as unknown as Date));
      expectTypeError(() => g.truncate(undefined as unknown as Date));
      expectTypeError(() => g.truncate(new Date(Number.NaN)));
      expectTypeError(() => g.format(new Date("not a date")));
      expectTypeError(() => g.bounds(null as unknown as Date));
      expectTypeError(() => g.advance(new Date(Number.NaN), 1));
      expectTypeError(() => g.periodsBetween(null as unknown as Date, "2026-01-01"));
      expectTypeError(() => [...g.periodRange("2026-01-01", 5 as unknown as Date)]);
      expectTypeError(() => g.parse(2026 as unknown as string));
      expectTypeError(() => g.parse(null as unknown as string));
    });
  }

  it("TimeGranularity.fromKey refuses a wrong type with a TypeError", () => {
    expectTypeError(() => TimeGranularity.fromKey(2026 as unknown as string));
    expectTypeError(() => TimeGranularity.fromKey(null as unknown as string));
  });
});
