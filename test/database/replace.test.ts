import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DatabaseError } from "../../src/destination/database/index.js";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { InterloperError, SchemaError } from "../../src/errors.js";
import { ListPartitionConfig, TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { dialects, type DialectHarness } from "./dialects.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const schema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
];
const ctx = (asset: AssetRef, window: PartitionWindow | Partition | null, s: readonly FieldSpec[] | null = schema) =>
  new IOContext({ asset, window, schema: s, metadata: { runId: "r" } });
const days = (a: string, b: string) => new TimePartitionWindow(a, b, TimeGranularity.DAY);
const rows = (date: string, ...ids: number[]): Row[] => ids.map((id) => ({ date, id }));

for (const dialect of await dialects()) {
  describe.skipIf(!dialect.available)(`replacing rows (${dialect.name})`, () => {
    let h: DialectHarness;
    beforeEach(() => {
      h = dialect.make();
    });
    afterEach(() => h.cleanup());

    const seed = async () => {
      await h.destination.write(ctx(orders, days("2026-01-01", "2026-01-03")), [
        ...rows("2026-01-01", 1, 2),
        ...rows("2026-01-02", 3),
        ...rows("2026-01-03", 4, 5),
      ]);
    };

    // Loads go in statements of many rows (SQLite: 100, fewer for wide tables): the rows on
    // either side of each statement's boundary, and the last short statement, must all land.
    it("loads 1,234 rows, and 130 rows of 400 columns, whole and in order", async () => {
      const many = rows("2026-01-01", ...Array.from({ length: 1_234 }, (_, i) => i));
      await h.destination.write(ctx(orders, days("2026-01-01", "2026-01-01")), many);
      expect(await h.destination.read(ctx(orders, days("2026-01-01", "2026-01-01")))).toEqual(many);

      const wideSchema: FieldSpec[] = [
        { name: "date", type: "date", nullable: false },
        ...Array.from({ length: 399 }, (_, j): FieldSpec => ({ name: `c${j}`, type: "integer", nullable: false })),
      ];
      const wide: AssetRef = { key: "shop.wide", table: "wide", dataset: "shop", partitioning: daily };
      const wideRows: Row[] = Array.from({ length: 130 }, (_, i) => ({
        date: "2026-01-01",
        ...Object.fromEntries(Array.from({ length: 399 }, (_, j) => [`c${j}`, i * 1_000 + j])),
      }));
      await h.destination.write(ctx(wide, days("2026-01-01", "2026-01-01"), wideSchema), wideRows);
      expect(await h.destination.read(ctx(wide, days("2026-01-01", "2026-01-01"), wideSchema))).toEqual(wideRows);
    });

    it("replaces every partition a window covers and leaves the rest", async () => {
      await seed();
      await h.destination.write(ctx(orders, days("2026-01-02", "2026-01-03")), rows("2026-01-03", 9));
      expect(await h.destination.read(ctx(orders, days("2026-01-01", "2026-01-03")))).toEqual([
        ...rows("2026-01-01", 1, 2),
        ...rows("2026-01-03", 9),
      ]);
      expect(await h.destination.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 0, "2026-01-03": 1 });
    });

    it("keeps the old rows when the insert fails after the delete (fault injected)", async () => {
      await seed();
      const real = h.destination.insert.bind(h.destination);
      h.destination.insert = async (table, dataset, data, context) => {
        if (table === "orders") throw new Error("injected failure after the delete");
        return real(table, dataset, data, context);
      };
      await expect(h.destination.write(ctx(orders, days("2026-01-01", "2026-01-02")), rows("2026-01-01", 7))).rejects.toThrow(/injected/);
      h.destination.insert = real;
      expect(await h.destination.read(ctx(orders, days("2026-01-01", "2026-01-03")))).toEqual([
        ...rows("2026-01-01", 1, 2),
        ...rows("2026-01-02", 3),
        ...rows("2026-01-03", 4, 5),
      ]);
    });

    // SQLite stores any value in any column, so only the servers can reject one.
    if (dialect.name !== "sqlite")
      it("keeps the old rows when the database rejects a value", async () => {
        await seed();
        // Not an integer: the server refuses it mid-load, after the delete ran.
        const bad = [...rows("2026-01-01", 8), { date: "2026-01-01", id: "not a number" }];
        const error = await h.destination.write(ctx(orders, days("2026-01-01", "2026-01-01")), bad).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DatabaseError);
        expect(await h.destination.read(ctx(orders, days("2026-01-01", "2026-01-01")))).toEqual(rows("2026-01-01", 1, 2));
      });

    it("keeps the old rows when a value is refused thousands of rows into the load, and goes on writing", async () => {
      const notes: AssetRef = { ...orders, key: "shop.notes", table: "notes" };
      const noteSchema: FieldSpec[] = [...schema, { name: "note", type: "string", nullable: true }];
      const jan1 = days("2026-01-01", "2026-01-01");
      const old: Row[] = [{ date: "2026-01-01", id: 1, note: "old" }];
      await h.destination.write(ctx(notes, jan1, noteSchema), old);
      // Past PostgreSQL's first COPY chunks and MySQL's first INSERT batches: sent, then undone.
      const many: Row[] = Array.from({ length: 5_000 }, (_, id) => ({ date: "2026-01-01", id, note: "new" }));
      many[4_321] = { date: "2026-01-01", id: -1, note: "half a pair: \uD83D" };
      const error = await h.destination.write(ctx(notes, jan1, noteSchema), many).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as Error).message).toMatch(
        /^(SQLite|PostgreSQL|MySQL): cannot write field "note" at row 4321: the string holds a lone UTF-16 surrogate \(\\uD83D at index 13\)/,
      );
      expect(await h.destination.read(ctx(notes, jan1, noteSchema))).toEqual(old);
      many[4_321] = { date: "2026-01-01", id: -1, note: "a whole pair: \uD83D\uDE00" };
      await h.destination.write(ctx(notes, jan1, noteSchema), many);
      expect(await h.destination.read(ctx(notes, jan1, noteSchema))).toEqual(many);
    });

    it("stores daily rows in monthly partitions, counted and read by month", async () => {
      const monthly: AssetRef = {
        ...orders,
        table: "monthly",
        partitioning: new TimePartitionConfig({ column: "date", granularity: TimeGranularity.MONTH, allowWindow: true }),
      };
      const window = new TimePartitionWindow("2026-01-01", "2026-03-01", TimeGranularity.MONTH);
      await h.destination.write(ctx(monthly, window), [
        ...rows("2026-01-31", 1),
        ...rows("2026-02-01", 2),
        ...rows("2026-02-28", 3),
        ...rows("2026-03-15", 4),
      ]);
      expect(await h.destination.partitionRowCounts(ctx(monthly, null))).toEqual({ "2026-01": 1, "2026-02": 2, "2026-03": 1 });
      // Rewriting February replaces all of its days, whatever dates the new rows carry.
      await h.destination.write(ctx(monthly, window.partitions[1]!), rows("2026-02-14", 5));
      expect(await h.destination.read(ctx(monthly, window))).toEqual([
        ...rows("2026-01-31", 1),
        ...rows("2026-02-14", 5),
        ...rows("2026-03-15", 4),
      ]);
    });

    it("replaces a window of list partitions by membership", async () => {
      const regions = new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"], allowWindow: true });
      const sales: AssetRef = { key: "shop.sales", table: "sales", dataset: "shop", partitioning: regions };
      const s: FieldSpec[] = [
        { name: "region", type: "string", nullable: false },
        { name: "n", type: "integer", nullable: false },
      ];
      await h.destination.write(ctx(sales, regions.all(), s), [
        { region: "eu", n: 1 },
        { region: "us", n: 2 },
        { region: "apac", n: 3 },
      ]);
      await h.destination.write(ctx(sales, regions.window("eu", "us"), s), [{ region: "us", n: 4 }]);
      expect(await h.destination.read(ctx(sales, regions.all(), s))).toEqual([
        { region: "us", n: 4 },
        { region: "apac", n: 3 },
      ]);
      expect(await h.destination.partitionRowCounts(ctx(sales, null))).toEqual({ eu: 0, us: 1, apac: 1 });
    });

    it("refuses non-tabular data with an error", async () => {
      await expect(h.destination.write(ctx(orders, null, null), "not a table")).rejects.toBeInstanceOf(InterloperError);
    });
  });
}
