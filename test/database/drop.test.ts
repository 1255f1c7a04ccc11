// Issue 17 item 6: a database destination drops an asset's table, and its entries in the
// partition ledger, so that `materialize --full-refresh` gets past a column whose type changed;
// a table whose name the asset's is a prefix of (`orders_daily`) keeps its rows and its
// ledger entries. On SQLite, PostgreSQL and MariaDB.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IOContext, MySQLDestination, PostgresDestination, SQLiteDestination, type AssetRef } from "../../src/destination/index.js";
import type { DatabaseDestination } from "../../src/destination/index.js";
import { quoteBacktick, quoteDouble } from "../../src/destination/database/sql-dialect.js";
import { SchemaError } from "../../src/errors.js";
import { TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { makeTempDir } from "../contract/temp-dir.js";
import { MYSQL_CONNECTION, mysqlAvailable, PG_CONNECTION, postgresAvailable, uniqueName } from "./servers.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const days = (first: string, last: string) => new TimePartitionWindow(first, last, TimeGranularity.DAY);
const asNumber: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "amount", type: "number", nullable: true },
];
const asText: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "amount", type: "string", nullable: true },
];

interface Backend {
  readonly name: string;
  available(): Promise<boolean>;
  make(): Promise<{ destination: DatabaseDestination; location: string; cleanup(dataset: string): Promise<void> }>;
}

const run = (destination: DatabaseDestination, sql: string) => (destination as unknown as { run(sql: string): Promise<unknown> }).run(sql);

const BACKENDS: Backend[] = [
  {
    name: "SQLite",
    available: async () => true,
    async make() {
      const dir = await makeTempDir("interloper-drop-db-");
      const destination = new SQLiteDestination({ path: `${dir.path}/warehouse.db` });
      return {
        destination,
        location: `${dir.path}/warehouse.db`,
        cleanup: async () => {
          await destination.close();
          await dir.remove();
        },
      };
    },
  },
  {
    name: "PostgreSQL",
    available: postgresAvailable,
    async make() {
      const destination = new PostgresDestination({ connection: PG_CONNECTION });
      return {
        destination,
        location: destination.location,
        cleanup: async (dataset) => {
          await run(destination, `DROP SCHEMA IF EXISTS ${quoteDouble(dataset)} CASCADE`);
          await destination.close();
        },
      };
    },
  },
  {
    name: "MariaDB",
    available: mysqlAvailable,
    async make() {
      const destination = new MySQLDestination({ connection: MYSQL_CONNECTION });
      return {
        destination,
        location: destination.location,
        cleanup: async (dataset) => {
          await run(destination, `DROP DATABASE IF EXISTS ${quoteBacktick(dataset)}`);
          await destination.close();
        },
      };
    },
  },
];

describe.each(BACKENDS)("$name drops an asset's table", (backend) => {
  let up = false;
  let made: Awaited<ReturnType<Backend["make"]>>;
  const dataset = uniqueName("il_drop");
  const orders: AssetRef = { key: "shop.orders", table: "orders", dataset, partitioning: daily };
  const ordersDaily: AssetRef = { key: "shop.orders_daily", table: "orders_daily", dataset, partitioning: daily };
  const ctx = (asset: AssetRef, window: TimePartitionWindow | null, schema: FieldSpec[] | null = asNumber) =>
    new IOContext({ asset, window, schema, metadata: { runId: "t" } });

  beforeAll(async () => {
    up = await backend.available();
    if (up) made = await backend.make();
  });
  afterAll(async () => {
    if (up) await made.cleanup(dataset);
  });

  it("a changed column type is refused in place; after the drop (table and ledger entries) the new shape is written; the sibling is intact", async () => {
    if (!up) return;
    const dest = made.destination;
    expect(dest.missingDropHook()).toBeNull();
    // Nothing there yet: dropping is no error, and there is nothing to describe.
    expect(await dest.describeDrop(ctx(orders, null))).toEqual({
      what: `table ${dataset}.orders in ${made.location}`,
      partitions: 0,
      exists: false,
    });
    await dest.dropAsset!(ctx(orders, null));

    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), [
      { date: "2026-01-01", amount: 1.5 },
      { date: "2026-01-02", amount: 2.5 },
    ]);
    // A partition written with no rows lives in the ledger alone.
    await dest.write(ctx(orders, days("2026-01-03", "2026-01-03")), []);
    await dest.write(ctx(ordersDaily, days("2026-01-01", "2026-01-02")), [{ date: "2026-01-01", amount: 9 }]);
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1, "2026-01-02": 1, "2026-01-03": 0 });
    const before = await dest.partitionRowCounts(ctx(ordersDaily, null));
    expect(before).toEqual({ "2026-01-01": 1, "2026-01-02": 0 });

    await expect(
      dest.write(ctx(orders, days("2026-01-01", "2026-01-01"), asText), [{ date: "2026-01-01", amount: "one" }]),
    ).rejects.toThrow(SchemaError);

    expect(await dest.describeDrop(ctx(orders, null))).toEqual({
      what: `table ${dataset}.orders in ${made.location}`,
      partitions: 3,
      exists: true,
    });
    await dest.dropAsset!(ctx(orders, null));
    // No table, and no ledger entry left to show the empty partition as written.
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({});
    expect(await dest.describeDrop(ctx(orders, null))).toMatchObject({ partitions: 0, exists: false });
    expect(await dest.partitionRowCounts(ctx(ordersDaily, null))).toEqual(before);

    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01"), asText), [{ date: "2026-01-01", amount: "one" }]);
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-01"), asText))).toEqual([{ date: "2026-01-01", amount: "one" }]);
  });

  it("an unpartitioned table is dropped too", async () => {
    if (!up) return;
    const dest = made.destination;
    const totals: AssetRef = { key: "shop.totals", table: "totals", dataset, partitioning: null };
    const schema: FieldSpec[] = [{ name: "n", type: "integer", nullable: true }];
    await dest.write(ctx(totals, null, schema), [{ n: 1 }]);
    expect(await dest.describeDrop(ctx(totals, null, schema))).toEqual({
      what: `table ${dataset}.totals in ${made.location}`,
      partitions: null,
      exists: true,
    });
    await dest.dropAsset!(ctx(totals, null, schema));
    expect(await dest.describeDrop(ctx(totals, null, schema))).toMatchObject({ exists: false });
    await expect(dest.read(ctx(totals, null, schema))).rejects.toThrow("does not exist");
  });
});
