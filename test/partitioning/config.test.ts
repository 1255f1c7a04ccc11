import { describe, expect, it, test } from "vitest";
import {
  ListPartitionConfig,
  PartitionConfig,
  TimeGranularity,
  TimePartition,
  TimePartitionConfig,
  TimePartitionWindow,
} from "../../src/index.js";
import type { PartitionDefinition } from "../../src/index.js";
import { D, expectPartitionError } from "../support/assertions.js";

/** A UTC instant from an ISO string; a bare date means UTC midnight. Never the local zone. */

const { HOUR, DAY, WEEK, MONTH, QUARTER, YEAR } = TimeGranularity;

describe("TimePartitionConfig: options", () => {
  it("defaults to days without windows or start", () => {
    const cfg = new TimePartitionConfig({ column: "date" });
    expect(cfg.kind).toBe("time");
    expect(cfg.column).toBe("date");
    expect(cfg.granularity).toBe(DAY);
    expect(cfg.allowWindow).toBe(false);
    expect(cfg.start ?? null).toBeNull();
    expect(cfg).toBeInstanceOf(PartitionConfig);
  });

  it("keeps the given options", () => {
    const cfg = new TimePartitionConfig({ column: "ts", granularity: HOUR, allowWindow: true, start: "2026-01-01" });
    expect(cfg.column).toBe("ts");
    expect(cfg.granularity).toBe(HOUR);
    expect(cfg.allowWindow).toBe(true);
    expect(cfg.start).toEqual(D("2026-01-01"));
  });

  it("accepts start as a Date", () => {
    const cfg = new TimePartitionConfig({ column: "date", start: D("2026-01-01") });
    expect(cfg.start).toEqual(D("2026-01-01"));
  });

  it("refuses an invalid start", () => {
    expect(() => new TimePartitionConfig({ column: "date", start: "2026-02-30" })).toThrow(/2026-02-30/);
  });
});

describe("TimePartitionConfig.check", () => {
  const asset = "shop.orders";
  const daily = new TimePartitionConfig({ column: "date", start: "2026-01-01" });
  const windowed = new TimePartitionConfig({ column: "date", allowWindow: true, start: "2026-01-01" });

  it("returns the window it accepts", () => {
    const one = new TimePartitionWindow("2026-05-20", "2026-05-20");
    expect(daily.check(one, asset)).toBe(one);
    const seven = new TimePartitionWindow("2026-05-14", "2026-05-20");
    expect(windowed.check(seven, asset)).toBe(seven);
  });

  it("accepts a bare partition as its window of one", () => {
    const w = daily.check(new TimePartition("2026-05-20"), asset);
    expect(w).toBeInstanceOf(TimePartitionWindow);
    expect(w.length).toBe(1);
    expect(String(w)).toBe("2026-05-20");
  });

  it("accepts a window that starts exactly at start", () => {
    expect(daily.check(new TimePartition("2026-01-01"), asset).length).toBe(1);
    expect(windowed.check(new TimePartitionWindow("2026-01-01", "2026-01-31"), asset).length).toBe(31);
  });

  it("refuses no window, and a value that is neither a partition nor a window, with PartitionError naming the asset", () => {
    const list = new ListPartitionConfig({ column: "region", values: ["eu", "us"] });
    for (const config of [daily, list]) {
      expectPartitionError(() => config.check(null as never, asset), asset, "no window", "a partition or a window");
      expectPartitionError(() => config.check(undefined as never, asset), asset, "no window");
      expectPartitionError(() => config.check("2026-01-02" as never, asset), asset, '"2026-01-02"', "a partition or a window");
      expectPartitionError(
        () => config.check({ start: "2026-01-02" } as never, asset),
        asset,
        'object {"start":"2026-01-02"}',
        "a partition or a window",
      );
    }
  });

  it("refuses several partitions without allowWindow, naming the asset", () => {
    expectPartitionError(() => daily.check(new TimePartitionWindow("2026-05-14", "2026-05-20"), asset), asset);
  });

  it("names what was given and what was expected", () => {
    expectPartitionError(() => daily.check(new TimePartition("2026-05", MONTH), asset), asset, "day", "month");
    expectPartitionError(() => daily.check(new TimePartition("2025-12-31"), asset), asset, "2026-01-01", "2025-12-31");
  });

  it("refuses a window of another granularity, naming the asset", () => {
    expectPartitionError(() => daily.check(new TimePartition("2026-05", MONTH), asset), asset);
    expectPartitionError(() => daily.check(new TimePartitionWindow("2026-05-20T00", "2026-05-20T00", HOUR), asset), asset);
    const monthly = new TimePartitionConfig({ column: "date", granularity: MONTH });
    expectPartitionError(() => monthly.check(new TimePartition("2026-05-20"), asset), asset);
  });

  it("refuses a window of another kind, naming the asset", () => {
    const list = new ListPartitionConfig({ column: "region", values: ["eu", "us"] });
    expectPartitionError(() => daily.check(list.window("eu", "eu"), asset), asset);
    expectPartitionError(() => daily.check(list.partition("eu"), asset), asset);
  });

  it("refuses a window reaching before start, naming the asset", () => {
    expectPartitionError(() => daily.check(new TimePartition("2025-12-31"), asset), asset);
    expectPartitionError(() => windowed.check(new TimePartitionWindow("2025-12-31", "2026-01-02"), asset), asset);
  });

  it("refuses an hour before an hourly start", () => {
    const hourly = new TimePartitionConfig({ column: "ts", granularity: HOUR, start: "2026-01-01T06:00:00Z" });
    expect(hourly.check(new TimePartition("2026-01-01T06", HOUR), asset).length).toBe(1);
    expectPartitionError(() => hourly.check(new TimePartition("2026-01-01T05", HOUR), asset), asset);
  });

  it("checks every kind of failure on a config without start", () => {
    const free = new TimePartitionConfig({ column: "date" });
    expect(free.check(new TimePartition("1900-01-01"), asset).length).toBe(1);
  });
});

describe("TimePartitionConfig.partition and window", () => {
  const cfg = new TimePartitionConfig({ column: "date", granularity: MONTH });

  it("parses a persisted key", () => {
    const p = cfg.partition("2026-05");
    expect(p).toBeInstanceOf(TimePartition);
    expect(p.key).toBe("2026-05");
    expect(p.granularity).toBe(MONTH);
    expect(p.value).toEqual(D("2026-05-01"));
  });

  it("refuses a key of another granularity", () => {
    expectPartitionError(() => cfg.partition("2026-05-20"), "2026-05-20");
    expectPartitionError(() => new TimePartitionConfig({ column: "date" }).partition("2026-05"), "2026-05");
    expectPartitionError(() => new TimePartitionConfig({ column: "date", granularity: WEEK }).partition("2026-Q2"), "2026-Q2");
  });

  it("refuses invalid keys", () => {
    expectPartitionError(() => cfg.partition("2026-13"), "2026-13");
    expectPartitionError(() => cfg.partition("abc"), "abc");
    expectPartitionError(() => new TimePartitionConfig({ column: "date" }).partition("2026-02-30"), "2026-02-30");
  });

  it("builds a window from two keys, both inclusive", () => {
    const w = cfg.window("2026-01", "2026-03");
    expect(w).toBeInstanceOf(TimePartitionWindow);
    expect(String(w)).toBe("2026-01..2026-03");
    expect(w.length).toBe(3);
    expect(w.granularity).toBe(MONTH);
    const d = new TimePartitionConfig({ column: "date" }).window("2026-01-01", "2026-01-07");
    expect(d.length).toBe(7);
    expect(String(cfg.window("2026-05", "2026-05"))).toBe("2026-05");
  });

  it("refuses a window whose end is before its start, or keys of another granularity", () => {
    expectPartitionError(() => cfg.window("2026-03", "2026-01"));
    expectPartitionError(() => cfg.window("2026-01-01", "2026-03-01"));
  });
});

describe("TimePartitionConfig.compatible", () => {
  const base = new TimePartitionConfig({ column: "date" });

  it("ignores column, start and allowWindow", () => {
    expect(base.compatible(new TimePartitionConfig({ column: "day", allowWindow: true, start: "2026-01-01" }))).toBe(true);
    expect(base.compatible(base)).toBe(true);
  });

  it("needs the same granularity", () => {
    expect(base.compatible(new TimePartitionConfig({ column: "date", granularity: MONTH }))).toBe(false);
    expect(
      new TimePartitionConfig({ column: "date", granularity: WEEK }).compatible(
        new TimePartitionConfig({ column: "date", granularity: WEEK }),
      ),
    ).toBe(true);
  });

  it("needs the same kind", () => {
    const list = new ListPartitionConfig({ column: "date", values: ["2026-01-01"] });
    expect(base.compatible(list)).toBe(false);
    expect(list.compatible(base)).toBe(false);
  });
});

describe("TimePartitionConfig: definitions", () => {
  const configs: readonly [string, TimePartitionConfig][] = [
    ["the defaults", new TimePartitionConfig({ column: "date" })],
    ["every option", new TimePartitionConfig({ column: "ts", granularity: HOUR, allowWindow: true, start: "2026-01-01T06:00:00Z" })],
    ["weeks with a start", new TimePartitionConfig({ column: "week", granularity: WEEK, start: "2026-01-05" })],
    ["quarters", new TimePartitionConfig({ column: "q", granularity: QUARTER, allowWindow: true })],
    ["years", new TimePartitionConfig({ column: "y", granularity: YEAR, start: D("2000-01-01") })],
  ];

  for (const [label, cfg] of configs) {
    test(`${label}: toDefinition is plain JSON`, () => {
      const def = cfg.toDefinition();
      expect(JSON.parse(JSON.stringify(def))).toEqual(def);
      expect(Object.getPrototypeOf(def)).toBe(Object.prototype);
      expect(def.kind).toBe("time");
      expect(def.column).toBe(cfg.column);
      expect(def.allowWindow).toBe(cfg.allowWindow);
      expect(JSON.stringify(def)).toContain(`"${cfg.granularity.name}"`);
    });

    test(`${label}: fromDefinition rebuilds an equal config`, () => {
      const def = cfg.toDefinition();
      const back = PartitionConfig.fromDefinition(JSON.parse(JSON.stringify(def)) as PartitionDefinition);
      expect(back).toBeInstanceOf(TimePartitionConfig);
      const time = back as TimePartitionConfig;
      expect(time.kind).toBe("time");
      expect(time.column).toBe(cfg.column);
      expect(time.allowWindow).toBe(cfg.allowWindow);
      expect(time.granularity).toBe(cfg.granularity);
      expect(time.start).toEqual(cfg.start);
      expect(time.toDefinition()).toEqual(def);
      expect(time.compatible(cfg)).toBe(true);
    });
  }

  it("keeps the start bound through a round trip", () => {
    const cfg = new TimePartitionConfig({ column: "date", start: "2026-01-01" });
    const back = PartitionConfig.fromDefinition(cfg.toDefinition());
    expectPartitionError(() => back.check(new TimePartition("2025-12-31"), "a"), "a");
  });

  it("refuses an unknown kind with a PartitionError naming it", () => {
    expectPartitionError(() => PartitionConfig.fromDefinition({ kind: "nonsense", column: "x", allowWindow: false }), "nonsense");
  });
});
