// Multi partitions in the file stores: nested hive folders in declared order, one ledger per
// table keyed by the multi key, DuckDB reading them with one column per dimension, drops that
// remove the nested folders.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, FileDestination, IOContext, LocalObjectStoreDestination, type Destination } from "../../src/destination/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import { stock, stockConfig, stockRows, stockSchema } from "../contract/multi.js";
import { makeTempDir } from "../contract/temp-dir.js";
import { useDuckDB } from "../support/duckdb.js";

const duckdb = useDuckDB();
let dir: { path: string; remove(): Promise<void> };

beforeEach(async () => {
  dir = await makeTempDir("interloper-multi-");
});
afterEach(async () => {
  await dir.remove();
});

const ctx = (window: PartitionWindow | Partition | null) =>
  new IOContext({ asset: stock, window, schema: stockSchema, metadata: { runId: "r" } });
const twoDays = () => stockConfig.window("2026-01-05", "2026-01-06");

async function rowsOf(sql: string): Promise<unknown[][]> {
  return (await duckdb().runAndReadAll(sql)).getRowsJson() as unknown[][];
}

const stores: Array<[string, (base: string) => Destination, string]> = [
  ["CSVDestination", (basePath) => new CSVDestination({ basePath }), "data.csv"],
  ["FileDestination", (basePath) => new FileDestination({ basePath }), "data.v8"],
  ["LocalObjectStoreDestination (parquet)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "parquet" }), "data.parquet"],
  ["LocalObjectStoreDestination (csv)", (basePath) => new LocalObjectStoreDestination({ basePath, format: "csv" }), "data.csv"],
];

describe.each(stores)("%s: multi partitions as nested hive folders", (_name, make, file) => {
  it("lays out date=.../region=.../ in declared order, one ledger for the table keyed by the multi key", async () => {
    const dest = make(dir.path);
    await dest.write(ctx(twoDays()), stockRows());
    const table = join(dir.path, "shop", "stock");
    expect(readdirSync(table).filter((name) => !name.startsWith("."))).toEqual(["date=2026-01-05", "date=2026-01-06"]);
    expect(readdirSync(join(table, "date=2026-01-05")).sort()).toEqual(["region=apac", "region=eu", "region=us"]);
    expect(readdirSync(join(table, "date=2026-01-05", "region=eu"))).toContain(file);
    // The day folders hold no ledger of their own: the table's holds a line per combination.
    expect(readdirSync(join(table, "date=2026-01-05")).filter((name) => name.startsWith("."))).toEqual([]);
    const ledger = readFileSync(join(table, `.${file}.ledger`), "utf8");
    expect(ledger).toContain('"date=2026-01-05/region=eu"');
    expect(await dest.partitionRowCounts(ctx(null))).toMatchObject({ "2026-01-05|eu": 2, "2026-01-06|apac": 1 });
    // The counts came from those lines: a file counted by a read would have had a line appended.
    expect(readFileSync(join(table, `.${file}.ledger`), "utf8")).toBe(ledger);
  });

  it("drops the asset with every nested folder", async () => {
    const dest = make(dir.path);
    await dest.write(ctx(twoDays()), stockRows());
    expect(await dest.describeDrop(ctx(null))).toMatchObject({ partitions: 6, exists: true });
    await dest.dropAsset!(ctx(null));
    expect(existsSync(join(dir.path, "shop", "stock"))).toBe(false);
    expect(await dest.partitionRowCounts(ctx(null))).toEqual({});
  });
});

describe("DuckDB reads multi partitions with hive partitioning", () => {
  const expected = [
    ["2026-01-05", "eu", "3"],
    ["2026-01-05", "eu", "6"],
    ["2026-01-05", "us", "5"],
    ["2026-01-05", "apac", "2"],
    ["2026-01-06", "eu", "4"],
    ["2026-01-06", "us", "1"],
    ["2026-01-06", "apac", "7"],
  ];
  const order = `ORDER BY "date", CASE region WHEN 'eu' THEN 0 WHEN 'us' THEN 1 ELSE 2 END, sku`;

  it("Parquet written by the local object store: the rows with each dimension's column", async () => {
    await new LocalObjectStoreDestination({ basePath: dir.path, format: "parquet" }).write(ctx(twoDays()), stockRows());
    const glob = `${dir.path}/shop/stock/*/*/data.parquet`.replaceAll("\\", "/");
    const rows = await rowsOf(`SELECT "date", region, sku FROM read_parquet('${glob}', hive_partitioning = true) ${order}`);
    expect(rows).toEqual(expected);
    const typed = await duckdb().runAndReadAll(`SELECT "date", region FROM read_parquet('${glob}', hive_partitioning = true) LIMIT 0`);
    expect(typed.columnTypes().map(String)).toEqual(["DATE", "VARCHAR"]);
  });

  it("CSV written by CSVDestination: the rows with each dimension's column", async () => {
    await new CSVDestination({ basePath: dir.path }).write(ctx(twoDays()), stockRows());
    const glob = `${dir.path}/shop/stock/*/*/data.csv`.replaceAll("\\", "/");
    const rows = await rowsOf(`SELECT "date"::VARCHAR, region, sku FROM read_csv('${glob}', hive_partitioning = true) ${order}`);
    expect(rows).toEqual(expected);
  });
});
