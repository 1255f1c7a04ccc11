// Streamed writes (row batches, as a run with a stream gives them) over a multi window: each
// batch's rows routed by every dimension's column, a row of no combination refused before any
// partition is replaced.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CSVDestination, IOContext, MemoryDestination, type Destination } from "../../src/destination/index.js";
import { writeStream } from "../../src/destination/stream/write-stream.js";
import { PartitionError } from "../../src/errors.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import { STOCK_COUNTS, stock, stockConfig, stockRows, stockSchema } from "../contract/multi.js";
import { makeTempDir } from "../contract/temp-dir.js";

let dir: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  dir = await makeTempDir("interloper-multi-stream-");
});
afterEach(async () => {
  MemoryDestination.clear();
  await dir.remove();
});

const ctx = (window: PartitionWindow | Partition | null) =>
  new IOContext({ asset: stock, window, schema: stockSchema, metadata: { runId: "r" } });

async function* batches(rows: Row[], size: number): AsyncIterable<Row[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

describe.each([
  ["CSVDestination (streams each partition)", () => new CSVDestination({ basePath: dir.path }) as Destination],
  ["MemoryDestination (collects each partition)", () => new MemoryDestination() as Destination],
])("%s", (_name, make) => {
  it("routes each batch's rows to its combination by every dimension's column", async () => {
    const dest = make();
    const window = stockConfig.window("2026-01-05", "2026-01-06");
    await writeStream(dest, ctx(window), batches(stockRows(), 2));
    expect(await dest.partitionRowCounts(ctx(null))).toEqual(STOCK_COUNTS);
    expect(await dest.read(ctx(stockConfig.partition("2026-01-05|eu")))).toEqual([
      { date: "2026-01-05", region: "eu", sku: 3, qty: 3 },
      { date: "2026-01-05", region: "eu", sku: 6, qty: -6.25 },
    ]);
  });

  it("refuses a row of no combination of the window, naming its values, and replaces nothing", async () => {
    const dest = make();
    const eu = stockConfig.partition("2026-01-05|eu");
    await dest.write(ctx(eu), [{ date: "2026-01-05", region: "eu", sku: 1, qty: 1 }]);
    const narrowed = stockConfig.window("2026-01-05", "2026-01-06", { region: ["eu"] });
    const rows = [{ date: "2026-01-05", region: "eu", sku: 2, qty: 2 }, ...stockRows().filter((row) => row["region"] === "us")];
    const error = await writeStream(dest, ctx(narrowed), batches(rows, 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartitionError);
    expect((error as Error).message).toContain('a row has "date", "region" values outside the window 2026-01-05..2026-01-06|eu');
    expect((error as Error).message).toContain('"region":"us"');
    expect(await dest.read(ctx(eu))).toEqual([{ date: "2026-01-05", region: "eu", sku: 1, qty: 1 }]);
  });

  it("checks a one-partition stream's rows against every dimension", async () => {
    const dest = make();
    const eu = stockConfig.partition("2026-01-05|eu");
    const stray = [{ date: "2026-01-05", region: "us", sku: 1, qty: 1 }];
    await expect(writeStream(dest, ctx(eu), batches(stray, 1))).rejects.toBeInstanceOf(PartitionError);
  });
});
