// Type tests of multi partitions (issue 36): `expectTypeOf` checks nothing at runtime; `tsc`
// (npm run typecheck) is what proves these. A multi asset's `context.partition` is a
// MultiPartition whose `keys` are its dimensions' names, not null unless windows are allowed.
import { describe, expect, expectTypeOf, it } from "vitest";
import * as il from "../../src/index.js";

const dimensions = () => ({
  date: new il.TimePartitionConfig({ column: "date" }),
  region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
});

describe("multi partition types", () => {
  it("types ctx.partition.keys by the dimensions' names", () => {
    il.asset({
      key: "stock",
      partitioning: new il.MultiPartitionConfig(dimensions()),
      run(ctx) {
        expectTypeOf(ctx.partition).toEqualTypeOf<il.MultiPartition<"date" | "region">>();
        const { date, region } = ctx.partition.keys;
        expectTypeOf(date).toEqualTypeOf<string>();
        expectTypeOf(region).toEqualTypeOf<string>();
        // @ts-expect-error: no such dimension
        void ctx.partition.keys.market;
        expectTypeOf(ctx.partitionDate).toEqualTypeOf<Date>();
        return [{ date, region }];
      },
    });
    expect(true).toBe(true);
  });

  it("may be null when the partitioning allows windows", () => {
    il.asset({
      key: "stock",
      partitioning: new il.MultiPartitionConfig(dimensions(), { allowWindow: true }),
      run(ctx) {
        expectTypeOf(ctx.partition).toEqualTypeOf<il.MultiPartition<"date" | "region"> | null>();
        return [];
      },
    });
    expect(true).toBe(true);
  });

  it("leaves the other kinds as they were: a Partition or null", () => {
    il.asset({
      key: "daily",
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      run(ctx) {
        expectTypeOf(ctx.partition).toEqualTypeOf<il.Partition | null>();
        return [];
      },
    });
    il.asset({
      key: "plain",
      run(ctx) {
        expectTypeOf(ctx.partition).toEqualTypeOf<il.Partition | null>();
        return [];
      },
    });
    expect(true).toBe(true);
  });

  it("types the keys of a partition made from a config", () => {
    const config = new il.MultiPartitionConfig(dimensions());
    expectTypeOf(config.fromKey("2026-01-05|eu").keys).toEqualTypeOf<Readonly<Record<"date" | "region", string>>>();
    expect(config.fromKey("2026-01-05|eu").keys).toEqual({ date: "2026-01-05", region: "eu" });
  });
});
