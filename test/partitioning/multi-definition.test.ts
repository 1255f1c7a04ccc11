// A multi partitioning's definition (the catalog's plain JSON) reads back through the kinds'
// registry, and `compatible` / `sameLists` say which edges accept the same windows (issue 36).
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  ListPartitionConfig,
  MultiPartitionConfig,
  PartitionConfig,
  PartitionError,
  TimeGranularity,
  TimePartitionConfig,
} from "../../src/index.js";
import type { PartitionDefinition } from "../../src/index.js";
import { errorOf } from "../support/assertions.js";

const region = (values = ["eu", "us", "apac"], column = "region") => new ListPartitionConfig({ column, values });
const day = (options: { column?: string; start?: string } = {}) =>
  new TimePartitionConfig({ column: options.column ?? "date", ...(options.start ? { start: options.start } : {}) });

describe("MultiPartitionConfig: definition", () => {
  const cfg = new MultiPartitionConfig(
    {
      date: new TimePartitionConfig({ column: "date", granularity: TimeGranularity.WEEK, start: "2026-01-05" }),
      region: region(),
      channel: region(["web", "app"], "channel"),
    },
    { allowWindow: true },
  );

  it("is plain JSON naming each dimension with its own definition, in declared order", () => {
    expect(cfg.toDefinition()).toEqual({
      kind: "multi",
      column: "date|region|channel",
      allowWindow: true,
      dimensions: [
        { name: "date", definition: { kind: "time", column: "date", granularity: "week", allowWindow: false, start: "2026-W02" } },
        { name: "region", definition: { kind: "list", column: "region", values: ["eu", "us", "apac"], allowWindow: false } },
        { name: "channel", definition: { kind: "list", column: "channel", values: ["web", "app"], allowWindow: false } },
      ],
    });
  });

  it("round-trips through JSON and the registry", () => {
    const back = PartitionConfig.fromDefinition(JSON.parse(JSON.stringify(cfg.toDefinition())) as PartitionDefinition);
    expect(back).toBeInstanceOf(MultiPartitionConfig);
    expect(back.toDefinition()).toEqual(cfg.toDefinition());
    expect(back.compatible(cfg)).toBe(true);
    const multi = back as MultiPartitionConfig;
    expect(multi.shape).toBe("date|region|channel");
    expect(multi.timeDimension!.config.start).toEqual(cfg.timeDimension!.config.start);
    expect(multi.fromKey("2026-W10|us|app").key).toBe("2026-W10|us|app");
  });

  it("round-trips a partitioning of lists only", () => {
    const lists = new MultiPartitionConfig({ region: region(), channel: region(["web"], "channel") });
    const back = PartitionConfig.fromDefinition(lists.toDefinition()) as MultiPartitionConfig;
    expect(back.toDefinition()).toEqual(lists.toDefinition());
    expect(back.all().keys).toEqual(["eu|web", "us|web", "apac|web"]);
  });

  it("refuses a definition without its dimensions, naming what is expected", () => {
    const bare = { kind: "multi", column: "date|region", allowWindow: false };
    let error = errorOf(() => PartitionConfig.fromDefinition(bare));
    expect(error).toBeInstanceOf(PartitionError);
    expect(error.message).toBe(
      'multi partitioning definition: expected "dimensions" to be an array of { name, definition }, got undefined',
    );
    error = errorOf(() => PartitionConfig.fromDefinition({ ...bare, dimensions: [{ name: "date" }] }));
    expect(error.message).toBe(
      'multi partitioning definition: expected "dimensions" to be an array of { name, definition }, got object {"name":"date"}',
    );
  });

  it("refuses a definition whose dimensions break the rules, as the constructor does", () => {
    const two = {
      kind: "multi",
      column: "a|b",
      allowWindow: false,
      dimensions: [
        { name: "a", definition: day({ column: "a" }).toDefinition() },
        { name: "b", definition: day({ column: "b" }).toDefinition() },
      ],
    };
    expect(errorOf(() => PartitionConfig.fromDefinition(two))).toBeInstanceOf(ConfigError);
  });
});

describe("MultiPartitionConfig: compatible and sameLists", () => {
  const base = new MultiPartitionConfig({ date: day({ start: "2026-01-01" }), region: region() });

  it("is compatible with the same dimensions whatever the columns, start and allowWindow", () => {
    const other = new MultiPartitionConfig({ date: day({ column: "day" }), region: region(undefined, "area") }, { allowWindow: true });
    expect(base.compatible(other)).toBe(true);
    expect(other.compatible(base)).toBe(true);
  });

  it("is not compatible with another granularity, other values, other names, another order or another kind", () => {
    const monthly = new MultiPartitionConfig({
      date: new TimePartitionConfig({ column: "date", granularity: TimeGranularity.MONTH }),
      region: region(),
    });
    const fewer = new MultiPartitionConfig({ date: day(), region: region(["eu", "us"]) });
    const reordered = new MultiPartitionConfig({ date: day(), region: region(["us", "eu", "apac"]) });
    const renamed = new MultiPartitionConfig({ day: day(), region: region() });
    const swapped = new MultiPartitionConfig({ region: region(), date: day() });
    for (const other of [monthly, fewer, reordered, renamed, swapped, day(), region()]) {
      expect(base.compatible(other)).toBe(false);
    }
    expect(day().compatible(base)).toBe(false);
    expect(region().compatible(base)).toBe(false);
  });

  it("has the same lists as a multi partitioning of another granularity: each value reads its own", () => {
    const monthly = new MultiPartitionConfig({
      month: new TimePartitionConfig({ column: "month", granularity: TimeGranularity.MONTH }),
      region: region(),
    });
    expect(base.sameLists(monthly)).toBe(true);
    expect(base.sameLists(new MultiPartitionConfig({ date: day(), region: region(["eu", "us"]) }))).toBe(false);
    expect(base.sameLists(new MultiPartitionConfig({ date: day(), area: region(undefined, "area") }))).toBe(false);
    expect(base.sameLists(region())).toBe(false);
  });

  it("describes its dimensions for messages", () => {
    expect(base.describe()).toBe("date (day) | region (eu, us, apac)");
  });
});
