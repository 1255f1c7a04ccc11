// The rows the database load workloads (PostgreSQL, MariaDB) write: `count` orders spread over
// `days` daily partitions from 2026-01-01, every seventh note null, and the window and schema
// the destination is given for them.
import { type FieldSpec, IOContext, TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../../dist/index.js";

export type Order = { date: string; id: number; amount: number; note: string | null };

export const LOAD_FIELDS: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
  { name: "amount", type: "number", nullable: false },
  { name: "note", type: "string", nullable: true },
];

/** The ISO dates of `days` consecutive days from 2026-01-01. */
export function dayKeys(days: number): string[] {
  return Array.from({ length: days }, (_, d) => new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10));
}

export function loadRows(count: number, keys: readonly string[]): Order[] {
  return Array.from({ length: count }, (_, i) => ({
    date: keys[i % keys.length]!,
    id: i,
    amount: i * 0.25,
    note: i % 7 === 0 ? null : `note ${i}`,
  }));
}

/** The IOContext of one write of every day of `keys` to table `orders` of `dataset`. */
export function loadContext(dataset: string, keys: readonly string[]): IOContext {
  const asset = {
    key: "bench.orders",
    table: "orders",
    dataset,
    partitioning: new TimePartitionConfig({ column: "date", allowWindow: true }),
  };
  const window = new TimePartitionWindow(keys[0]!, keys.at(-1)!, TimeGranularity.DAY);
  return new IOContext({ asset, window, schema: LOAD_FIELDS });
}
