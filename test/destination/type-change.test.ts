// Issue 32.7: a column whose type changed (total_ms, INTEGER in the warehouse, now text) used to
// be written to CSV, then refused by SQLite: `writing to warehouse failed (...); csv holds the
// new data`, `show` failing on the CSV side and coverage 32/32 complete, the two destinations
// holding different data. Now a destination that cannot take the data refuses it before any
// destination writes, so both keep the old data, and the error names `--full-refresh`.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { fullRefresh } from "../../src/api/full-refresh.js";
import { findAsset, projectOf } from "../../src/api/project.js";
import { DestinationWriteError } from "../../src/errors.js";
import { makeTempDir } from "../contract/temp-dir.js";

let base: string;
let remove: () => Promise<void>;
beforeEach(async () => ({ path: base, remove } = await makeTempDir("interloper-type-change-")));
afterEach(async () => remove());

it("a column type change is refused before any destination writes: CSV and SQLite keep the same data, and the error names --full-refresh", async () => {
  let total: (n: number) => unknown = (n) => n * 10;
  const runs = il.asset({
    key: "runs",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    run: (c) => [1, 2].map((id) => ({ date: c.partition!.key, id, total_ms: total(id) })),
  });
  const destinations = {
    csv: new il.CSVDestination({ basePath: join(base, "csv") }),
    warehouse: new il.SQLiteDestination({ path: join(base, "warehouse.db") }),
  };
  const project = projectOf(il.defineConfig({ sources: [il.source({ key: "ops", assets: [runs] })({ destinations })] }));
  await il.materialize(project, { window: "2026-01-01..2026-01-02" });
  const file = join(base, "csv", "ops", "runs", "date=2026-01-02", "data.csv");
  const before = await readFile(file, "utf8");

  total = (n) => `${n * 10} ms`;
  const outcome = await il.materialize(project, { partition: "2026-01-02" });
  expect(outcome.status).toBe("failed");
  const error = (outcome.result as il.RunResult).assetExecutions["ops.runs"]!.error!;
  expect(error).toBeInstanceOf(DestinationWriteError);
  expect((error as DestinationWriteError).written).toEqual([]);
  expect((error as DestinationWriteError).failedDestinations).toEqual(["warehouse"]);
  expect(error.message).toContain('column "total_ms" of table runs is INTEGER');
  expect(error.message).toContain("`materialize --full-refresh`");
  expect(error.message).not.toContain("holds the new data");
  // Nothing was written anywhere: CSV still holds what SQLite holds.
  expect(await readFile(file, "utf8")).toBe(before);
  const asset = findAsset(project, "ops.runs");
  const partition = il.TimePartition.fromKey("2026-01-02");
  const [csv, sqlite] = await Promise.all(asset.destinations.map((d) => d.readPartition(asset.ioContext(partition), partition)));
  const text = (rows: unknown) => (rows as Array<Record<string, unknown>>).map((r) => `${String(r["id"])}:${String(r["total_ms"])}`);
  expect(text(csv)).toEqual(["1:10", "2:20"]);
  expect(text(sqlite)).toEqual(text(csv));

  // The way out the error names: a full refresh rebuilds both in the new shape.
  expect((await fullRefresh(project, { window: "2026-01-01..2026-01-02" })).status).toBe("completed");
  expect(await readFile(file, "utf8")).toContain("20 ms");
  await destinations.warehouse.close();
});
