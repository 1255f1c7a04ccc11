// A `transaction()` or `snapshot()` override that never runs the function it is given (or
// returns before it completes) would have a write reported as done with nothing written: the
// base refuses it, failing the partition with a ConfigError that names the hook.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

function shop(destination: il.Destination): il.Source {
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date" }),
    run: (context) => [{ date: context.window!.partitions[0]!.key, id: 1 }],
  });
  return il.source({ key: "shop", assets: [orders] })({ destinations: destination });
}

const day = il.TimePartition.fromKey("2026-01-02");

describe("a DatabaseDestination unit hook that does not run its function", () => {
  it("fails the write of a transaction() that never calls it, and nothing reads as written", async () => {
    class Forgetful extends il.SQLiteDestination {
      override transaction<T>(): Promise<T> {
        return Promise.resolve(undefined as T);
      }
    }
    const destination = new Forgetful({ path: ":memory:" });
    try {
      const s = shop(destination);
      const result = await new il.DAG(s).materialize(day);
      expect(result.status).toBe("failed");
      const error = result.assetExecutions["shop.orders"]!.error!;
      expect(error.message).toContain(
        'Forgetful.transaction() never called the function it was given, so asset "shop.orders" was not written for 2026-01-02 (an override must return await fn())',
      );
      expect((error as { cause?: unknown }).cause).toBeInstanceOf(il.ConfigError);
      await expect(s.assets["orders"]!.materialize(day)).rejects.toThrow(/transaction\(\) never called the function it was given/);
      expect(await s.assets["orders"]!.partitionRowCounts()).toEqual({});
    } finally {
      await destination.close();
    }
  });

  it("fails a write whose transaction() returns before the function completes", async () => {
    class Hasty extends il.SQLiteDestination {
      override transaction<T>(fn: () => Promise<T>): Promise<T> {
        void fn().catch(() => undefined);
        return Promise.resolve(undefined as T);
      }
    }
    const destination = new Hasty({ path: ":memory:" });
    try {
      await expect(shop(destination).assets["orders"]!.materialize(day)).rejects.toThrow(
        'Hasty.transaction() returned before the function it was given completed, so asset "shop.orders" was not written for 2026-01-02',
      );
    } finally {
      await destination.close();
    }
  });

  it("fails a read whose snapshot() never calls its function", async () => {
    class Blind extends il.SQLiteDestination {
      override snapshot<T>(): Promise<T> {
        return Promise.resolve(undefined as T);
      }
    }
    const destination = new Blind({ path: ":memory:" });
    try {
      const s = shop(destination);
      await s.assets["orders"]!.materialize(day);
      await expect(s.assets["orders"]!.read(day)).rejects.toThrow(
        'Blind.snapshot() never called the function it was given, so asset "shop.orders" was not read',
      );
      await expect(s.assets["orders"]!.read(day)).rejects.toBeInstanceOf(il.ConfigError);
    } finally {
      await destination.close();
    }
  });
});
