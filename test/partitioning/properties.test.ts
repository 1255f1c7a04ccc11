import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { TimeGranularity, TimePartition, TimePartitionWindow } from "../../src/index.js";

type Granularity = typeof TimeGranularity.DAY;

const RUNS = { numRuns: 300 };
const MIN = new Date("1900-01-01T00:00:00.000Z");
const MAX = new Date("2200-12-31T23:59:59.999Z");
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const { HOUR, DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;
const ALL: readonly [Granularity, number][] = [
  [HOUR, HOUR_MS],
  [DAY, DAY_MS],
  [WEEK, 7 * DAY_MS],
  [MONTH, 31 * DAY_MS],
  [QUARTER, 92 * DAY_MS],
  [YEAR, 366 * DAY_MS],
];

/** Any instant from 1900 to 2200, to the millisecond. */
const instant = fc.date({ min: MIN, max: MAX, noInvalidDate: true });

/** Two ordered instants at most `periods` periods (of `periodMs`) apart, both within range. */
function orderedPair(periodMs: number, periods: number): fc.Arbitrary<[Date, Date]> {
  return fc.tuple(instant, fc.integer({ min: 0, max: periods * periodMs })).map(([a, delta]): [Date, Date] => {
    const b = new Date(Math.min(a.getTime() + delta, MAX.getTime()));
    return [a, b];
  });
}

/** The calendar date of an instant in a zone, read independently through Intl. */
function localDate(now: Date, timeZone: string): { year: string; month: string; day: string } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(now);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? "";
  return { year: get("year").padStart(4, "0"), month: get("month"), day: get("day") };
}

const ZONES = ["UTC", "America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata", "Asia/Tokyo", "Pacific/Chatham", "America/St_Johns"];

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

for (const [g, periodMs] of ALL) {
  describe(`properties of ${g.name}`, () => {
    test("parse(format(x)) equals truncate(x)", () => {
      fc.assert(
        fc.property(instant, (x) => {
          expect(g.parse(g.format(x))).toEqual(g.truncate(x));
        }),
        RUNS,
      );
    });

    test("the key's shape names the granularity", () => {
      fc.assert(
        fc.property(instant, (x) => {
          expect(TimeGranularity.fromKey(g.format(x))).toBe(g);
        }),
        RUNS,
      );
    });

    test("truncate is idempotent and never later than its input", () => {
      fc.assert(
        fc.property(instant, (x) => {
          const t = g.truncate(x);
          expect(g.truncate(t)).toEqual(t);
          expect(t.getTime()).toBeLessThanOrEqual(x.getTime());
        }),
        RUNS,
      );
    });

    test("TimePartition.fromKey(p.key) rebuilds p", () => {
      fc.assert(
        fc.property(instant, (x) => {
          const p = new TimePartition(x, g);
          const back = TimePartition.fromKey(p.key);
          expect(back.key).toBe(p.key);
          expect(back.value).toEqual(p.value);
          expect(back.granularity).toBe(p.granularity);
          expect(back.bounds).toEqual(p.bounds);
        }),
        RUNS,
      );
    });

    test("bounds hold their input, and consecutive periods touch with no gap and no overlap", () => {
      fc.assert(
        fc.property(instant, (x) => {
          const [start, end] = g.bounds(x);
          expect(start).toEqual(g.truncate(x));
          expect(start.getTime()).toBeLessThanOrEqual(x.getTime());
          expect(x.getTime()).toBeLessThan(end.getTime());
          const [nextStart, nextEnd] = g.bounds(end);
          expect(nextStart).toEqual(end);
          expect(nextEnd.getTime()).toBeGreaterThan(nextStart.getTime());
          // the last instant of the period is still inside it
          expect(g.truncate(new Date(end.getTime() - 1))).toEqual(start);
          expect(g.advance(x, 1)).toEqual(end);
        }),
        RUNS,
      );
    });

    test("keys sort as strings in the same order as the periods", () => {
      fc.assert(
        fc.property(instant, instant, (a, b) => {
          const ka = g.format(a);
          const kb = g.format(b);
          const byKey = sign(ka < kb ? -1 : ka > kb ? 1 : 0);
          const byPeriod = sign(g.truncate(a).getTime() - g.truncate(b).getTime());
          expect(byKey).toBe(byPeriod);
        }),
        RUNS,
      );
    });

    test("keys of nearby periods sort as the periods do", () => {
      fc.assert(
        fc.property(orderedPair(periodMs, 3), ([a, b]) => {
          const byPeriod = sign(g.truncate(a).getTime() - g.truncate(b).getTime());
          const ka = g.format(a);
          const kb = g.format(b);
          expect(sign(ka < kb ? -1 : ka > kb ? 1 : 0)).toBe(byPeriod);
        }),
        RUNS,
      );
    });

    test("periodRange(a, b) has periodsBetween(a, b) + 1 consecutive elements", () => {
      fc.assert(
        fc.property(orderedPair(periodMs, 300), ([a, b]) => {
          const range = [...g.periodRange(a, b)];
          const between = g.periodsBetween(a, b);
          expect(range).toHaveLength(between + 1);
          expect(range[0]).toEqual(g.truncate(a));
          expect(range[range.length - 1]).toEqual(g.truncate(b));
          for (let i = 1; i < range.length; i += 1) {
            expect(range[i]).toEqual(g.advance(range[i - 1] as Date, 1));
          }
          expect(g.advance(a, between)).toEqual(g.truncate(b));
        }),
        RUNS,
      );
    });

    test("advance(x, n) then advance(-n) returns truncate(x)", () => {
      fc.assert(
        fc.property(instant, fc.integer({ min: -500, max: 500 }), (x, n) => {
          const there = g.advance(x, n);
          expect(g.truncate(there)).toEqual(there);
          expect(g.advance(there, -n)).toEqual(g.truncate(x));
          expect(g.periodsBetween(x, there)).toBe(n);
        }),
        RUNS,
      );
    });

    test("a window's length, bounds and partitions agree with the granularity", () => {
      fc.assert(
        fc.property(orderedPair(periodMs, 60), ([a, b]) => {
          const w = new TimePartitionWindow(a, b, g);
          const keys = w.partitions.map((p) => p.key);
          // Coverage reads keys without making the partitions (see TimePartitionWindow.keys).
          expect(new TimePartitionWindow(a, b, g).keys).toEqual(keys);
          expect(w.keys).toEqual(keys);
          expect(w.length).toBe(g.periodsBetween(a, b) + 1);
          expect(keys).toHaveLength(w.length);
          expect(w.bounds).toEqual([g.truncate(a), g.advance(b, 1)]);
          expect([...keys].sort()).toEqual(keys);
          expect(new Set(keys).size).toBe(keys.length);
          const back = TimePartitionWindow.parse(String(w));
          expect(String(back)).toBe(String(w));
          expect(back.length).toBe(w.length);
        }),
        RUNS,
      );
    });
  });
}

describe("properties of lookback", () => {
  const recent = fc.date({ min: new Date("1971-01-01T00:00:00Z"), max: new Date("2199-01-01T00:00:00Z"), noInvalidDate: true });

  for (const [g] of ALL) {
    test(`${g.name}: in UTC the window ends offset periods back and is lookback periods long`, () => {
      fc.assert(
        fc.property(recent, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 10 }), (now, lookback, offset) => {
          const w = TimePartitionWindow.lookback({ now, lookback, offset, granularity: g });
          expect(w).not.toBeNull();
          expect(w?.length).toBe(lookback);
          expect(w?.end).toEqual(g.advance(now, -offset));
          expect(w?.start).toEqual(g.advance(now, -offset - lookback + 1));
          expect(w?.granularity).toBe(g);
        }),
        RUNS,
      );
    });

    test(`${g.name}: clamping to start keeps the part at or after start, or gives null`, () => {
      fc.assert(
        fc.property(
          recent,
          fc.integer({ min: 1, max: 20 }),
          fc.integer({ min: 0, max: 5 }),
          fc.integer({ min: -30, max: 5 }),
          (now, lookback, offset, shift) => {
            const start = g.advance(now, shift);
            const w = TimePartitionWindow.lookback({ now, lookback, offset, granularity: g, start });
            const end = g.advance(now, -offset);
            const from = g.advance(now, -offset - lookback + 1);
            if (start.getTime() > end.getTime()) {
              expect(w).toBeNull();
            } else {
              expect(w).not.toBeNull();
              expect(w?.end).toEqual(end);
              expect(w?.start).toEqual(start.getTime() > from.getTime() ? start : from);
            }
          },
        ),
        RUNS,
      );
    });
  }

  test("day, month and year windows follow the zone's calendar (checked against Intl)", () => {
    fc.assert(
      fc.property(recent, fc.constantFrom(...ZONES), (now, timeZone) => {
        const { year, month, day } = localDate(now, timeZone);
        const key = (granularity: Granularity): string =>
          String(TimePartitionWindow.lookback({ now, lookback: 1, offset: 0, granularity, timeZone }));
        expect(key(DAY)).toBe(`${year}-${month}-${day}`);
        expect(key(MONTH)).toBe(`${year}-${month}`);
        expect(key(YEAR)).toBe(year);
        expect(key(QUARTER)).toBe(QUARTER.format(`${year}-${month}-${day}`));
        expect(key(WEEK)).toBe(WEEK.format(`${year}-${month}-${day}`));
        expect(key(HOUR)).toBe(HOUR.format(now));
      }),
      RUNS,
    );
  });
});
