// The destination contract over multi partitions (a day crossed with a region), run by
// destinationContract for every destination: windows split by every dimension's column, one
// combination replaced alone, counts and records per multi key, refusals, drops.

import { describe, expect, it } from "vitest";
import { IOContext } from "../../src/destination/index.js";
import type { AssetRef, Destination } from "../../src/destination/index.js";
import { DataNotFoundError, PartitionError } from "../../src/errors.js";
import { ListPartitionConfig, MultiPartitionConfig, TimePartitionConfig } from "../../src/partitioning/index.js";
import type { MultiPartitionWindow, Partition, PartitionWindow } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";

export const stockConfig = new MultiPartitionConfig(
  {
    date: new TimePartitionConfig({ column: "date" }),
    region: new ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }),
  },
  { allowWindow: true },
);
export const stock: AssetRef = { key: "shop.stock", table: "stock", dataset: "shop", partitioning: stockConfig };
const other: AssetRef = { ...stock, key: "shop.other", table: "other" };

export const stockSchema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "region", type: "string", nullable: false },
  { name: "sku", type: "integer", nullable: false },
  { name: "qty", type: "number", nullable: true },
];

function context(
  asset: AssetRef,
  window: PartitionWindow | Partition | null,
  schema: readonly FieldSpec[] | null = stockSchema,
): IOContext {
  return new IOContext({ asset, window, schema, metadata: { runId: "r1" } });
}

function rowsOf(value: unknown): Row[] {
  const table = TableData.from(value);
  expect(table, `expected a table, got ${String(value)}`).not.toBeNull();
  return table!.rows;
}

/** Two days of every region, deliberately shuffled: the split must sort them out. */
export function stockRows(): Row[] {
  return [
    { date: "2026-01-06", region: "us", sku: 1, qty: 1.5 },
    { date: "2026-01-05", region: "apac", sku: 2, qty: null },
    { date: "2026-01-05", region: "eu", sku: 3, qty: 3 },
    { date: "2026-01-06", region: "eu", sku: 4, qty: 4 },
    { date: "2026-01-05", region: "us", sku: 5, qty: 5 },
    { date: "2026-01-05", region: "eu", sku: 6, qty: -6.25 },
    { date: "2026-01-06", region: "apac", sku: 7, qty: 7 },
  ];
}

/** The row count of each combination `stockRows` holds, in key order (days, then regions as declared). */
export const STOCK_COUNTS: Readonly<Record<string, number>> = {
  "2026-01-05|eu": 2,
  "2026-01-05|us": 1,
  "2026-01-05|apac": 1,
  "2026-01-06|eu": 1,
  "2026-01-06|us": 1,
  "2026-01-06|apac": 1,
};

const bySku = (rows: Row[], skus: number[]): Row[] => skus.map((sku) => rows.find((row) => row["sku"] === sku)!);
const key = (k: string) => stockConfig.partition(k);
const twoDays = (): MultiPartitionWindow => stockConfig.window("2026-01-05", "2026-01-06");

/** The multi-partition cases of the contract, over the destination `dest` gives. */
export function multiPartitionCases(dest: () => Destination): void {
  describe("multi partitions (date x region)", () => {
    it("splits a window write by every dimension's column and reads it back in window order, counted per multi key", async () => {
      const rows = stockRows();
      await dest().write(context(stock, twoDays()), rows);
      expect(rowsOf(await dest().read(context(stock, key("2026-01-05|eu"))))).toEqual(bySku(rows, [3, 6]));
      expect(rowsOf(await dest().read(context(stock, key("2026-01-06|apac"))))).toEqual(bySku(rows, [7]));
      expect(rowsOf(await dest().read(context(stock, twoDays())))).toEqual(bySku(rows, [3, 6, 5, 2, 4, 1, 7]));
      const counts = await dest().partitionRowCounts(context(stock, null));
      expect(counts).toEqual(STOCK_COUNTS);
      expect(Object.keys(counts)).toEqual(twoDays().keys);
    });

    it("splits a table of columns the same way", async () => {
      const rows = stockRows();
      await dest().write(context(stock, twoDays()), TableData.from(rows)!.to("columns"));
      expect(rowsOf(await dest().read(context(stock, key("2026-01-05|us"))))).toEqual(bySku(rows, [5]));
      expect(rowsOf(await dest().read(context(stock, twoDays())))).toEqual(bySku(rows, [3, 6, 5, 2, 4, 1, 7]));
    });

    it("refuses a one-combination write holding a row of another combination", async () => {
      const stray: Row[] = [
        { date: "2026-01-06", region: "apac", sku: 1, qty: 2 },
        { date: "2026-01-06", region: "eu", sku: 2, qty: 2 },
      ];
      await expect(dest().write(context(stock, key("2026-01-06|apac")), stray)).rejects.toBeInstanceOf(PartitionError);
      expect(await dest().partitionRowCounts(context(stock, null))).toEqual({});
    });

    it("stores a one-combination write whose rows leave the dimensions out under that combination", async () => {
      const schema = stockSchema.filter((field) => field.name !== "date" && field.name !== "region");
      await dest().write(context(stock, key("2026-01-06|apac"), schema), [{ sku: 1, qty: 2 }]);
      // A database keeps such rows without the columns it selects by (and warns): the combination is written all the same.
      expect(Object.keys(await dest().partitionRowCounts(context(stock, null)))).toEqual(["2026-01-06|apac"]);
    });

    it("writes a combination without rows as an empty partition, counted as 0", async () => {
      const rows = stockRows().filter((row) => row["region"] !== "us");
      await dest().write(context(stock, twoDays()), rows);
      const counts = await dest().partitionRowCounts(context(stock, null));
      expect(counts["2026-01-05|us"]).toBe(0);
      expect(counts["2026-01-06|us"]).toBe(0);
      expect(rowsOf(await dest().read(context(stock, key("2026-01-06|us"))))).toEqual([]);
    });

    it("replaces one combination alone: eu of a day, never us of that day nor eu of another", async () => {
      const rows = stockRows();
      await dest().write(context(stock, twoDays()), rows);
      const replacement: Row[] = [{ date: "2026-01-05", region: "eu", sku: 99, qty: 0 }];
      await dest().write(context(stock, key("2026-01-05|eu")), replacement);
      expect(rowsOf(await dest().read(context(stock, key("2026-01-05|eu"))))).toEqual(replacement);
      expect(rowsOf(await dest().read(context(stock, key("2026-01-05|us"))))).toEqual(bySku(rows, [5]));
      expect(rowsOf(await dest().read(context(stock, key("2026-01-06|eu"))))).toEqual(bySku(rows, [4]));
      expect(rowsOf(await dest().read(context(stock, twoDays())))).toEqual([...replacement, ...bySku(rows, [5, 2, 4, 1, 7])]);
      expect(await dest().partitionRowCounts(context(stock, null))).toMatchObject({ "2026-01-05|eu": 1, "2026-01-05|us": 1 });
    });

    it("rewrites only the combinations of a narrowed window", async () => {
      const rows = stockRows();
      await dest().write(context(stock, twoDays()), rows);
      const euOnly = stockConfig.window("2026-01-05", "2026-01-06", { region: ["eu"] });
      await dest().write(context(stock, euOnly), [{ date: "2026-01-06", region: "eu", sku: 40, qty: null }]);
      expect(await dest().partitionRowCounts(context(stock, null))).toEqual({ ...STOCK_COUNTS, "2026-01-05|eu": 0 });
      expect(rowsOf(await dest().read(context(stock, euOnly)))).toEqual([{ date: "2026-01-06", region: "eu", sku: 40, qty: null }]);
      expect(rowsOf(await dest().read(context(stock, key("2026-01-06|us"))))).toEqual(bySku(rows, [1]));
    });

    it.each([
      ["a value no list declares", { date: "2026-01-05", region: "mars", sku: 8, qty: 1 }],
      ["a day outside the window", { date: "2026-01-07", region: "eu", sku: 8, qty: 1 }],
      ["no region", { date: "2026-01-05", region: null, sku: 8, qty: 1 }],
    ])("refuses a row with %s with PartitionError and writes nothing", async (_label, stray) => {
      const before: Row[] = [{ date: "2026-01-05", region: "eu", sku: 1, qty: 1 }];
      await dest().write(context(stock, key("2026-01-05|eu")), before);
      const error = await dest()
        .write(context(stock, twoDays()), [...stockRows(), stray])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PartitionError);
      expect((error as Error).message).toContain('"region"');
      expect(rowsOf(await dest().read(context(stock, key("2026-01-05|eu"))))).toEqual(before);
      expect(await dest().partitionRowCounts(context(stock, null))).toEqual({ "2026-01-05|eu": 1 });
    });

    it("throws DataNotFoundError for a combination never written, and counts nothing of another asset", async () => {
      await dest().write(context(stock, key("2026-01-05|eu")), [{ date: "2026-01-05", region: "eu", sku: 1, qty: 1 }]);
      await expect(dest().read(context(stock, key("2026-01-05|us")))).rejects.toBeInstanceOf(DataNotFoundError);
      expect(await dest().partitionRowCounts(context(other, null))).toEqual({});
    });

    it("keeps a record per multi key", async (test) => {
      const d = dest();
      if (!d.materializations) {
        const reason = `${d.displayName} keeps no records (provenance unknown, as the contract allows)`;
        console.warn(`skipping "keeps a record per multi key": ${reason}`);
        return test.skip(reason);
      }
      await d.write(context(stock, twoDays()), stockRows());
      await d.write(context(stock, key("2026-01-05|eu")), [{ date: "2026-01-05", region: "eu", sku: 9, qty: 9 }]);
      const records = await d.materializations(context(stock, null));
      expect(Object.keys(records).sort()).toEqual([...twoDays().keys].sort());
      expect(records["2026-01-05|eu"]!.partition).toBe("2026-01-05|eu");
      expect(records["2026-01-05|eu"]!.rows).toBe(1);
      expect(records["2026-01-06|us"]!.rows).toBe(1);
      const narrowed = await d.materializations(context(stock, stockConfig.window("2026-01-06", "2026-01-06", { region: ["us"] })));
      expect(Object.keys(narrowed)).toEqual(["2026-01-06|us"]);
      const history = await d.materializationHistory!(context(stock, null), { partition: key("2026-01-05|eu"), limit: 10 });
      expect(history.map((r) => [r.partition, r.rows])).toEqual([
        ["2026-01-05|eu", 1],
        ["2026-01-05|eu", 2],
      ]);
    });

    it("drops every combination with the asset", async (test) => {
      const d = dest();
      const missing = d.missingDropHook();
      if (missing !== null || !d.dropAsset) {
        const reason = `${d.displayName} cannot drop an asset (it lacks ${missing ?? "dropAsset(context)"})`;
        console.warn(`skipping "drops every combination with the asset": ${reason}`);
        return test.skip(reason);
      }
      await d.write(context(stock, twoDays()), stockRows());
      await d.dropAsset(context(stock, null));
      expect(await d.partitionRowCounts(context(stock, null))).toEqual({});
      await expect(d.read(context(stock, key("2026-01-05|us")))).rejects.toBeInstanceOf(DataNotFoundError);
      if (d.materializations) expect(await d.materializations(context(stock, null))).toEqual({});
    });
  });
}
