// Schemas inferred partition by partition (issue 17, item 5): a whole-number day is inferred as
// integer beside fractional days inferred as number; a downstream reading a window of them gets
// numbers, from CSV files, Parquet objects and SQLite alike, whichever partition ran last.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { mergeInferred } from "../../src/schema/index.js";

const temps: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

const AMOUNTS: Record<string, number> = { "2026-01-01": 1.5, "2026-01-02": 2, "2026-01-03": 3 };

const destinations: Array<[string, (dir: string) => il.Destination]> = [
  ["CSVDestination", (dir) => new il.CSVDestination({ basePath: dir })],
  ["LocalObjectStoreDestination (parquet)", (dir) => new il.LocalObjectStoreDestination({ basePath: dir })],
  ["LocalObjectStoreDestination (jsonl)", (dir) => new il.LocalObjectStoreDestination({ basePath: dir, format: "jsonl" })],
  [
    "SQLiteDestination",
    (dir) => {
      const sqlite = new il.SQLiteDestination({ path: join(dir, "w.db") });
      closers.push(() => sqlite.close());
      return sqlite;
    },
  ],
];

describe("a window of partitions inferred as integer and as number", () => {
  it.each(destinations)("a downstream reads them all as numbers (%s)", async (_name, make) => {
    const dir = await mkdtemp(join(tmpdir(), "interloper-widening-"));
    temps.push(dir);
    const revenue = il.asset({
      key: "revenue",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      run: (ctx) => [{ date: ctx.partition!.key, amount: AMOUNTS[ctx.partition!.key]! }],
    });
    const rolling = il.asset({
      key: "rolling",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      requires: { days: { asset: revenue, mapping: il.trailing(3) } },
      run: (ctx, { days }) => {
        const rows = days as Array<{ amount: unknown }>;
        return [
          {
            date: ctx.partition!.key,
            total: rows.reduce((sum, row) => sum + (row.amount as number), 0),
            types: rows.map((row) => typeof row.amount).join(","),
          },
        ];
      },
    });
    const shop = il.source({ key: "shop", assets: [revenue, rolling] })({ destinations: make(dir) });
    const dag = new il.DAG(shop);
    // Oldest first, one at a time: the last partition of revenue to run is a whole number.
    const result = await il.backfill(dag, il.TimePartitionWindow.parse("2026-01-01..2026-01-03"), { concurrency: 1, order: "oldest" });
    expect(result.status, JSON.stringify(result)).toBe("completed");
    const read = (await dag.find("shop.rolling")!.read(il.TimePartition.fromKey("2026-01-03"))) as Array<{
      total: unknown;
      types: unknown;
    }>;
    expect(read.map((r) => [Number(r.total), r.types])).toEqual([[6.5, "number,number,number"]]);
  });
});

describe("mergeInferred", () => {
  it("integer beside number is number; other fields keep the latest spec; new fields are added", () => {
    const a: il.FieldSpec[] = [
      { name: "date", type: "string", nullable: true },
      { name: "amount", type: "number", nullable: true },
    ];
    const b: il.FieldSpec[] = [
      { name: "date", type: "string", nullable: true },
      { name: "amount", type: "integer", nullable: true },
      { name: "note", type: "string", nullable: true },
    ];
    expect(mergeInferred(a, b)).toEqual([...a, b[2]]);
    expect(mergeInferred(b, a)).toEqual([...a, b[2]]);
    expect(mergeInferred(null, b)).toBe(b);
    expect(mergeInferred(a, null)).toBe(null);
    const changed: il.FieldSpec[] = [{ name: "amount", type: "string", nullable: true }];
    expect(mergeInferred(a, changed)).toEqual([a[0], changed[0]]);
  });
});
