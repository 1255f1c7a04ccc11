import { IOContext, type AssetRef, type Destination, type ObjectStoreDestination } from "../../src/destination/index.js";
import type { FormatName } from "../../src/destination/format/index.js";
import { destinationContract } from "../contract/destination.js";
import { ListPartitionConfig, TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";

export const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
export const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
export const regions = new ListPartitionConfig({ column: "region", values: ["eu", "us"], allowWindow: true });
export const sales: AssetRef = { key: "shop.sales", table: "sales", dataset: "shop", partitioning: regions };

/** Orders with a field of every type, the partition column first. */
export const orderSchema: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
  { name: "amount", type: "number", nullable: true },
  { name: "paid", type: "boolean", nullable: true },
  { name: "note", type: "string", nullable: true },
  { name: "at", type: "datetime", nullable: true },
  { name: "tags", type: "json", nullable: true },
];

export function orderRows(): Record<string, unknown>[] {
  return [
    { date: "2026-01-01", id: 1, amount: 9.5, paid: true, note: "first", at: new Date(Date.UTC(2026, 0, 1, 8)), tags: ["a"] },
    { date: "2026-01-01", id: 2, amount: null, paid: false, note: null, at: null, tags: null },
    {
      date: "2026-01-02",
      id: 9007199254740993n,
      amount: -1.25,
      paid: null,
      note: "ünï",
      at: new Date(Date.UTC(2026, 0, 2, 23, 59)),
      tags: { k: 1 },
    },
  ];
}

export function ctx(
  asset: AssetRef,
  window: PartitionWindow | Partition | null,
  schema: readonly FieldSpec[] | null = orderSchema,
): IOContext {
  return new IOContext({ asset, window, schema, metadata: { runId: "test" } });
}

export function days(first: string, last: string): TimePartitionWindow {
  return new TimePartitionWindow(first, last, TimeGranularity.DAY);
}

/**
 * The destination contract for a bucket-backed destination, once per format; every test gets a
 * prefix of its own, which is an empty store. Object stores hold tables only.
 */
export function bucketContract(name: string, make: (prefix: string, format: FormatName) => Destination): void {
  let run = 0;
  for (const format of ["parquet", "jsonl", "csv"] as const) {
    destinationContract(
      `${name} (${format})`,
      () => {
        const prefix = `run-${++run}`;
        const destination = make(prefix, format);
        return { destination, snapshot: () => objectSnapshot(destination as ObjectStoreDestination, prefix) };
      },
      { optOut: { nonTabular: true } },
    );
  }
}

/** The objects under a prefix with their metadata: a bucket's own listing, for the contract's snapshots. */
async function objectSnapshot(destination: ObjectStoreDestination, prefix: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for await (const object of destination.listObjects(prefix)) out.push([object.name, JSON.stringify(object.metadata)]);
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
