import { afterEach, describe, expect, it } from "vitest";
import { IOContext, MemoryDestination } from "../../src/destination/index.js";
import type { AssetRef } from "../../src/destination/index.js";
import { DataNotFoundError } from "../../src/errors.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import { rejectionOf } from "../support/assertions.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const jan1 = new TimePartitionWindow("2026-01-01", "2026-01-01");

function ctx(asset: AssetRef, window: PartitionWindow | Partition | null): IOContext {
  return new IOContext({ asset, window, schema: null, metadata: { runId: "r1" } });
}

describe("MemoryDestination", () => {
  afterEach(() => {
    MemoryDestination.clear();
  });

  it("shares one store across instances", async () => {
    const rows: Row[] = [{ date: "2026-01-01", id: 1 }];
    await new MemoryDestination().write(ctx(orders, jan1), rows);
    const other = new MemoryDestination();
    expect(await other.read(ctx(orders, jan1))).toEqual(rows);
    expect(await other.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1 });
  });

  it("forgets everything on clear()", async () => {
    const memory = new MemoryDestination();
    await memory.write(ctx(orders, jan1), [{ date: "2026-01-01", id: 1 }]);
    await memory.write(ctx({ ...orders, partitioning: null }, null), "whole");
    MemoryDestination.clear();
    await expect(memory.read(ctx(orders, jan1))).rejects.toBeInstanceOf(DataNotFoundError);
    await expect(memory.read(ctx({ ...orders, partitioning: null }, null))).rejects.toBeInstanceOf(DataNotFoundError);
    expect(await memory.partitionRowCounts(ctx(orders, null))).toEqual({});
  });

  it("keys partitions {dataset}/{table}/{column}={key}, and {table}/... without a dataset", () => {
    const memory = new MemoryDestination();
    const partition = jan1.partitions[0]!;
    expect(memory.keyOf(ctx(orders, jan1), partition)).toBe("shop/orders/date=2026-01-01");
    expect(memory.keyOf(ctx({ ...orders, dataset: null }, jan1), partition)).toBe("orders/date=2026-01-01");
    expect(memory.keyOf(ctx({ ...orders, partitioning: null }, null), null)).toBe("shop/orders");
  });

  it("copies values in and out", async () => {
    const memory = new MemoryDestination();
    const value = { rows: [{ id: 1 }], when: new Date(Date.UTC(2026, 0, 1)), seen: new Set(["a"]) };
    const unpartitioned = ctx({ ...orders, partitioning: null }, null);
    await memory.write(unpartitioned, value);
    value.rows.push({ id: 2 });
    value.seen.add("b");

    const read = (await memory.read(unpartitioned)) as typeof value;
    expect(read).not.toBe(value);
    read.rows[0]!.id = 99;
    read.when.setTime(0);
    read.seen.clear();

    expect(await memory.read(unpartitioned)).toEqual({ rows: [{ id: 1 }], when: new Date(Date.UTC(2026, 0, 1)), seen: new Set(["a"]) });
  });

  it("throws DataNotFoundError naming the key never written", async () => {
    const memory = new MemoryDestination();
    const partitioned = await rejectionOf(memory.read(ctx(orders, jan1)));
    expect(partitioned).toBeInstanceOf(DataNotFoundError);
    expect((partitioned as Error).message).toContain("shop/orders/date=2026-01-01");

    const whole = await rejectionOf(memory.read(ctx({ ...orders, partitioning: null }, null)));
    expect(whole).toBeInstanceOf(DataNotFoundError);
    expect((whole as Error).message).toContain("shop/orders");
  });

  it("keeps tables whose names share a prefix apart, and the whole table apart from its partitions", async () => {
    const memory = new MemoryDestination();
    await memory.write(ctx(orders, jan1), [{ date: "2026-01-01", id: 1 }]);
    await memory.write(ctx({ ...orders, table: "orders_archive" }, jan1), [{ date: "2026-01-01" }, { date: "2026-01-01" }]);
    await memory.write(ctx({ ...orders, partitioning: null }, null), [{ id: "whole" }]);
    expect(await memory.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1 });
    expect(await memory.read(ctx(orders, jan1))).toEqual([{ date: "2026-01-01", id: 1 }]);
  });
});
