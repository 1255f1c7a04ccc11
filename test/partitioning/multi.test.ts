// Multi partitions (issue 36): a config of named dimensions, keys joined by "|" in declared
// order, the two spellings a user types, and one message for each way they can be wrong.
import { describe, expect, it, test } from "vitest";
import {
  ConfigError,
  ListPartition,
  ListPartitionConfig,
  MultiPartition,
  MultiPartitionConfig,
  Partition,
  PartitionConfig,
  PartitionError,
  TimeGranularity,
  TimePartition,
  TimePartitionConfig,
} from "../../src/index.js";
import { parseMultiKey, parseMultiValues } from "../../src/partitioning/index.js";
import { D, errorOf } from "../support/assertions.js";

const date = () => new TimePartitionConfig({ column: "date", start: "2026-01-01" });
const region = () => new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] });
const stock = () => new MultiPartitionConfig({ date: date(), region: region() });

/** The message of the PartitionError `fn` throws. */
function partitionMessage(fn: () => unknown): string {
  const error = errorOf(fn);
  expect(error).toBeInstanceOf(PartitionError);
  return error.message;
}

/** The message of the ConfigError `fn` throws. */
function configMessage(fn: () => unknown): string {
  const error = errorOf(fn);
  expect(error).toBeInstanceOf(ConfigError);
  return error.message;
}

describe("MultiPartitionConfig", () => {
  it("keeps its dimensions in declared order, one time dimension and the lists", () => {
    const cfg = stock();
    expect(cfg).toBeInstanceOf(PartitionConfig);
    expect(cfg.kind).toBe("multi");
    expect(cfg.dimensions.map((d) => [d.name, d.kind, d.column])).toEqual([
      ["date", "time", "date"],
      ["region", "list", "region"],
    ]);
    expect(cfg.timeDimension?.name).toBe("date");
    expect(cfg.listDimensions.map((d) => d.name)).toEqual(["region"]);
    expect(cfg.columns).toEqual(["date", "region"]);
    expect(cfg.column).toBe("date|region");
    expect(cfg.shape).toBe("date|region");
    expect(cfg.granularity).toBe(TimeGranularity.DAY);
    expect(cfg.allowWindow).toBe(false);
    expect(new MultiPartitionConfig({ date: date(), region: region() }, { allowWindow: true }).allowWindow).toBe(true);
  });

  it("follows the declared order, whichever dimension comes first, and takes any number of lists", () => {
    const cfg = new MultiPartitionConfig({
      market: new ListPartitionConfig({ column: "market", values: ["retail", "pro"] }),
      month: new TimePartitionConfig({ column: "month", granularity: TimeGranularity.MONTH }),
      channel: new ListPartitionConfig({ column: "channel", values: ["web", "app", "store"] }),
    });
    expect(cfg.shape).toBe("market|month|channel");
    expect(cfg.partition("pro|2026-03|app").keys).toEqual({ market: "pro", month: "2026-03", channel: "app" });
    expect(cfg.listDimensions.map((d) => d.name)).toEqual(["market", "channel"]);
  });

  it("may have no time dimension: lists only", () => {
    const cfg = new MultiPartitionConfig({
      region: region(),
      channel: new ListPartitionConfig({ column: "channel", values: ["web", "app"] }),
    });
    expect(cfg.timeDimension).toBeNull();
    expect(cfg.granularity).toBeNull();
    const p = cfg.partition("us|app");
    expect(p.time).toBeNull();
    expect(p.partitionDate).toBeUndefined();
    expect(p.keys).toEqual({ region: "us", channel: "app" });
  });

  it("looks a dimension up by name, or names the dimensions", () => {
    expect(stock().dimension("region").column).toBe("region");
    expect(partitionMessage(() => stock().dimension("zone"))).toBe(
      'string "zone" is not a dimension of date|region: expected one of date, region',
    );
  });
});

describe("MultiPartitionConfig: refused dimensions (ConfigError, one line each)", () => {
  it("needs at least two dimensions: one is the plain kind itself", () => {
    expect(configMessage(() => new MultiPartitionConfig({ date: date() }))).toBe(
      'multi partitioning: expected at least two dimensions, got only "date": partition by that time config itself',
    );
    expect(configMessage(() => new MultiPartitionConfig({}))).toBe("multi partitioning: expected at least two dimensions, got none");
  });

  it("takes at most one time dimension", () => {
    const hour = new TimePartitionConfig({ column: "hour", granularity: TimeGranularity.HOUR });
    expect(configMessage(() => new MultiPartitionConfig({ date: date(), hour, region: region() }))).toBe(
      'multi partitioning: dimensions "date" and "hour" are both by time: expected at most one time dimension (and any number of list dimensions)',
    );
  });

  it("refuses a dimension that is itself multi, or of another kind, or no partitioning", () => {
    const inner = stock();
    expect(configMessage(() => new MultiPartitionConfig({ both: inner as never, channel: region() }))).toBe(
      'multi partitioning: dimension "both" is itself a multi partitioning (list its dimensions here instead): expected a TimePartitionConfig or a ListPartitionConfig',
    );
    const bad = { date: date(), region: "eu,us" } as unknown as Record<string, TimePartitionConfig>;
    expect(configMessage(() => new MultiPartitionConfig(bad))).toBe(
      'multi partitioning: dimension "region" is string "eu,us": expected a TimePartitionConfig or a ListPartitionConfig',
    );
  });

  it("refuses two dimensions on one column", () => {
    const twice = new ListPartitionConfig({ column: "date", values: ["a"] });
    expect(configMessage(() => new MultiPartitionConfig({ date: date(), other: twice }))).toBe(
      'multi partitioning: dimensions "date" and "other" both use the column "date": expected a column of its own for each dimension',
    );
  });

  it("refuses an empty name, and a name holding what keys split on", () => {
    expect(configMessage(() => new MultiPartitionConfig({ "": date(), region: region() }))).toBe(
      'multi partitioning: a dimension has an empty name: expected a name such as "date" or "region"',
    );
    for (const name of ["a|b", "a=b", "a,b", " date", "1st"]) {
      expect(configMessage(() => new MultiPartitionConfig({ [name]: date(), region: region() }))).toBe(
        `multi partitioning: dimension name ${JSON.stringify(name)} is not a plain name: expected letters, digits, "_" and "-", starting with a letter or "_"`,
      );
    }
  });

  it('refuses a list value holding "|", when the config is built', () => {
    const piped = new ListPartitionConfig({ column: "region", values: ["eu", "us|ca"] });
    expect(configMessage(() => new MultiPartitionConfig({ date: date(), region: piped }))).toBe(
      'multi partitioning: value "us|ca" of list dimension "region" contains "|": expected values without "|" (keys join the dimensions with it)',
    );
  });

  it("refuses something that is not an object of dimensions", () => {
    for (const given of [null, undefined, [date(), region()], date()]) {
      expect(configMessage(() => new MultiPartitionConfig(given as never))).toMatch(
        /^multi partitioning: expected an object of named dimensions such as \{ date: .*, got /,
      );
    }
  });
});

describe("MultiPartition: keys", () => {
  const p = stock().fromKey("2026-01-05|eu");

  it("joins the dimensions' keys with | in declared order", () => {
    expect(p).toBeInstanceOf(MultiPartition);
    expect(p).toBeInstanceOf(Partition);
    expect(p.key).toBe("2026-01-05|eu");
    expect(String(p)).toBe("2026-01-05|eu");
  });

  it("gives the keys and values by dimension name, and the time dimension's date", () => {
    expect(p.keys).toEqual({ date: "2026-01-05", region: "eu" });
    expect(p.value).toEqual({ date: D("2026-01-05"), region: "eu" });
    expect(p.partitionDate).toEqual(D("2026-01-05"));
    expect(p.time).toBeInstanceOf(TimePartition);
    expect(p.time!.key).toBe("2026-01-05");
  });

  it("gives each dimension's column, key, value and partition: what a destination writes", () => {
    expect(p.dimensions.map(({ name, kind, column, key, value }) => ({ name, kind, column, key, value }))).toEqual([
      { name: "date", kind: "time", column: "date", key: "2026-01-05", value: D("2026-01-05") },
      { name: "region", kind: "list", column: "region", key: "eu", value: "eu" },
    ]);
    expect(p.dimensions[1]!.partition).toBeInstanceOf(ListPartition);
  });

  it("filters each dimension on its own column, and refuses a column it has not", () => {
    expect(p.filters()).toEqual([
      { column: "date", start: D("2026-01-05"), end: D("2026-01-06") },
      { column: "region", value: "eu" },
    ]);
    expect(p.filter("region")).toEqual({ column: "region", value: "eu" });
    expect(partitionMessage(() => p.filter("date|region"))).toBe(
      'multi partition "2026-01-05|eu" has no dimension on the column "date|region": expected one of date, region (filters() gives one filter per dimension)',
    );
  });

  it("holds the rows whose every dimension column is its own", () => {
    const rows = [
      { date: "2026-01-05", region: "eu", n: 1 },
      { date: "2026-01-05T23:00:00Z", region: "eu", n: 2 },
      { date: "2026-01-05", region: "us", n: 3 },
      { date: "2026-01-06", region: "eu", n: 4 },
      { date: D("2026-01-05"), region: "eu", n: 5 },
    ];
    expect(p.slice(rows).map((r) => r.n)).toEqual([1, 2, 5]);
    expect(p.contains(rows[0])).toBe(true);
    expect(p.contains("eu")).toBe(false);
  });

  it("has the window of itself alone", () => {
    expect(p.window.length).toBe(1);
    expect(p.window.partitions[0]).toBe(p);
    expect(String(p.window)).toBe("2026-01-05|eu");
    expect(p.window).toBe(p.window);
  });

  it("is built from the dimensions' keys by name too", () => {
    expect(stock().partition({ region: "us", date: "2026-02-01" }).key).toBe("2026-02-01|us");
    expect(stock().partitionOf(["2026-02-01", "apac"]).key).toBe("2026-02-01|apac");
  });
});

describe("parseMultiKey: the two forms a user types", () => {
  it("reads the key joined by |", () => {
    expect(parseMultiKey(stock(), "2026-01-05|eu").key).toBe("2026-01-05|eu");
  });

  it("reads name=value pairs in any order", () => {
    expect(parseMultiKey(stock(), "date=2026-01-05,region=eu").key).toBe("2026-01-05|eu");
    expect(parseMultiKey(stock(), "region=apac,date=2026-01-07").key).toBe("2026-01-07|apac");
    expect(parseMultiKey(stock(), "date=2026-01-05, region=us").key).toBe("2026-01-05|us");
  });

  it("reads a list value holding a comma in the named form", () => {
    const cfg = new MultiPartitionConfig({
      date: date(),
      city: new ListPartitionConfig({ column: "city", values: ["Paris, FR", "Rome"] }),
    });
    expect(parseMultiKey(cfg, "city=Paris, FR,date=2026-01-05").keys).toEqual({ date: "2026-01-05", city: "Paris, FR" });
    expect(parseMultiKey(cfg, "2026-01-05|Paris, FR").keys.city).toBe("Paris, FR");
  });

  test.each([
    [
      "date=2026-01-05",
      'partition "date=2026-01-05" of shop.stock gives no value of "region"; expected every dimension once as name=value, joined by ",": "date=2026-01-01,region=eu"',
    ],
    [
      "zone=eu,date=2026-01-05",
      'partition "zone=eu,date=2026-01-05" of shop.stock: "zone" is not a dimension (they are "date", "region"); expected every dimension once as name=value, joined by ",": "date=2026-01-01,region=eu"',
    ],
    [
      "2026-01-05,region=eu",
      'partition "2026-01-05,region=eu" of shop.stock: "2026-01-05" is not name=value; expected every dimension once as name=value, joined by ",": "date=2026-01-01,region=eu"',
    ],
    [
      "date=2026-01-05,region=eu,region=us",
      'partition "date=2026-01-05,region=eu,region=us" of shop.stock names "region" twice; expected every dimension once as name=value, joined by ",": "date=2026-01-01,region=eu"',
    ],
    [
      "date=2026-01-05,region=mars",
      'partition "date=2026-01-05,region=mars" of shop.stock, dimension "region": "mars" is not a declared value of "region": expected one of eu, us, apac',
    ],
    [
      "date=2026-02-30,region=eu",
      'partition "date=2026-02-30,region=eu" of shop.stock, dimension "date": "2026-02-30" is not a valid day key: has the shape of 2026-05-20 but names no real day',
    ],
  ])("refuses %j, naming what was given and what is expected", (text, message) => {
    expect(partitionMessage(() => parseMultiKey(stock(), text, "shop.stock"))).toBe(message);
  });
});

describe("MultiPartitionConfig.fromKey: refused keys (PartitionError naming the key and what is expected)", () => {
  test.each([
    ["2026-01-05", 'partition key "2026-01-05" of shop.stock has 1 part; expected 2 joined by "|": date|region, e.g. "2026-01-01|eu"'],
    [
      "2026-01-05|eu|x",
      'partition key "2026-01-05|eu|x" of shop.stock has 3 parts; expected 2 joined by "|": date|region, e.g. "2026-01-01|eu"',
    ],
    ["", 'partition key "" of shop.stock has 1 part; expected 2 joined by "|": date|region, e.g. "2026-01-01|eu"'],
    [
      "2026-01-05|mars",
      'partition key "2026-01-05|mars" of shop.stock, dimension "region": "mars" is not a declared value of "region": expected one of eu, us, apac',
    ],
    [
      "2026-13-05|eu",
      'partition key "2026-13-05|eu" of shop.stock, dimension "date": "2026-13-05" is not a valid day key: has the shape of 2026-05-20 but names no real day',
    ],
    [
      "eu|2026-01-05",
      'partition key "eu|2026-01-05" of shop.stock, dimension "date": "eu" is not a valid day key: expected the shape 2026-05-20',
    ],
    [
      "2026-01|eu",
      'partition key "2026-01|eu" of shop.stock, dimension "date": "2026-01" is not a valid day key: expected the shape 2026-05-20',
    ],
  ])("refuses %j", (key, message) => {
    expect(partitionMessage(() => stock().fromKey(key, "shop.stock"))).toBe(message);
  });

  it("words the message without an asset when none is given", () => {
    expect(partitionMessage(() => stock().partition("2026-01-05"))).toBe(
      'partition key "2026-01-05" has 1 part; expected 2 joined by "|": date|region, e.g. "2026-01-01|eu"',
    );
  });

  it("refuses a key that is not a string, and keys by name that miss or add a dimension", () => {
    expect(partitionMessage(() => stock().partition(42 as never, "shop.stock"))).toBe(
      'partition key of shop.stock: expected a string such as "2026-01-01|eu", got number 42',
    );
    expect(partitionMessage(() => stock().partition({ date: "2026-01-05" }))).toBe(
      'partition keys: "region" is undefined; expected a key of each dimension: {"date":"2026-01-01","region":"eu"}',
    );
    expect(partitionMessage(() => stock().partition({ date: "2026-01-05", region: "eu", zone: "x" }))).toBe(
      'partition keys: "zone" is not a dimension; expected a key of each dimension: {"date":"2026-01-01","region":"eu"}',
    );
    expect(partitionMessage(() => stock().partitionOf(["2026-01-05"]))).toBe(
      'partition keys ["2026-01-05"]: expected 2 keys in the order date|region, got array ["2026-01-05"]',
    );
  });

  it("gives today's period as the example when the time dimension has no start", () => {
    const cfg = new MultiPartitionConfig({
      month: new TimePartitionConfig({ column: "month", granularity: TimeGranularity.MONTH }),
      region: region(),
    });
    const month = TimeGranularity.MONTH.format(new Date());
    expect(partitionMessage(() => cfg.partition("x"))).toContain(`e.g. "${month}|eu"`);
  });
});

describe("parseMultiValues: --values region=eu,us", () => {
  const lists = () =>
    new MultiPartitionConfig({
      date: date(),
      region: region(),
      city: new ListPartitionConfig({ column: "city", values: ["Paris, FR", "Paris", "Rome"] }),
    });

  it("reads each list dimension's values, adding up a dimension named twice", () => {
    expect(parseMultiValues(lists(), ["region=eu,us"])).toEqual({ region: ["eu", "us"] });
    expect(parseMultiValues(lists(), ["region=eu", "city=Rome", "region=apac,eu"])).toEqual({ region: ["eu", "apac"], city: ["Rome"] });
    expect(parseMultiValues(lists(), [])).toEqual({});
    const cfg = lists();
    expect(cfg.window("2026-01-01", "2026-01-01", parseMultiValues(cfg, ["region=us,eu"])).keys).toEqual([
      "2026-01-01|eu|Paris, FR",
      "2026-01-01|eu|Paris",
      "2026-01-01|eu|Rome",
      "2026-01-01|us|Paris, FR",
      "2026-01-01|us|Paris",
      "2026-01-01|us|Rome",
    ]);
  });

  it("reads a declared value holding a comma whole", () => {
    expect(parseMultiValues(lists(), ["city=Paris, FR,Rome"])).toEqual({ city: ["Paris, FR", "Rome"] });
    expect(parseMultiValues(lists(), ["city=Paris,Rome"])).toEqual({ city: ["Paris", "Rome"] });
  });

  test.each([
    ["eu,us", '`values` string "eu,us": expected name=value,value of a list dimension, e.g. "region=eu,us"'],
    ["zone=eu", '`values` "zone=eu": "zone" is not a list dimension; expected one of "region", "city", e.g. "region=eu,us"'],
    [
      "date=2026-01-01",
      '`values` "date=2026-01-01": "date" is the time dimension (give its range as the window); expected one of "region", "city", e.g. "region=eu,us"',
    ],
    ["region=eu,mars", '`values` "region=eu,mars": "mars" is not a declared value; expected some of eu, us, apac'],
    ["region=", '`values` "region=": "" is not a declared value; expected some of eu, us, apac'],
  ])("refuses %j", (text, message) => {
    expect(partitionMessage(() => parseMultiValues(lists(), [text]))).toBe(message);
  });
});
