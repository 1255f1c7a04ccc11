// Windows of a multi partitioning (issue 36): a time window crossed with a subset of each list,
// its order (oldest period first; runs take the newest first, values in declared order), its
// size known without listing, every granularity of the time dimension, and time zones.
import { describe, expect, it, test } from "vitest";
import {
  ListPartitionConfig,
  MultiPartition,
  MultiPartitionConfig,
  MultiPartitionWindow,
  PartitionError,
  PartitionWindow,
  TimeGranularity,
  TimePartition,
  TimePartitionConfig,
  TimePartitionWindow,
} from "../../src/index.js";
import type { GranularityName } from "../../src/index.js";
import { D, errorOf } from "../support/assertions.js";

const region = () => new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] });
const stock = () => new MultiPartitionConfig({ date: new TimePartitionConfig({ column: "date", start: "2026-01-01" }), region: region() });

function partitionMessage(fn: () => unknown): string {
  const error = errorOf(fn);
  expect(error).toBeInstanceOf(PartitionError);
  return error.message;
}

describe("MultiPartitionWindow: a time range crossed with every value", () => {
  const w = stock().window("2026-01-01", "2026-01-03");

  it("holds every combination, oldest period first, values in declared order", () => {
    expect(w).toBeInstanceOf(MultiPartitionWindow);
    expect(w).toBeInstanceOf(PartitionWindow);
    expect(w.length).toBe(9);
    const keys = [
      "2026-01-01|eu",
      "2026-01-01|us",
      "2026-01-01|apac",
      "2026-01-02|eu",
      "2026-01-02|us",
      "2026-01-02|apac",
      "2026-01-03|eu",
      "2026-01-03|us",
      "2026-01-03|apac",
    ];
    expect(w.keys).toEqual(keys);
    expect(w.partitions.map((p) => p.key)).toEqual(keys);
    expect([...w].map((p) => p.key)).toEqual(keys);
    expect([...stock().window("2026-01-01", "2026-01-03")].map((p) => p.key)).toEqual(keys);
    for (const p of w) expect(p).toBeInstanceOf(MultiPartition);
  });

  it("runs newest period first, each period's values still in declared order", () => {
    expect(w.ordered("newest").map((p) => p.key)).toEqual([
      "2026-01-03|eu",
      "2026-01-03|us",
      "2026-01-03|apac",
      "2026-01-02|eu",
      "2026-01-02|us",
      "2026-01-02|apac",
      "2026-01-01|eu",
      "2026-01-01|us",
      "2026-01-01|apac",
    ]);
    expect(w.ordered("oldest").map((p) => p.key)).toEqual(w.keys);
  });

  it("names the time window and the values, in declared order", () => {
    expect(String(w)).toBe("2026-01-01..2026-01-03|eu,us,apac");
    expect(w.key).toBe("2026-01-01..2026-01-03|eu,us,apac");
    expect(w.time).toBeInstanceOf(TimePartitionWindow);
    expect(String(w.time)).toBe("2026-01-01..2026-01-03");
    expect(w.values).toEqual({ region: ["eu", "us", "apac"] });
  });

  it("filters each dimension on its own column, and finds a row's key by every column", () => {
    expect(w.filters()).toEqual([
      { column: "date", start: D("2026-01-01"), end: D("2026-01-04") },
      { column: "region", values: ["eu", "us", "apac"] },
    ]);
    expect(w.keyOf({ date: "2026-01-02T10:00:00Z", region: "us" })).toBe("2026-01-02|us");
    expect(w.keyOf({ date: "2026-01-04", region: "us" })).toBeNull();
    expect(w.keyOf({ date: "2026-01-02", region: "mars" })).toBeNull();
    expect(w.keyOf("2026-01-02|us")).toBeNull();
    expect(partitionMessage(() => w.filter("day"))).toBe(
      'multi window 2026-01-01..2026-01-03|eu,us,apac has no dimension on the column "day": expected one of date, region (filters() gives one filter per dimension)',
    );
  });

  it("says whether it holds a key, of either form", () => {
    expect(w.has("2026-01-02|apac")).toBe(true);
    expect(w.has("date=2026-01-02,region=apac")).toBe(false); // has() takes keys; the named form is parseMultiKey's
    expect(w.has("2026-01-04|eu")).toBe(false);
    expect(w.has("2026-01-02|mars")).toBe(false);
    expect(w.has("nonsense")).toBe(false);
  });

  it("gives the partitions of one period: every value of that day", () => {
    const day = w.atTime("2026-01-02");
    expect(day.keys).toEqual(["2026-01-02|eu", "2026-01-02|us", "2026-01-02|apac"]);
    expect(w.atTime(new TimePartition("2026-01-03")).length).toBe(3);
    expect(partitionMessage(() => w.atTime("2026-01-09"))).toBe(
      'period string "2026-01-09" is not in the multi window 2026-01-01..2026-01-03|eu,us,apac: expected one of 2026-01-01..2026-01-03',
    );
  });
});

describe("PartitionWindow.ordered: the order runs take on the other kinds", () => {
  it("reverses a time or list window for newest first, and keeps it for oldest", () => {
    const time = new TimePartitionWindow("2026-01-01", "2026-01-03");
    expect(time.ordered("newest").map((p) => p.key)).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
    expect(time.ordered("oldest")).toBe(time.partitions);
    expect(
      region()
        .all()
        .ordered("newest")
        .map((p) => p.key),
    ).toEqual(["apac", "us", "eu"]);
  });
});

describe("MultiPartitionWindow: subsets of the lists", () => {
  it("narrows a list to the values given, kept in declared order", () => {
    const w = stock().window("2026-01-01", "2026-01-02", { region: ["apac", "eu"] });
    expect(w.values).toEqual({ region: ["eu", "apac"] });
    expect(w.keys).toEqual(["2026-01-01|eu", "2026-01-01|apac", "2026-01-02|eu", "2026-01-02|apac"]);
    expect(String(w)).toBe("2026-01-01..2026-01-02|eu,apac");
    expect(w.filter("region")).toEqual({ column: "region", values: ["eu", "apac"] });
    expect(
      stock()
        .window("2026-01-01", "2026-01-01", { region: ["us"] })
        .filter("region"),
    ).toEqual({ column: "region", value: "us" });
  });

  it("crosses several lists, the last one fastest, wherever the time dimension is declared", () => {
    const cfg = new MultiPartitionConfig({
      market: new ListPartitionConfig({ column: "market", values: ["retail", "pro"] }),
      month: new TimePartitionConfig({ column: "month", granularity: TimeGranularity.MONTH }),
      channel: new ListPartitionConfig({ column: "channel", values: ["web", "app", "store"] }),
    });
    const w = cfg.window("2026-01", "2026-02", { channel: ["store", "web"] });
    expect(w.length).toBe(8);
    expect(w.keys).toEqual([
      "retail|2026-01|web",
      "retail|2026-01|store",
      "pro|2026-01|web",
      "pro|2026-01|store",
      "retail|2026-02|web",
      "retail|2026-02|store",
      "pro|2026-02|web",
      "pro|2026-02|store",
    ]);
    expect(
      w
        .ordered("newest")
        .map((p) => p.key)
        .slice(0, 4),
    ).toEqual(w.keys.slice(4));
    expect(String(w)).toBe("retail,pro|2026-01..2026-02|web,store");
  });

  it("crosses lists alone when there is no time dimension", () => {
    const cfg = new MultiPartitionConfig({
      region: region(),
      channel: new ListPartitionConfig({ column: "channel", values: ["web", "app"] }),
    });
    const all = cfg.all();
    expect(all.time).toBeNull();
    expect(all.keys).toEqual(["eu|web", "eu|app", "us|web", "us|app", "apac|web", "apac|app"]);
    expect(all.ordered("newest").map((p) => p.key)).toEqual(all.keys);
    expect(cfg.all({ region: ["us"] }).keys).toEqual(["us|web", "us|app"]);
    expect(partitionMessage(() => cfg.window("2026-01-01", "2026-01-02"))).toBe(
      "multi partitioning region|channel has no time dimension, but was given the range 2026-01-01..2026-01-02: expected all(values) for a window of its lists",
    );
    expect(partitionMessage(() => stock().all())).toBe(
      'multi partitioning date|region has the time dimension "date": expected window(start, end, values), which bounds its periods',
    );
  });

  test.each([
    [{ zone: ["eu"] }, 'multi window values: "zone" is not a dimension; expected values of "region"'],
    [
      { date: ["2026-01-01"] },
      'multi window values: "date" is the time dimension: give its range as the window\'s start and end; expected values of "region"',
    ],
    [{ region: [] }, 'multi window values of "region": expected some of eu, us, apac, got array []'],
    [{ region: "eu" }, 'multi window values of "region": expected some of eu, us, apac, got string "eu"'],
    [{ region: ["eu", "mars"] }, 'multi window values of "region": string "mars" is not a declared value; expected some of eu, us, apac'],
    [{ region: ["eu", "eu"] }, 'multi window values of "region": "eu" is given twice; expected some of eu, us, apac, each once'],
  ])("refuses the values %j", (values, message) => {
    expect(partitionMessage(() => stock().window("2026-01-01", "2026-01-02", values as never))).toBe(message);
  });

  it("refuses a time window of another granularity, or a bad range", () => {
    expect(partitionMessage(() => stock().over(new TimePartitionWindow("2026-01", "2026-02", TimeGranularity.MONTH)))).toBe(
      'multi window of date|region: the time dimension "date" is by day, but was given the month window 2026-01..2026-02',
    );
    expect(partitionMessage(() => stock().over(null))).toBe(
      'multi window of date|region: expected a day window of the time dimension "date", got null',
    );
    expect(partitionMessage(() => stock().window("2026-01-05", "2026-01-01"))).toBe(
      'multi window 2026-01-05..2026-01-01 of date|region, dimension "date": window 2026-01-05..2026-01-01 ends before it starts: expected start <= end',
    );
    expect(partitionMessage(() => stock().window("2026-01-05", "2026-01-xx"))).toContain(
      'dimension "date": "2026-01-xx" is not a valid day key',
    );
  });
});

describe("MultiPartitionWindow: size without listing", () => {
  it("counts a window of 43 million combinations at once, without making a partition", () => {
    const many = Array.from({ length: 50 }, (_, i) => `v${i}`);
    const cfg = new MultiPartitionConfig({
      hour: new TimePartitionConfig({ column: "hour", granularity: TimeGranularity.HOUR }),
      value: new ListPartitionConfig({ column: "value", values: many }),
    });
    const started = performance.now();
    const w = cfg.window("2000-01-01T00", "2099-12-31T23");
    expect(w.length).toBe(876_600 * 50);
    expect(String(w)).toBe(`2000-01-01T00..2099-12-31T23|${many.join(",")}`);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("counts 3 years of days by 50 values as 54,750, and a period's every value from over()", () => {
    const many = Array.from({ length: 50 }, (_, i) => `v${i}`);
    const cfg = new MultiPartitionConfig({
      date: new TimePartitionConfig({ column: "date" }),
      value: new ListPartitionConfig({ column: "value", values: many }),
    });
    const w = cfg.window("2024-01-01", "2026-12-30");
    expect(w.length).toBe(1_095 * 50);
    expect(w.keys).toHaveLength(54_750);
    expect(w.keys[54_749]).toBe("2026-12-30|v49");
    expect(cfg.over(new TimePartition("2026-03-01")).keys).toEqual(many.map((v) => `2026-03-01|${v}`));
  });
});

describe("MultiPartitionWindow: every granularity of the time dimension", () => {
  const cases: readonly [GranularityName, string, string, readonly string[]][] = [
    ["hour", "2026-03-08T23", "2026-03-09T01", ["2026-03-08T23", "2026-03-09T00", "2026-03-09T01"]],
    ["day", "2025-12-31", "2026-01-02", ["2025-12-31", "2026-01-01", "2026-01-02"]],
    ["week", "2025-W52", "2026-W02", ["2025-W52", "2026-W01", "2026-W02"]],
    ["month", "2025-12", "2026-02", ["2025-12", "2026-01", "2026-02"]],
    ["quarter", "2025-Q4", "2026-Q2", ["2025-Q4", "2026-Q1", "2026-Q2"]],
    ["year", "2025", "2027", ["2025", "2026", "2027"]],
  ];
  for (const [name, first, last, periods] of cases) {
    test(`${name}: keys, windows, dates and round trips`, () => {
      const g = TimeGranularity.named(name);
      const cfg = new MultiPartitionConfig({ period: new TimePartitionConfig({ column: "period", granularity: g }), region: region() });
      const w = cfg.window(first, last, { region: ["us", "eu"] });
      expect(w.length).toBe(6);
      expect(w.keys).toEqual(periods.flatMap((p) => [`${p}|eu`, `${p}|us`]));
      expect(w.ordered("newest").map((p) => p.key)).toEqual([...periods].reverse().flatMap((p) => [`${p}|eu`, `${p}|us`]));
      for (const p of w) {
        expect(cfg.fromKey(p.key).key).toBe(p.key);
        expect(p.partitionDate).toEqual(g.parse(p.keys["period"]!));
        expect(p.time!.granularity).toBe(g);
      }
      expect(w.filter("period")).toEqual({ column: "period", start: g.parse(first), end: g.advance(g.parse(last), 1) });
      expect(cfg.check(w, "shop.stock", true)).toBe(w);
    });
  }

  it("reads hour keys as UTC labels whatever the process zone", () => {
    const cfg = new MultiPartitionConfig({
      hour: new TimePartitionConfig({ column: "hour", granularity: TimeGranularity.HOUR }),
      region: region(),
    });
    const p = cfg.fromKey("2026-03-29T01|eu");
    expect(p.partitionDate).toEqual(D("2026-03-29T01:00:00Z"));
    expect(p.contains({ hour: "2026-03-29T01:59:59Z", region: "eu" })).toBe(true);
    expect(p.contains({ hour: "2026-03-29T02:00:00+01:00", region: "eu" })).toBe(true);
    expect(p.contains({ hour: "2026-03-29T02:00:00Z", region: "eu" })).toBe(false);
  });
});

describe("MultiPartitionWindow: time zones of the time dimension", () => {
  // Time configs have no zone of their own: a zone enters through the time window a schedule
  // computes (lookback's timeZone), which the multi window crosses with the lists unchanged.
  test.each([
    ["UTC", "2026-05-19"],
    ["Asia/Kolkata", "2026-05-20"],
    ["America/Los_Angeles", "2026-05-19"],
    ["Pacific/Kiritimati", "2026-05-20"],
  ])("a lookback in %s crossed with every region", (timeZone, today) => {
    const cfg = stock();
    const time = TimePartitionWindow.lookback({ now: "2026-05-19T20:00:00Z", lookback: 2, timeZone })!;
    const w = cfg.over(time);
    expect(w.keys.slice(-3)).toEqual([`${today}|eu`, `${today}|us`, `${today}|apac`]);
    expect(w.length).toBe(6);
    expect(w.partitions.at(-1)!.partitionDate).toEqual(D(today));
  });

  it("keeps a day's dates at UTC midnight in every process zone", () => {
    const p = stock().fromKey("2026-11-01|us");
    expect(p.partitionDate!.toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(p.filters()[0]).toEqual({ column: "date", start: D("2026-11-01"), end: D("2026-11-02") });
  });
});

describe("MultiPartitionConfig.check", () => {
  it("takes a window or a bare partition, and windows only when allowed", () => {
    const cfg = stock();
    const p = cfg.fromKey("2026-01-05|eu");
    expect(cfg.check(p, "shop.stock")).toBe(p.window);
    expect(partitionMessage(() => cfg.check(cfg.window("2026-01-05", "2026-01-06"), "shop.stock"))).toBe(
      'asset "shop.stock" does not allow windows (allowWindow is false) but was given 6 partitions (2026-01-05..2026-01-06|eu,us,apac); run it one partition at a time or as a backfill',
    );
    const windowed = new MultiPartitionConfig(
      { date: new TimePartitionConfig({ column: "date" }), region: region() },
      { allowWindow: true },
    );
    expect(windowed.check(windowed.window("2026-01-05", "2026-01-06"), "shop.stock").length).toBe(6);
  });

  it("refuses a window of another kind, of other dimensions, or before the time dimension's start", () => {
    const cfg = stock();
    expect(partitionMessage(() => cfg.check(new TimePartitionWindow("2026-01-01", "2026-01-02"), "shop.stock"))).toBe(
      'asset "shop.stock" is partitioned by date|region but was given the window "2026-01-01..2026-01-02" of another kind: expected a multi window of date|region (its window(start, end, values), or over(timeWindow) for every value)',
    );
    const monthly = new MultiPartitionConfig({
      date: new TimePartitionConfig({ column: "date", granularity: TimeGranularity.MONTH }),
      region: region(),
    });
    expect(partitionMessage(() => cfg.check(monthly.window("2026-01", "2026-01"), "shop.stock", true))).toBe(
      'asset "shop.stock" is partitioned by date (day) | region (eu, us, apac) but was given the window 2026-01|eu,us,apac of date (month) | region (eu, us, apac)',
    );
    expect(partitionMessage(() => cfg.check(cfg.window("2025-12-31", "2026-01-01"), "shop.stock", true))).toBe(
      'asset "shop.stock" starts at 2026-01-01 but the window 2025-12-31..2026-01-01|eu,us,apac reaches before it',
    );
  });
});
