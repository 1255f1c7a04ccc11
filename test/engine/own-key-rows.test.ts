// A monthly asset whose rows carry their partition's own key (`month: "2026-05"`), as
// partitioning.md writes them, run through the DAG into real destinations (a CSV folder and a
// SQLite file, both at once) with the schema inferred from the rows: it was refused as "outside
// the window 2026-05"; now it is stored, read back and counted by coverage on each.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { coverage } from "../../src/api/coverage/index.js";

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("a monthly asset whose rows carry the month's key", () => {
  it("materializes, reads back and is covered on CSV and SQLite", async () => {
    const dir = await mkdtemp(join(tmpdir(), "interloper-own-key-rows-"));
    temps.push(dir);
    const sqlite = new il.SQLiteDestination({ path: join(dir, "warehouse.db") });
    const monthly = il.asset({
      key: "revenue",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH, start: "2026-04" }),
      run: (ctx) => [
        { month: ctx.partition!.key, revenue: 10 },
        { month: ctx.partition!.key, revenue: 20 },
      ],
    });
    const shop = il.source({ key: "shop", assets: [monthly] })({
      // Reads take the first destination; coverage counts every one.
      destinations: { db: sqlite, csv: new il.CSVDestination({ basePath: join(dir, "lake") }) },
    });
    try {
      const dag = new il.DAG(shop);
      for (const month of ["2026-04", "2026-05"]) {
        const result = await dag.materialize(il.TimePartition.fromKey(month));
        const failed = Object.values(result.assetExecutions).find((e) => e.error);
        expect(result.status, failed?.error?.message).toBe("completed");
      }
      const asset = dag.find("shop.revenue")!;
      expect(await asset.read(il.TimePartition.fromKey("2026-05"))).toEqual([
        { month: "2026-05", revenue: 10 },
        { month: "2026-05", revenue: 20 },
      ]);
      const [c] = await coverage(projectOf(il.defineConfig({ sources: [shop] })), "shop.revenue", {
        now: new Date("2026-06-15T00:00:00Z"),
      });
      expect(c!.partitions.map((p) => [p.key, p.status, p.rows])).toEqual([
        ["2026-04", "materialized", 2],
        ["2026-05", "materialized", 2],
      ]);
      expect(c!.missing).toBe(0);
    } finally {
      await sqlite.close();
    }
  });
});
