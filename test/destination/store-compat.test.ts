// Stores written before the destinations were split into store backends and formats
// (fixtures/store-0.1, written by the 0.1 release's dist with the same calls as `writeAll` below)
// must read back without a migration, and the same writes must give the same bytes on disk.
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, FileDestination, IOContext, LocalObjectStoreDestination } from "../../src/destination/index.js";
import type { AssetRef } from "../../src/destination/index.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { PartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";

const FIXTURE = join(import.meta.dirname, "fixtures/store-0.1");
const FORMATS = ["csv", "jsonl", "parquet"] as const;
const DAYS = ["2026-01-01", "2026-01-02"];

const daily = new TimePartitionConfig({ column: "date" });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const customers: AssetRef = { key: "shop.customers", table: "customers", dataset: "shop", partitioning: null };
const schema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
  { name: "note", type: "string", nullable: true },
  { name: "price", type: "number", nullable: true },
  { name: "tags", type: "json", nullable: true },
];
const orderRows = (day: string): Row[] => [
  { date: day, id: 1, note: 'a, "quoted"\nline', price: 1.5, tags: { a: [1, 2] } },
  { date: day, id: 2, note: "", price: null, tags: null },
  { date: day, id: 3, note: null, price: -0, tags: ["x"] },
];
const customerRows: Row[] = [
  { id: 1, name: "Ann" },
  { id: 2, name: "Bo" },
];
const fileValue = (day: string) => ({ day, when: new Date(`${day}T12:00:00Z`), big: 10n ** 20n, map: new Map([["k", [1, 2]]]) });

const ctx = (asset: AssetRef, window: PartitionWindow | null, fields: FieldSpec[] | null) =>
  new IOContext({ asset, window, schema: fields, metadata: { runId: "r1" } });
const dayContext = (day: string) => ctx(orders, new TimePartitionWindow(day, day), schema);

const destinations = (base: string) => ({
  csv: new CSVDestination({ basePath: join(base, "csv") }),
  file: new FileDestination({ basePath: join(base, "file") }),
  objects: FORMATS.map((format) => new LocalObjectStoreDestination({ basePath: join(base, `objects-${format}`), prefix: "lake", format })),
});

/** The writes that made the fixture. */
async function writeAll(base: string): Promise<void> {
  const { csv, file, objects } = destinations(base);
  for (const day of DAYS) {
    const context = dayContext(day);
    await csv.writePartition(context, context.partitions[0]!, orderRows(day));
    await file.writePartition(context, context.partitions[0]!, fileValue(day));
  }
  await csv.writePartition(ctx(customers, null, null), null, customerRows);
  await file.writePartition(ctx(customers, null, null), null, [1, "two", { three: 3 }]);
  for (const store of objects) {
    for (const day of DAYS) {
      const context = dayContext(day);
      await store.writePartition(context, context.partitions[0]!, orderRows(day));
    }
    await store.writePartition(ctx(customers, null, null), null, customerRows);
  }
}

/** The data files under a folder (ledgers name inodes, which differ from one write to the next). */
async function dataFiles(root: string): Promise<string[]> {
  return (await listFiles(root)).filter((name) => !name.split("/").pop()!.startsWith("."));
}

describe("a store written by 0.1", () => {
  let base: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    const dir = await makeTempDir("interloper-compat-");
    [base, remove] = [dir.path, dir.remove];
  });
  afterEach(() => remove());

  it("gets the same bytes from the same writes, file for file", async () => {
    await writeAll(base);
    const expected = await dataFiles(FIXTURE);
    expect(await dataFiles(base)).toEqual(expected);
    expect(expected).toHaveLength(15);
    for (const name of expected) expect([name, await readFile(join(base, name))]).toEqual([name, await readFile(join(FIXTURE, name))]);
  });

  it("gets CSVDestination's bytes from a streamed write too", async () => {
    const { csv } = destinations(base);
    const context = dayContext(DAYS[0]!);
    async function* batches() {
      const rows = orderRows(DAYS[0]!);
      yield rows.slice(0, 1);
      yield rows.slice(1);
    }
    await csv.writePartitionStream(context, context.partitions[0]!, batches());
    const name = "csv/shop/orders/date=2026-01-01/data.csv";
    expect(await readFile(join(base, name))).toEqual(await readFile(join(FIXTURE, name)));
  });

  it("reads back as written, and counts its rows, with no migration", async () => {
    await cp(FIXTURE, base, { recursive: true });
    const { csv, file, objects } = destinations(base);
    const window = new TimePartitionWindow(DAYS[0]!, DAYS[1]!);
    const both = ctx(orders, window, schema);
    const normalized = (rows: unknown) => (rows as Row[]).map((row) => ({ ...row, price: Object.is(row["price"], -0) ? 0 : row["price"] }));
    const plain = normalized(DAYS.flatMap(orderRows));
    expect(normalized(await csv.read(both))).toEqual(plain);
    expect(await csv.read(ctx(customers, null, null))).toEqual([
      { id: "1", name: "Ann" },
      { id: "2", name: "Bo" },
    ]);
    expect(await csv.partitionCounts(both)).toEqual({ counts: { "2026-01-01": 3, "2026-01-02": 3 }, unreadable: {}, records: {} });
    for (const day of DAYS) expect(await file.readPartition(dayContext(day), dayContext(day).partitions[0]!)).toEqual(fileValue(day));
    expect(await file.partitionCounts(both)).toEqual({ counts: { "2026-01-01": 1, "2026-01-02": 1 }, unreadable: {}, records: {} });
    expect(await file.read(ctx(customers, null, null))).toEqual([1, "two", { three: 3 }]);
    for (const store of objects) {
      expect(normalized(await store.read(both))).toEqual(plain);
      expect(await store.partitionCounts(both)).toEqual({ counts: { "2026-01-01": 3, "2026-01-02": 3 }, unreadable: {}, records: {} });
      expect(await store.read(ctx(customers, null, null))).toHaveLength(2);
    }
  });
});
