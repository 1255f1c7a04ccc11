// The zone calendars of lookback windows at their awkward edges: a change of offset at
// midnight, a day a zone skipped, offsets of 45 minutes, and offsets west of UTC by less than
// an hour. Each expected key is the zone's wall-clock date as Intl (the IANA database) gives it.
import { describe, expect, it } from "vitest";
import { PartitionError, TimeGranularity, TimePartitionWindow } from "../../src/index.js";

const { DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;

/** The lookback window's name, or null. */
function window(now: string, timeZone: string, granularity = DAY, lookback = 1): string | null {
  const w = TimePartitionWindow.lookback({ now, lookback, granularity, timeZone });
  return w === null ? null : String(w);
}

describe("lookback in a zone: offsets west of UTC by less than an hour", () => {
  it("Monrovia at -00:44:30 (until 1972) is still on the previous day just after UTC midnight", () => {
    expect(window("1970-01-01T00:20:00Z", "Africa/Monrovia")).toBe("1969-12-31");
    expect(window("1970-01-01T00:50:00Z", "Africa/Monrovia")).toBe("1970-01-01");
  });

  it("Dublin's mean time at -00:25:21 (until 1916) turns the year late", () => {
    expect(window("1910-01-01T00:10:00Z", "Europe/Dublin", YEAR)).toBe("1909");
    expect(window("1910-01-01T00:30:00Z", "Europe/Dublin", YEAR)).toBe("1910");
  });
});

describe("lookback in a zone: offset changes at midnight", () => {
  const santiago = "America/Santiago";

  it("Santiago's spring change skips 00:00-01:00: the new day starts at 01:00", () => {
    expect(window("2026-09-06T03:59:00Z", santiago)).toBe("2026-09-05");
    expect(window("2026-09-06T04:00:00Z", santiago)).toBe("2026-09-06");
    expect(window("2026-09-06T04:00:00Z", santiago, DAY, 2)).toBe("2026-09-05..2026-09-06");
  });

  it("Santiago's autumn change repeats 23:00-24:00: both passes belong to the old day", () => {
    expect(window("2026-04-05T02:30:00Z", santiago)).toBe("2026-04-04");
    expect(window("2026-04-05T03:30:00Z", santiago)).toBe("2026-04-04");
    expect(window("2026-04-05T04:00:00Z", santiago)).toBe("2026-04-05");
  });

  it("Los Angeles's week starts at local Monday midnight after the spring change, not a fixed offset's", () => {
    // 06:59Z is Sunday 23:59 PDT; 07:30Z is Monday 00:30 PDT (at PST's -08:00 still Sunday)
    expect(window("2026-03-09T06:59:00Z", "America/Los_Angeles", WEEK)).toBe("2026-W10");
    expect(window("2026-03-09T07:30:00Z", "America/Los_Angeles", WEEK)).toBe("2026-W11");
  });
});

describe("lookback in a zone: a skipped day and 45-minute offsets", () => {
  it("Samoa skipped 2011-12-30: its wall clock went from the 29th to the 31st, and a window of days still counts the 30th", () => {
    expect(window("2011-12-30T09:59:00Z", "Pacific/Apia")).toBe("2011-12-29");
    expect(window("2011-12-30T10:00:00Z", "Pacific/Apia")).toBe("2011-12-31");
    expect(window("2011-12-30T10:00:00Z", "Pacific/Apia", DAY, 3)).toBe("2011-12-29..2011-12-31");
  });

  it("Chatham at +13:45 turns the month and the quarter at 10:15 UTC", () => {
    expect(window("2026-03-31T10:14:00Z", "Pacific/Chatham", MONTH)).toBe("2026-03");
    expect(window("2026-03-31T10:15:00Z", "Pacific/Chatham", MONTH)).toBe("2026-04");
    expect(window("2026-03-31T10:15:00Z", "Pacific/Chatham", QUARTER)).toBe("2026-Q2");
  });

  it("Kathmandu at +05:45 turns the year at 18:15 UTC", () => {
    expect(window("2026-12-31T18:14:00Z", "Asia/Kathmandu", YEAR)).toBe("2026");
    expect(window("2026-12-31T18:15:00Z", "Asia/Kathmandu", YEAR)).toBe("2027");
  });
});

describe("lookback in a zone: only IANA names are zones", () => {
  for (const timeZone of ["+05:30", "Foo+05", "Europe/Pariss-01"]) {
    it(`refuses ${JSON.stringify(timeZone)}, naming it`, () => {
      expect(() => window("2026-05-20T12:00:00Z", timeZone)).toThrow(PartitionError);
      expect(() => window("2026-05-20T12:00:00Z", timeZone)).toThrow(`unknown time zone "${timeZone}": expected an IANA name`);
    });
  }
});
