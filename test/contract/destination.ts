// The destination contract, stated once. Every destination runs it with one line in
// test/destination/contract.test.ts:
//
//   destinationContract("CSVDestination", inTempDir((basePath) => new CSVDestination({ basePath })), { optOut: { nonTabular: true } });
//
// Comparisons go through TableData's rows, never the native shape: a CSV file reads back as
// rows whatever shape was written, and that is allowed; losing or reordering a row is not.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IOContext } from "../../src/destination/index.js";
import type { AssetRef, Destination } from "../../src/destination/index.js";
import { DataNotFoundError, InterloperError, PartitionError } from "../../src/errors.js";
import { ListPartitionConfig, TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { checksContract } from "./checks.js";
import { multiPartitionCases } from "./multi.js";
import { fileSnapshot, makeTempDir } from "./temp-dir.js";

/** What a factory gives each test: a destination over empty storage, and how to tidy up. */
export interface Harness {
  readonly destination: Destination;
  cleanup?(): void | Promise<void>;
  /** What the storage holds, as its own listing shows it (files, objects): equal snapshots, nothing changed. */
  snapshot?(): Promise<unknown>;
}

/** Parts of the contract a backend declares it cannot do, each with a stated fallback. */
export interface ContractOptions {
  readonly optOut?: {
    /** Stores tables only: non-tabular data must then be refused with an error, never stored. */
    readonly nonTabular?: boolean;
  };
}

/** A factory for file-based destinations: a fresh temp folder per test, removed after it. */
export function inTempDir(make: (basePath: string) => Destination): () => Promise<Harness> {
  return async () => {
    const dir = await makeTempDir();
    return { destination: make(dir.path), cleanup: () => dir.remove(), snapshot: () => fileSnapshot(dir.path) };
  };
}

const RUN = { runId: "r1" } as const;

const dailyConfig = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: dailyConfig };
const refunds: AssetRef = { key: "shop.refunds", table: "refunds", dataset: "shop", partitioning: dailyConfig };
const customers: AssetRef = { key: "shop.customers", table: "customers", dataset: "shop", partitioning: null };

const orderSchema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
  { name: "item", type: "string", nullable: true },
];

/** One field of every type, all nullable, dates as ISO strings and datetimes as Dates. */
const typedSchema: FieldSpec[] = [
  { name: "s", type: "string", nullable: true },
  { name: "i", type: "integer", nullable: true },
  { name: "n", type: "number", nullable: true },
  { name: "b", type: "boolean", nullable: true },
  { name: "d", type: "date", nullable: true },
  { name: "t", type: "datetime", nullable: true },
  { name: "j", type: "json", nullable: true },
];

function typedRows(): Row[] {
  return [
    {
      s: "plain",
      i: 42,
      n: -12.75,
      b: true,
      d: "2026-01-05",
      t: new Date(Date.UTC(2026, 0, 5, 13, 45, 30, 123)),
      j: { a: [1, { b: null }], c: "x", deep: { list: [[1, 2], []] } },
    },
    {
      s: 'with, comma and "quotes"',
      // Past 2^53 a number has lost digits already: integers there are bigints.
      i: 9007199254740993n,
      n: 0.1,
      b: false,
      d: "1999-12-31",
      t: new Date("2000-02-29T23:59:59.999Z"),
      j: [1, "two", { three: [3] }],
    },
    { s: "negatives", i: -9007199254740995n, n: -3, b: true, d: "2024-02-29", t: new Date(Date.UTC(1970, 0, 1)), j: { n: -1.5 } },
    { s: null, i: null, n: null, b: null, d: null, t: null, j: null },
  ];
}

function context(asset: AssetRef, window: PartitionWindow | Partition | null, schema: readonly FieldSpec[] | null = null): IOContext {
  return new IOContext({ asset, window, schema, metadata: RUN });
}

function days(first: string, last: string): TimePartitionWindow {
  return new TimePartitionWindow(first, last, TimeGranularity.DAY);
}

/** The rows of any table value; fails the test when the value is not a table. */
function rowsOf(value: unknown): Row[] {
  const table = TableData.from(value);
  expect(table, `expected a table, got ${String(value)}`).not.toBeNull();
  return table!.rows;
}

function asColumns(rows: Row[]): unknown {
  return TableData.from(rows)!.to("columns");
}

/** Three days of orders, deliberately not in date order: the split must sort them out. */
function shuffledOrders(): Row[] {
  return [
    { date: "2026-01-02", id: 1, item: "b1" },
    { date: "2026-01-01", id: 2, item: "a1" },
    { date: "2026-01-03", id: 3, item: "c1" },
    { date: "2026-01-01", id: 4, item: "a2" },
    { date: "2026-01-02", id: 5, item: null },
  ];
}

const byId = (rows: Row[], ids: number[]): Row[] => ids.map((id) => rows.find((row) => row["id"] === id)!);

/** Values nothing can slice or join: a Map, a string and a class-free nested object. */
function nonTabularValues(): Array<[string, () => unknown, () => unknown]> {
  return [
    [
      "a Map",
      () =>
        new Map<string, unknown>([
          ["a", 1],
          ["b", { nested: [1, 2] }],
        ]),
      () => new Map([["other", true]]),
    ],
    ["a string", () => "just a string", () => "another string"],
    // Not every value is an array, so this is no columns table.
    ["a nested object", () => ({ meta: { version: 2, tags: ["x", "y"] }, note: "plain" }), () => ({ meta: { version: 3 } })],
  ];
}

/** States the destination contract for one destination; `factory` runs before every test. */
export function destinationContract(name: string, factory: () => Promise<Harness> | Harness, options: ContractOptions = {}): void {
  describe(`destination contract: ${name}`, () => {
    let harness: Harness | undefined;
    const dest = (): Destination => harness!.destination;

    beforeEach(async () => {
      harness = await factory();
    });
    afterEach(async () => {
      await harness?.cleanup?.();
      harness = undefined;
    });

    checksContract(() => harness!);

    describe("round trip", () => {
      it("restores every field type, nulls included, with context.schema set", async () => {
        const ctx = context(customers, null, typedSchema);
        await dest().write(ctx, typedRows());
        const back = rowsOf(await dest().read(ctx));
        expect(back).toEqual(typedRows());
        // Spelled out so a failure says which kind was lost, not just that two rows differ.
        expect(typeof back[1]!["i"]).toBe("bigint");
        expect(back[0]!["t"]).toBeInstanceOf(Date);
        expect(typeof back[0]!["d"]).toBe("string");
      });

      it("restores every field type through a partitioned window too", async () => {
        const schema: FieldSpec[] = [{ name: "date", type: "date", nullable: false }, ...typedSchema];
        const rows = typedRows().map((row, i) => ({ date: i % 2 === 0 ? "2026-01-01" : "2026-01-02", ...row }));
        const ctx = context(orders, days("2026-01-01", "2026-01-02"), schema);
        await dest().write(ctx, rows);
        expect(rowsOf(await dest().read(ctx))).toEqual([rows[0], rows[2], rows[1], rows[3]]);
      });

      it("writes and reads an unpartitioned asset, rows and columns alike", async () => {
        const rows: Row[] = [
          { id: 1, item: "a" },
          { id: 2, item: "b" },
        ];
        const schema: FieldSpec[] = [
          { name: "id", type: "integer", nullable: false },
          { name: "item", type: "string", nullable: true },
        ];
        const ctx = context(customers, null, schema);
        expect(ctx.partitions).toEqual([null]);
        await dest().write(ctx, rows);
        expect(rowsOf(await dest().read(ctx))).toEqual(rows);
        await dest().write(ctx, asColumns([{ id: 3, item: "c" }]));
        expect(rowsOf(await dest().read(ctx))).toEqual([{ id: 3, item: "c" }]);
      });
    });

    describe.each([
      ["rows", (rows: Row[]): unknown => rows],
      ["columns", asColumns],
    ] as const)("window write and read (%s)", (_shape, shape) => {
      it("splits a window write into one partition each and joins the read oldest first", async () => {
        const window = days("2026-01-01", "2026-01-03");
        const rows = shuffledOrders();
        await dest().write(context(orders, window, orderSchema), shape(rows));

        const [jan1, jan2, jan3] = window.partitions;
        expect(rowsOf(await dest().read(context(orders, jan1!, orderSchema)))).toEqual(byId(rows, [2, 4]));
        expect(rowsOf(await dest().read(context(orders, jan2!, orderSchema)))).toEqual(byId(rows, [1, 5]));
        expect(rowsOf(await dest().read(context(orders, jan3!, orderSchema)))).toEqual(byId(rows, [3]));
        expect(rowsOf(await dest().read(context(orders, window, orderSchema)))).toEqual(byId(rows, [2, 4, 1, 5, 3]));
        expect(await dest().partitionRowCounts(context(orders, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 2, "2026-01-03": 1 });
      });

      it("reads a narrower window than was written, oldest first", async () => {
        await dest().write(context(orders, days("2026-01-01", "2026-01-03"), orderSchema), shape(shuffledOrders()));
        const back = rowsOf(await dest().read(context(orders, days("2026-01-02", "2026-01-03"), orderSchema)));
        expect(back).toEqual(byId(shuffledOrders(), [1, 5, 3]));
      });

      it("stores daily rows in the monthly partition that holds them", async () => {
        const monthly: AssetRef = {
          ...orders,
          partitioning: new TimePartitionConfig({ column: "date", granularity: TimeGranularity.MONTH, allowWindow: true }),
        };
        const window = new TimePartitionWindow("2026-01-01", "2026-02-01", TimeGranularity.MONTH);
        const rows: Row[] = [
          { date: "2026-02-01", id: 1, item: "first of feb" },
          { date: "2026-01-31", id: 2, item: "last of jan" },
          { date: "2026-01-01", id: 3, item: "first of jan" },
          { date: "2026-02-28", id: 4, item: "last of feb" },
        ];
        await dest().write(context(monthly, window, orderSchema), shape(rows));
        expect(await dest().partitionRowCounts(context(monthly, null))).toEqual({ "2026-01": 2, "2026-02": 2 });
        expect(rowsOf(await dest().read(context(monthly, window.partitions[0]!, orderSchema)))).toEqual(byId(rows, [2, 3]));
        expect(rowsOf(await dest().read(context(monthly, window, orderSchema)))).toEqual(byId(rows, [2, 3, 1, 4]));
      });

      it("stores ISO timestamps in hourly partitions by their instant", async () => {
        const hourly: AssetRef = {
          key: "shop.clicks",
          table: "clicks",
          dataset: "shop",
          partitioning: new TimePartitionConfig({ column: "ts", granularity: TimeGranularity.HOUR, allowWindow: true }),
        };
        const schema: FieldSpec[] = [
          { name: "ts", type: "datetime", nullable: false, asDate: false },
          { name: "n", type: "integer", nullable: false },
        ];
        const window = new TimePartitionWindow("2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z", TimeGranularity.HOUR);
        const rows: Row[] = [
          { ts: "2026-03-01T11:59:59.999Z", n: 1 },
          { ts: "2026-03-01T10:00:00Z", n: 2 },
          // 11:00 UTC written in India's offset: the instant, not the wall clock, picks the hour.
          { ts: "2026-03-01T16:30:00+05:30", n: 3 },
          { ts: "2026-03-01T10:15:00.000Z", n: 4 },
        ];
        await dest().write(context(hourly, window, schema), shape(rows));
        expect(await dest().partitionRowCounts(context(hourly, null))).toEqual({ "2026-03-01T10": 2, "2026-03-01T11": 2 });
        expect(rowsOf(await dest().read(context(hourly, window, schema)))).toEqual([rows[1], rows[3], rows[0], rows[2]]);
      });

      it("stores list partitions and reads them in declared order", async () => {
        const regions = new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"], allowWindow: true });
        const sales: AssetRef = { key: "shop.sales", table: "sales", dataset: "shop", partitioning: regions };
        const schema: FieldSpec[] = [
          { name: "region", type: "string", nullable: false },
          { name: "amount", type: "number", nullable: false },
        ];
        const rows: Row[] = [
          { region: "us", amount: 1.5 },
          { region: "apac", amount: 2 },
          { region: "eu", amount: -3.25 },
          { region: "us", amount: 4 },
        ];
        const window = regions.all();
        await dest().write(context(sales, window, schema), shape(rows));
        expect(await dest().partitionRowCounts(context(sales, null))).toEqual({ eu: 1, us: 2, apac: 1 });
        // Row counts come in one order from every destination: declared values first, as
        // declared, then stored keys the partitioning no longer declares, as strings.
        expect(Object.keys(await dest().partitionRowCounts(context(sales, null)))).toEqual(["eu", "us", "apac"]);
        const narrowed = new ListPartitionConfig({ column: "region", values: ["us", "eu"] });
        expect(Object.keys(await dest().partitionRowCounts(context({ ...sales, partitioning: narrowed }, null)))).toEqual([
          "us",
          "eu",
          "apac",
        ]);
        expect(rowsOf(await dest().read(context(sales, regions.partition("us"), schema)))).toEqual([rows[0], rows[3]]);
        // Declared order, not alphabetical: "apac" comes last.
        expect(rowsOf(await dest().read(context(sales, window, schema)))).toEqual([rows[2], rows[0], rows[3], rows[1]]);
      });

      it("writes a partition whose slice has no rows as an empty partition", async () => {
        const window = days("2026-01-01", "2026-01-03");
        const rows = shuffledOrders().filter((row) => row["date"] !== "2026-01-02");
        await dest().write(context(orders, window, orderSchema), shape(rows));
        expect(await dest().partitionRowCounts(context(orders, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 0, "2026-01-03": 1 });
        expect(rowsOf(await dest().read(context(orders, window.partitions[1]!, orderSchema)))).toEqual([]);
        expect(rowsOf(await dest().read(context(orders, window, orderSchema)))).toEqual(byId(rows, [2, 4, 3]));
      });
    });

    describe("replace on rewrite", () => {
      it("replaces a rewritten partition fully and leaves the others untouched", async () => {
        const window = days("2026-01-01", "2026-01-03");
        await dest().write(context(orders, window, orderSchema), shuffledOrders());
        const jan1 = window.partitions[0]!;
        const replacement: Row[] = [{ date: "2026-01-01", id: 9, item: "new" }];
        await dest().write(context(orders, jan1, orderSchema), replacement);

        expect(rowsOf(await dest().read(context(orders, jan1, orderSchema)))).toEqual(replacement);
        expect(rowsOf(await dest().read(context(orders, window.partitions[1]!, orderSchema)))).toEqual(byId(shuffledOrders(), [1, 5]));
        expect(rowsOf(await dest().read(context(orders, window, orderSchema)))).toEqual([
          ...replacement,
          ...byId(shuffledOrders(), [1, 5, 3]),
        ]);
        expect(await dest().partitionRowCounts(context(orders, null))).toEqual({ "2026-01-01": 1, "2026-01-02": 2, "2026-01-03": 1 });
      });

      it("replaces a partition with more rows, then with none", async () => {
        const jan2 = days("2026-01-02", "2026-01-02");
        await dest().write(context(orders, jan2, orderSchema), [{ date: "2026-01-02", id: 1, item: "x" }]);
        const more = [1, 2, 3].map((id) => ({ date: "2026-01-02", id: id + 10, item: `m${id}` }));
        await dest().write(context(orders, jan2, orderSchema), more);
        expect(rowsOf(await dest().read(context(orders, jan2, orderSchema)))).toEqual(more);
        await dest().write(context(orders, jan2, orderSchema), []);
        expect(rowsOf(await dest().read(context(orders, jan2, orderSchema)))).toEqual([]);
        expect(await dest().partitionRowCounts(context(orders, null))).toEqual({ "2026-01-02": 0 });
      });

      it("rewrites the partitions a window covers, including ones that become empty", async () => {
        const window = days("2026-01-01", "2026-01-03");
        await dest().write(context(orders, window, orderSchema), shuffledOrders());
        await dest().write(context(orders, days("2026-01-02", "2026-01-03"), orderSchema), [{ date: "2026-01-03", id: 7, item: "only" }]);
        expect(await dest().partitionRowCounts(context(orders, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 0, "2026-01-03": 1 });
      });
    });

    describe("row counts", () => {
      it("counts every partition of a long window, empty ones as 0, per asset", async () => {
        const window = days("2026-01-01", "2026-03-01");
        expect(window.length).toBe(60);
        const rows: Row[] = [];
        const expected: Record<string, number> = {};
        window.partitions.forEach((partition, i) => {
          const n = (i * 7) % 5; // 0..4 rows, zeros included
          expected[partition.key] = n;
          for (let k = 0; k < n; k++) rows.push({ date: partition.key, id: i * 10 + k, item: null });
        });
        await dest().write(context(orders, window, orderSchema), rows);
        await dest().write(context(refunds, days("2026-01-05", "2026-01-05"), orderSchema), [{ date: "2026-01-05", id: 1, item: "r" }]);

        const counts = await dest().partitionRowCounts(context(orders, null));
        expect(counts).toEqual(expected);
        expect(Object.keys(counts)).toEqual(window.partitions.map((p) => p.key));
        expect(await dest().partitionRowCounts(context(refunds, null))).toEqual({ "2026-01-05": 1 });
      });

      // Issue 41.18: counts kept in plain objects read these keys from Object.prototype: SQL
      // counts came out as text ("0function Object() { [native code] }1") and "__proto__" as none.
      it("counts, reads and lists list values named like Object.prototype's members", async () => {
        const values = ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty"];
        const names = new ListPartitionConfig({ column: "name", values, allowWindow: true });
        const asset: AssetRef = { key: "shop.names", table: "names", dataset: "shop", partitioning: names };
        const schema: FieldSpec[] = [
          { name: "name", type: "string", nullable: false },
          { name: "n", type: "integer", nullable: false },
        ];
        const rows: Row[] = values.flatMap((name, i) => Array.from({ length: i + 1 }, (_, n) => ({ name, n })));
        await dest().write(context(asset, names.all(), schema), rows);
        const expected = values.map((value, i) => [value, i + 1]);
        expect(Object.entries(await dest().partitionRowCounts(context(asset, null)))).toEqual(expected);
        expect(Object.entries((await dest().partitionCounts(context(asset, null))).counts)).toEqual(expected);
        for (const value of values)
          expect(rowsOf(await dest().read(context(asset, names.partition(value), schema)))).toEqual(
            rows.filter((row) => row["name"] === value),
          );
        expect(rowsOf(await dest().read(context(asset, names.all(), schema)))).toEqual(rows);
        // Rewritten empty, a value counts 0, not a prototype's member.
        await dest().write(context(asset, names.partition("constructor"), schema), []);
        expect((await dest().partitionRowCounts(context(asset, null)))["constructor"]).toBe(0);
      });

      it("reports nothing for an asset never written", async () => {
        expect(await dest().partitionRowCounts(context(orders, null))).toEqual({});
      });
    });

    describe("missing data", () => {
      it("throws DataNotFoundError naming the asset or path for a partition never written", async () => {
        const jan1 = days("2026-01-01", "2026-01-01");
        await dest().write(context(refunds, jan1, orderSchema), [{ date: "2026-01-01", id: 1, item: null }]);
        const error = await dest()
          .read(context(orders, jan1, orderSchema))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DataNotFoundError);
        expect((error as Error).message).toContain("orders");
        expect((error as Error).message).toContain("2026-01-01");
      });

      it("throws DataNotFoundError for an unpartitioned asset never written", async () => {
        const error = await dest()
          .read(context(customers, null))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DataNotFoundError);
        expect((error as Error).message).toContain("customers");
      });

      it("throws DataNotFoundError for a window with one partition never written", async () => {
        await dest().write(context(orders, days("2026-01-01", "2026-01-01"), orderSchema), [{ date: "2026-01-01", id: 1, item: null }]);
        await expect(dest().read(context(orders, days("2026-01-01", "2026-01-02"), orderSchema))).rejects.toBeInstanceOf(DataNotFoundError);
      });
    });

    describe("rows outside the window", () => {
      it.each([
        ["after the window", "2026-01-05"],
        ["before the window", "2025-12-31"],
        ["with no partition value", null],
      ])("refuses a row %s with PartitionError and writes nothing", async (_label, date) => {
        const jan1 = days("2026-01-01", "2026-01-01");
        const before: Row[] = [{ date: "2026-01-01", id: 1, item: "kept" }];
        await dest().write(context(orders, jan1, orderSchema), before);

        const rows: Row[] = [
          { date: "2026-01-01", id: 2, item: "a" },
          { date: "2026-01-02", id: 3, item: "b" },
          { date, id: 4, item: "stray" },
        ];
        await expect(dest().write(context(orders, days("2026-01-01", "2026-01-02"), orderSchema), rows)).rejects.toBeInstanceOf(
          PartitionError,
        );
        expect(rowsOf(await dest().read(context(orders, jan1, orderSchema)))).toEqual(before);
        await expect(dest().read(context(orders, days("2026-01-02", "2026-01-02"), orderSchema))).rejects.toBeInstanceOf(DataNotFoundError);
        expect(await dest().partitionRowCounts(context(orders, null))).toEqual({ "2026-01-01": 1 });
      });
    });

    if (options.optOut?.nonTabular) {
      describe("non-tabular data (opted out: tables only)", () => {
        it.each(nonTabularValues())("refuses %s with an error and stores nothing", async (_label, value) => {
          const window = days("2026-01-01", "2026-01-02");
          await expect(dest().write(context(orders, window), value())).rejects.toBeInstanceOf(InterloperError);
          await expect(dest().write(context(customers, null), value())).rejects.toBeInstanceOf(InterloperError);
          await expect(dest().read(context(orders, window.partitions[0]!))).rejects.toBeInstanceOf(DataNotFoundError);
          await expect(dest().read(context(customers, null))).rejects.toBeInstanceOf(DataNotFoundError);
          expect(await dest().partitionRowCounts(context(orders, null))).toEqual({});
        });
      });
    } else {
      describe("non-tabular data", () => {
        it.each(nonTabularValues())(
          "stores %s whole under each partition and reads a window back as an array, oldest first",
          async (_label, value, other) => {
            const window = days("2026-01-01", "2026-01-03");
            await dest().write(context(orders, window), value());
            expect(await dest().read(context(orders, window))).toEqual([value(), value(), value()]);
            expect(await dest().read(context(orders, window.partitions[1]!))).toEqual(value());
            expect(Object.keys(await dest().partitionRowCounts(context(orders, null)))).toEqual(window.partitions.map((p) => p.key));

            // A different value in the middle partition shows the read follows window order.
            await dest().write(context(orders, window.partitions[1]!), other());
            expect(await dest().read(context(orders, window))).toEqual([value(), other(), value()]);
          },
        );

        it.each(nonTabularValues())("stores %s for an unpartitioned asset", async (_label, value) => {
          await dest().write(context(customers, null), value());
          expect(await dest().read(context(customers, null))).toEqual(value());
        });
      });
    }

    multiPartitionCases(dest);

    describe("copies", () => {
      it("is not changed by mutating the written rows afterwards", async () => {
        const jan1 = days("2026-01-01", "2026-01-01");
        const rows: Row[] = [{ date: "2026-01-01", id: 1, item: "original" }];
        await dest().write(context(orders, jan1, orderSchema), rows);
        rows[0]!["item"] = "mutated";
        rows.push({ date: "2026-01-01", id: 2, item: "pushed" });
        expect(rowsOf(await dest().read(context(orders, jan1, orderSchema)))).toEqual([{ date: "2026-01-01", id: 1, item: "original" }]);
      });

      it("is not changed by mutating what a read returned", async () => {
        const window = days("2026-01-01", "2026-01-02");
        const ctx = context(orders, window, orderSchema);
        await dest().write(
          ctx,
          shuffledOrders().filter((row) => row["date"] !== "2026-01-03"),
        );
        const expected = rowsOf(await dest().read(ctx));

        const joined = rowsOf(await dest().read(ctx));
        joined[0]!["item"] = "mutated";
        joined.length = 0;
        const single = rowsOf(await dest().read(context(orders, window.partitions[0]!, orderSchema)));
        single[0]!["id"] = 999;
        single.push({ date: "2026-01-01", id: 1000, item: "pushed" });

        expect(rowsOf(await dest().read(ctx))).toEqual(expected);
      });

      if (!options.optOut?.nonTabular) {
        it("is not changed by mutating a non-tabular value before or after", async () => {
          const ctx = context(customers, null);
          const written = new Map<string, unknown>([["list", [1, 2]]]);
          await dest().write(ctx, written);
          written.set("added", true);
          const read = (await dest().read(ctx)) as Map<string, unknown[]>;
          read.get("list")!.push(3);
          read.delete("list");
          expect(await dest().read(ctx)).toEqual(new Map([["list", [1, 2]]]));
        });
      }
    });
  });
}
