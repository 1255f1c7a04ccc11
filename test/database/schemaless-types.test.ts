// A read with no schema (declared or inferred in the run) must still give the values back in the
// types they were stored from. PostgreSQL's driver reads bigint and numeric as text and MySQL's
// BIGINT and DECIMAL likewise (so that no digit is lost), and MySQL's and SQLite's BOOLEAN as
// 0 and 1: a downstream sum of integers gave "012" on those servers and 3 on SQLite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restoreStored } from "../../src/destination/database/stored-values.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { TimePartition, TimePartitionConfig } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import { dialects, type Dialect } from "./dialects.js";

const asset: AssetRef = {
  key: "shop.orders",
  table: "orders",
  dataset: "shop",
  partitioning: new TimePartitionConfig({ column: "date" }),
};
const day = TimePartition.fromKey("2026-05-20");
// No schema: the write infers one from the rows, the read has none.
const context = new IOContext({ asset, window: day, metadata: { runId: "schemaless" } });
const BEYOND = 2n ** 53n + 1n;
const ROWS: Row[] = [
  { date: "2026-05-20", id: 0, qty: 1, big: BEYOND, price: 1.5, paid: true, note: "12", at: new Date("2026-05-20T13:45:00.123Z") },
  { date: "2026-05-20", id: 1, qty: 2, big: -BEYOND, price: 2, paid: false, note: null, at: null },
];

describe("restoreStored", () => {
  it("gives integers as numbers while they are safe, as bigints beyond; decimals as numbers; booleans from 0 and 1", () => {
    expect(restoreStored("integer", "12")).toBe(12);
    expect(restoreStored("integer", "-9007199254740991")).toBe(-9007199254740991);
    expect(restoreStored("integer", "9007199254740993")).toBe(9007199254740993n);
    expect(restoreStored("integer", 7n)).toBe(7);
    expect(restoreStored("decimal", "12.50")).toBe(12.5);
    expect(restoreStored("decimal", "123456789012345678901234567890")).toBe(123456789012345678901234567890n);
    expect(restoreStored("boolean", 1)).toBe(true);
    expect(restoreStored("boolean", 0)).toBe(false);
    expect(restoreStored("integer", null)).toBeNull();
    expect(restoreStored("instant", "2026-05-20T13:45:00.123Z")).toEqual(new Date("2026-05-20T13:45:00.123Z"));
  });
});

const found: Dialect[] = await dialects();
for (const dialect of found) {
  describe.skipIf(!dialect.available)(`${dialect.name}: a read without a schema`, () => {
    let harness: ReturnType<Dialect["make"]>;
    beforeAll(() => {
      harness = dialect.make();
    });
    afterAll(async () => {
      await harness.cleanup();
    });

    it("restores the stored columns' types: integers sum, bigints stay whole, booleans are booleans, Dates are Dates, text stays text", async () => {
      await harness.destination.writePartition(context, day, ROWS);
      const back = (await harness.destination.readPartition(context, day)) as Row[];
      expect(back).toEqual(ROWS);
      expect(back.reduce((sum, row) => sum + (row["qty"] as number), 0)).toBe(3);
    });
  });
}
