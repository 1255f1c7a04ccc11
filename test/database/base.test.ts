import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { DatabaseDestination, MySQLDestination, PostgresDestination, SQLiteDestination } from "../../src/destination/database/index.js";
import { loadDriver } from "../../src/destination/database/optional-driver.js";
import { wrapDriverError } from "../../src/destination/database/secrets.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { ConfigError } from "../../src/errors.js";
import { TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionFilter } from "../../src/partitioning/index.js";

class Minimal extends DatabaseDestination {
  insert(): void {}
  delete(_t: string, _d: string | null, _w: PartitionFilter | null): void {}
  select(): unknown {
    return [];
  }
  count(): Record<string, number> {
    return {};
  }
}

describe("DatabaseDestination", () => {
  it("refuses a subclass overriding writePartition without write, naming the class", () => {
    class PartitionWriter extends Minimal {
      override writePartition(_c: IOContext, _p: Partition | null, _d: unknown): Promise<void> {
        return Promise.resolve();
      }
    }
    expect(() => new PartitionWriter()).toThrow(ConfigError);
    expect(() => new PartitionWriter()).toThrow(/PartitionWriter overrides writePartition\(\) without write\(\)/);
  });

  it("refuses readPartition alone, and accepts a hook overridden together with its window method", () => {
    class PartitionReader extends Minimal {
      override readPartition(): Promise<unknown> {
        return Promise.resolve([]);
      }
    }
    class Both extends Minimal {
      override write(): Promise<void> {
        return Promise.resolve();
      }
      override writePartition(): Promise<void> {
        return Promise.resolve();
      }
    }
    expect(() => new PartitionReader()).toThrow(/PartitionReader overrides readPartition\(\) without read\(\)/);
    expect(() => new Both()).not.toThrow();
  });

  it("refuses, at run time, a subclass missing a dialect hook", () => {
    const Broken = class extends Minimal {} as unknown as new () => DatabaseDestination;
    Object.defineProperty(Broken.prototype, "count", { value: undefined });
    expect(() => new Broken()).toThrow(/does not implement count\(\)/);
  });

  it("counts a time partitioning by period, unless a subclass overrides count alone", async () => {
    const asset: AssetRef = {
      key: "shop.orders",
      table: "orders",
      dataset: "shop",
      partitioning: new TimePartitionConfig({ column: "date" }),
    };
    const context = new IOContext({ asset });
    const calls: string[] = [];
    class OwnCount extends SQLiteDestination {
      override async count(table: string, dataset: string | null, column: string): Promise<Record<string, number>> {
        calls.push(`count ${table}`);
        return { ...(await super.count(table, dataset, column)), "2026-01-09": 7 };
      }
    }
    class Both extends OwnCount {
      override async countPeriods(
        table: string,
        dataset: string | null,
        column: string,
        granularity: TimeGranularity,
      ): Promise<Record<string, number> | null> {
        calls.push(`countPeriods ${table}`);
        return super.countPeriods(table, dataset, column, granularity);
      }
    }
    for (const Destination of [OwnCount, Both]) {
      const destination = new Destination({ path: ":memory:" });
      await destination.write(context.withWindow(new TimePartitionWindow("2026-01-01", "2026-01-01", TimeGranularity.DAY)), [
        { date: "2026-01-01" },
      ]);
      calls.length = 0;
      const counts = await destination.partitionRowCounts(context);
      await destination.close();
      if (Destination === OwnCount) {
        expect(calls).toEqual(["count orders", "count _interloper_partitions"]);
        expect(counts).toEqual({ "2026-01-01": 1, "2026-01-09": 7 });
      } else {
        expect(calls).toEqual(["countPeriods orders", "count _interloper_partitions"]);
        // The extra value only count() gives is not asked for.
        expect(counts).toEqual({ "2026-01-01": 1 });
      }
    }
  });

  it("reports written data that lacks the partition column to the context's logger, one partition or a window, and writes it", async () => {
    const destination = new SQLiteDestination({ path: ":memory:" });
    const asset: AssetRef = {
      key: "shop.orders",
      table: "orders",
      dataset: "shop",
      partitioning: new TimePartitionConfig({ column: "date", allowWindow: true }),
    };
    const logged: Array<[string, string]> = [];
    const log = (level: string, message: string) => logged.push([level, message]);
    try {
      await destination.write(
        new IOContext({ asset, window: new TimePartitionWindow("2026-01-01", "2026-01-01", TimeGranularity.DAY), log }),
        [{ id: 1 }],
      );
      await destination.write(
        new IOContext({ asset, window: new TimePartitionWindow("2026-01-02", "2026-01-03", TimeGranularity.DAY), log }),
        [{ id: 2 }, { id: 3 }],
      );
      expect(logged).toEqual([
        [
          "warn",
          'asset "shop.orders": the data written to SQLite has no "date" column, so reads of partition 2026-01-01 will not find this row',
        ],
        [
          "warn",
          'asset "shop.orders": the data written to SQLite has no "date" column, so reads of the partitions of 2026-01-02..2026-01-03 will not find these 2 rows',
        ],
      ]);
      // Written: the partitions read back empty, as the warning says.
      expect(
        await destination.read(new IOContext({ asset, window: new TimePartitionWindow("2026-01-01", "2026-01-03", TimeGranularity.DAY) })),
      ).toEqual([]);
    } finally {
      await destination.close();
    }
  });

  it("outside a run, with no logger, the report is a process warning", async () => {
    const destination = new SQLiteDestination({ path: ":memory:" });
    const asset: AssetRef = {
      key: "shop.orders",
      table: "orders",
      dataset: "shop",
      partitioning: new TimePartitionConfig({ column: "date" }),
    };
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on("warning", listen);
    try {
      const context = new IOContext({ asset, window: new TimePartitionWindow("2026-01-01", "2026-01-01", TimeGranularity.DAY) });
      await destination.write(context, [{ id: 1 }]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", listen);
      await destination.close();
    }
    const ours = warnings.filter((w) => w.name === "InterloperWarning");
    expect(ours).toHaveLength(1);
    expect(ours[0]!.message).toContain('no "date" column');
  });
});

describe("drivers and secrets", () => {
  it("names a missing driver and how to install it", async () => {
    const error = await loadDriver("interloper-no-such-driver", "SomeDestination").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('"interloper-no-such-driver"');
    expect((error as Error).message).toContain("npm install interloper-no-such-driver");
  });

  const SECRET = "s3cr3t-Pa55";
  it.each([
    [
      "PostgresDestination",
      () => new PostgresDestination({ connection: { host: "db", port: 5432, user: "u", password: SECRET, database: "d" } }),
    ],
    ["PostgresDestination (url)", () => new PostgresDestination({ connection: { url: `postgres://u:${SECRET}@db:5432/d` } })],
    ["MySQLDestination", () => new MySQLDestination({ connection: { host: "db", user: "u", password: SECRET } })],
    ["MySQLDestination (url)", () => new MySQLDestination({ connection: { url: `mysql://u:${SECRET}@db/d` } })],
  ])("keeps the password out of toJSON and util.inspect (%s)", (_name, make) => {
    const destination = make();
    expect(JSON.stringify(destination)).not.toContain(SECRET);
    expect(inspect(destination, { depth: 10, showHidden: true })).not.toContain(SECRET);
    expect(String(destination)).not.toContain(SECRET);
  });

  it("keeps the password out of connection errors", async () => {
    // Port 1 refuses at once: the error comes from the driver, through the wrapper.
    const destination = new PostgresDestination({ connection: { url: `postgres://u:${SECRET}@127.0.0.1:1/d` } });
    const asset: AssetRef = { key: "a", table: "t", dataset: null, partitioning: null };
    const error = (await destination.read(new IOContext({ asset })).catch((e: unknown) => e)) as Error;
    await destination.close();
    expect(error).toBeInstanceOf(Error);
    expect(`${error.message} ${inspect(error, { depth: 10 })}`).not.toContain(SECRET);
  });

  it("removes passwords and URL credentials from a driver's message, keeping its code", () => {
    const redact = (text: string) => text.split(SECRET).join("***");
    const error = wrapDriverError(
      { code: "28P01", message: `bad login postgres://u:${SECRET}@h/d and ${SECRET}` },
      redact,
      "PostgreSQL connect",
    );
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toContain("postgres://u:***@h/d");
    expect((error as { driverCode?: string }).driverCode).toBe("28P01");
  });
});
