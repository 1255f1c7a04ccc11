// Window writes of a stream: rows routed to per-partition writers as they arrive, partitions
// without rows written empty, and a row outside the window failing before anything is replaced.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { listFiles } from "../contract/temp-dir.js";
import { caught, RecordingDestination, tempDir } from "../engine/helpers.js";

const Sale = z.object({ date: z.iso.date(), sale_id: z.number().int(), amount: z.number(), sku: z.string() });
type Sale = z.output<typeof Sale>;

const DAYS = ["2025-03-01", "2025-03-02", "2025-03-03", "2025-03-04", "2025-03-05", "2025-03-06", "2025-03-07"];
const WEEK = new il.TimePartitionWindow(DAYS[0]!, DAYS[6]!);
/** Days of the week that get rows; the others must be written empty. */
const FILLED = [DAYS[0]!, DAYS[1]!, DAYS[2]!, DAYS[4]!, DAYS[5]!];

const sale = (date: string, id: number): Sale => ({ date, sale_id: id, amount: id / 8 + 0.01, sku: `sku-${id % 13}` });

/** A deterministic pseudo-random generator (mulberry32), so the interleaving is arbitrary but fixed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `perDay` sales for each filled day, in an arbitrary interleaved order; ids are unique across days. */
function interleaved(perDay: number, seed = 7, days = FILLED): Sale[] {
  const next = random(seed);
  const queues = days.map((date, d) => Array.from({ length: perDay }, (_, i) => sale(date, d * 1_000_000 + i)));
  const out: Sale[] = [];
  while (queues.some((q) => q.length > 0)) {
    const open = queues.filter((q) => q.length > 0);
    out.push(open[Math.floor(next() * open.length)]!.shift()!);
  }
  return out;
}

/** Emits rows as a mix of single rows and batches of varying sizes. */
async function* mixed(rows: readonly Sale[], seed = 3): AsyncGenerator<Sale | Sale[]> {
  const next = random(seed);
  let i = 0;
  while (i < rows.length) {
    if (next() < 0.3) {
      yield rows[i++]!;
    } else {
      const size = 1 + Math.floor(next() * 400);
      yield rows.slice(i, i + size);
      i += size;
    }
    if (next() < 0.1) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Every file below a folder with its bytes and modification time. */
async function snapshot(root: string): Promise<Record<string, { text: string; mtimeMs: number }>> {
  const out: Record<string, { text: string; mtimeMs: number }> = {};
  for (const file of await listFiles(root)) {
    const path = join(root, file);
    out[file] = { text: await readFile(path, "utf8"), mtimeMs: (await stat(path)).mtimeMs };
  }
  return out;
}

function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && out.length < 10; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}
const hasInChain = (error: unknown, type: new (...args: never[]) => Error) => chain(error).some((e) => e instanceof type);

/** A destination with a stream hook that keeps each partition's batches in memory. */
class StreamingMemory extends il.Destination {
  readonly stored = new Map<string, il.Row[]>();
  readonly opened: string[] = [];
  readonly writePartitionCalls: string[] = [];
  writePartition(_context: il.IOContext, partition: il.Partition | null, data: unknown): void {
    this.writePartitionCalls.push(partition?.key ?? "*");
    this.stored.set(partition?.key ?? "*", structuredClone(data as il.Row[]));
  }
  override async writePartitionStream(
    _context: il.IOContext,
    partition: il.Partition | null,
    batches: AsyncIterable<il.Row[]>,
  ): Promise<void> {
    this.opened.push(partition?.key ?? "*");
    const rows: il.Row[] = [];
    for await (const batch of batches) for (const row of batch) rows.push(structuredClone(row));
    this.stored.set(partition?.key ?? "*", rows);
  }
  readPartition(_context: il.IOContext, partition: il.Partition | null): unknown {
    const rows = this.stored.get(partition?.key ?? "*");
    if (!rows) throw new il.DataNotFoundError(`nothing at ${partition?.key}`);
    return structuredClone(rows);
  }
  partitionRowCounts(): Record<string, number> {
    return Object.fromEntries([...this.stored].map(([k, v]) => [k, v.length]));
  }
}

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  il.MemoryDestination.clear();
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

const weekly = () => new il.TimePartitionConfig({ column: "date", start: "2025-01-01", allowWindow: true });

/** A source with one window-allowing asset, its run swapped per materialization. */
function setup(destination: il.Destination, schema = true) {
  let produce: (window: il.PartitionWindow) => unknown = () => [];
  const def = il.asset({
    key: "sales",
    partitioning: weekly(),
    ...(schema ? { schema: Sale } : {}),
    run: (ctx) => produce(ctx.window!) as never,
  });
  const shop = il.source({ key: "shop", assets: [def] })({ destinations: destination });
  return {
    asset: shop.assets.sales,
    set(next: (window: il.PartitionWindow) => unknown) {
      produce = next;
    },
  };
}

describe("a window write of a stream to CSV", () => {
  it("routes interleaved rows to their partitions, keeping each partition's order, and writes empty days empty", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const t = setup(csv);
    const rows = interleaved(3_000);
    t.set(() => mixed(rows));
    await t.asset.materialize(WEEK);

    const counts = await t.asset.partitionRowCounts();
    expect(counts).toEqual(Object.fromEntries(DAYS.map((d) => [d, FILLED.includes(d) ? 3_000 : 0])));
    for (const d of DAYS) {
      const back = (await t.asset.read(new il.TimePartition(d))) as Sale[];
      expect(back, d).toEqual(rows.filter((r) => r.date === d));
    }
    // An empty day is a file holding the header only.
    const empty = await readFile(csv.pathOf(t.asset.ioContext(new il.TimePartition(DAYS[3]!)), new il.TimePartition(DAYS[3]!)), "utf8");
    expect(empty.trim()).toBe("date,sale_id,amount,sku");
    const all = (await t.asset.read(WEEK)) as Sale[];
    expect(Sale.array().parse(all)).toHaveLength(15_000);
  });

  it("routes a stream of single rows alternating between days", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const t = setup(csv);
    t.set(function* () {
      for (let i = 0; i < 7_000; i++) yield sale(DAYS[i % 7]!, i);
    });
    await t.asset.materialize(WEEK);
    expect(await t.asset.partitionRowCounts()).toEqual(Object.fromEntries(DAYS.map((d) => [d, 1_000])));
    const third = (await t.asset.read(new il.TimePartition(DAYS[2]!))) as Sale[];
    expect(third.map((r) => r.sale_id)).toEqual(Array.from({ length: 1_000 }, (_, k) => k * 7 + 2));
  });

  it("writes every day of the window empty for an empty stream", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const t = setup(csv);
    t.set(async function* () {});
    await t.asset.materialize(WEEK);
    expect(await t.asset.partitionRowCounts()).toEqual(Object.fromEntries(DAYS.map((d) => [d, 0])));
  });

  it("replaces days that had rows before and now have none with empty partitions", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const t = setup(csv);
    t.set(() => mixed(interleaved(100, 1, DAYS)));
    await t.asset.materialize(WEEK);
    expect(Object.values(await t.asset.partitionRowCounts())).toEqual(DAYS.map(() => 100));
    t.set(() => mixed(interleaved(20, 2, [DAYS[6]!])));
    await t.asset.materialize(WEEK);
    expect(await t.asset.partitionRowCounts()).toEqual(Object.fromEntries(DAYS.map((d) => [d, d === DAYS[6] ? 20 : 0])));
  });

  for (const [where, at] of [
    ["in the first batch", 0],
    ["after many batches to every day", 9_000],
    ["as the very last row", 15_000],
  ] as const) {
    it(`fails with a PartitionError for a row outside the window ${where}, changing no partition`, async () => {
      const csv = new il.CSVDestination({ basePath: dir.path });
      const t = setup(csv);
      t.set(() => mixed(interleaved(200, 11, DAYS)));
      await t.asset.materialize(WEEK);
      const before = await snapshot(dir.path);
      expect(Object.keys(before).filter((f) => f.endsWith("/data.csv"))).toHaveLength(7);

      const rows = interleaved(3_000, 5);
      rows.splice(at, 0, sale("2025-03-08", 424_242));
      t.set(() => mixed(rows));
      const error = await caught(() => t.asset.materialize(WEEK));
      expect(hasInChain(error, il.PartitionError)).toBe(true);
      expect(error.message).toContain("2025-03-08");
      expect(error.message).toContain("outside the window");
      // Every partition (and its row-count sidecar) is byte for byte and mtime for mtime as it was;
      // no temporary file is left behind.
      expect(await snapshot(dir.path)).toEqual(before);
      expect(await t.asset.partitionRowCounts()).toEqual(Object.fromEntries(DAYS.map((d) => [d, 200])));
    });
  }

  it("fails for a row before the window and for a row without the partition column", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const t = setup(csv, false);
    t.set(() => [sale(DAYS[0]!, 1)]);
    await t.asset.materialize(WEEK);
    const before = await snapshot(dir.path);

    t.set(async function* () {
      yield interleaved(500, 9);
      yield [sale("2025-02-28", 1)];
    });
    const early = await caught(() => t.asset.materialize(WEEK));
    expect(hasInChain(early, il.PartitionError)).toBe(true);
    expect(early.message).toContain("2025-02-28");

    t.set(async function* () {
      yield interleaved(500, 9);
      yield [{ sale_id: 1, amount: 1, sku: "x", date: null }];
    });
    expect(hasInChain(await caught(() => t.asset.materialize(WEEK)), il.PartitionError)).toBe(true);
    expect(await snapshot(dir.path)).toEqual(before);
  });

  it("rejects a row outside the window with a PartitionError, as an array does", async () => {
    const t = setup(new il.CSVDestination({ basePath: dir.path }));
    t.set(() => [sale(DAYS[0]!, 1), sale("2025-03-09", 2)]);
    const array = await caught(() => t.asset.materialize(WEEK));
    t.set(function* () {
      yield sale(DAYS[0]!, 1);
      yield sale("2025-03-09", 2);
    });
    const streamed = await caught(() => t.asset.materialize(WEEK));
    // Whatever the array path raises, the stream path should raise the same kind of error.
    expect(streamed.constructor).toBe(array.constructor);
    expect(hasInChain(streamed, il.PartitionError)).toBe(true);
  });
});

describe("a window write of a stream to other destinations", () => {
  it("a destination with the stream hook gets one writer per day that has rows, and writePartition([]) for the others", async () => {
    const dest = new StreamingMemory();
    const t = setup(dest);
    const rows = interleaved(1_000, 21);
    t.set(() => mixed(rows, 8));
    await t.asset.materialize(WEEK);
    expect([...dest.opened].sort()).toEqual(FILLED);
    expect([...dest.writePartitionCalls].sort()).toEqual([DAYS[3], DAYS[6]]);
    for (const d of DAYS) expect(dest.stored.get(d), d).toEqual(rows.filter((r) => r.date === d));
  });

  it("MemoryDestination (no hook) gets each day collected, empty days as []", async () => {
    const memory = new il.MemoryDestination();
    const t = setup(memory);
    const rows = interleaved(500, 4);
    t.set(() => mixed(rows));
    await t.asset.materialize(WEEK);
    for (const d of DAYS) expect(await t.asset.read(new il.TimePartition(d)), d).toEqual(rows.filter((r) => r.date === d));
    expect(await t.asset.partitionRowCounts()).toEqual(Object.fromEntries(DAYS.map((d) => [d, FILLED.includes(d) ? 500 : 0])));
  });

  it("a destination without the hook gets one writePartition per day, holding that day's rows in order", async () => {
    const rec = new RecordingDestination();
    const t = setup(rec);
    const rows = interleaved(300, 13);
    t.set(() => mixed(rows));
    await t.asset.materialize(WEEK);
    const writes = rec.writes();
    expect(writes.map((w) => w.partition?.key)).toEqual(DAYS);
    for (const w of writes) expect(w.data).toEqual(rows.filter((r) => r.date === w.partition!.key));
  });

  it("a row outside the window writes nothing to a destination without the hook", async () => {
    const rec = new RecordingDestination();
    const t = setup(rec);
    const rows = interleaved(300, 13);
    rows.push(sale("2025-04-01", 9));
    t.set(() => mixed(rows));
    const error = await caught(() => t.asset.materialize(WEEK));
    expect(hasInChain(error, il.PartitionError)).toBe(true);
    expect(rec.writes()).toEqual([]);
  });

  it("several destinations each get every day of the window", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const memory = new il.MemoryDestination();
    const def = il.asset({ key: "sales", partitioning: weekly(), schema: Sale, run: () => mixed(interleaved(400, 17)) });
    const shop = il.source({ key: "shop", assets: [def] })({ destinations: [csv, memory] });
    await shop.assets.sales.materialize(WEEK);
    const expected = Object.fromEntries(DAYS.map((d) => [d, FILLED.includes(d) ? 400 : 0]));
    expect(await shop.assets.sales.partitionRowCounts()).toEqual(expected);
    expect(await shop.assets.sales.with({ destinations: memory }).partitionRowCounts()).toEqual(expected);
    expect(await shop.assets.sales.read(WEEK)).toEqual(await shop.assets.sales.with({ destinations: memory }).read(WEEK));
  });

  it("a stream writer that fails for one day fails the write instead of blocking the stream", async () => {
    // The writer of one day gives up at once; the producer keeps sending that day many more
    // batches than a channel holds. The write must end with the writer's error.
    class FailingDay extends StreamingMemory {
      override async writePartitionStream(
        context: il.IOContext,
        partition: il.Partition | null,
        batches: AsyncIterable<il.Row[]>,
      ): Promise<void> {
        if (partition !== null && partition.key === DAYS[1]) throw new Error(`disk full for ${partition.key}`);
        return super.writePartitionStream(context, partition, batches);
      }
    }
    const t = setup(new FailingDay());
    t.set(async function* () {
      for (let i = 0; i < 64; i++) yield [sale(DAYS[1]!, i), sale(DAYS[2]!, i)];
    });
    const error = await caught(() => t.asset.materialize(WEEK));
    expect(chain(error).some((e) => (e as Error).message.includes("disk full for 2025-03-02"))).toBe(true);
    // A hang would otherwise take the whole default test timeout, in every time zone.
  }, 10_000);

  it("a CSV writer refusing a later row of one day fails the window write, changing no partition", async () => {
    // auto with a declared schema keeps extra fields; the CSV header comes from a day's first
    // row, so a later row of that day with an extra field fails that day's writer mid-stream
    // while the stream goes on sending it more batches.
    const csv = new il.CSVDestination({ basePath: dir.path });
    const t = setup(csv);
    t.set(() => mixed(interleaved(50, 31, DAYS)));
    await t.asset.materialize(WEEK);
    const before = await snapshot(dir.path);
    t.set(async function* () {
      for (let i = 0; i < 64; i++) {
        const row: Record<string, unknown> = sale(DAYS[1]!, i);
        if (i === 2) row["coupon"] = "SPRING";
        yield [row, sale(DAYS[4]!, i)];
      }
    });
    const error = await caught(() => t.asset.materialize(WEEK));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain('"coupon"');
    expect(await snapshot(dir.path)).toEqual(before);
  }, 10_000);
});

describe("a stream over a window of one partition", () => {
  it("fails when the CSV writer refuses a later row (a column not in the header), leaving the partition as it was", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const t = setup(csv);
    const one = new il.TimePartition(DAYS[2]!);
    t.set(() => [sale(DAYS[2]!, 1)]);
    await t.asset.materialize(one);
    const before = await snapshot(dir.path);
    t.set(async function* () {
      for (let i = 0; i < 64; i++) yield i === 30 ? [{ ...sale(DAYS[2]!, i), coupon: "SPRING" }] : [sale(DAYS[2]!, i)];
    });
    const error = await caught(() => t.asset.materialize(one));
    expect(hasInChain(error, il.SchemaError)).toBe(true);
    expect(error.message).toContain('"coupon"');
    expect(await snapshot(dir.path)).toEqual(before);
  });

  it("fails with a PartitionError when a row carries another day, leaving the partition as it was", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const t = setup(csv);
    const one = new il.TimePartition(DAYS[2]!);
    t.set(() => [sale(DAYS[2]!, 1)]);
    await t.asset.materialize(one);
    const before = await snapshot(dir.path);
    t.set(function* () {
      for (let i = 0; i < 12_000; i++) yield sale(DAYS[2]!, i);
      yield sale(DAYS[3]!, 99);
    });
    const error = await caught(() => t.asset.materialize(one));
    expect(hasInChain(error, il.PartitionError)).toBe(true);
    expect(error.message).toContain(DAYS[3]);
    expect(await snapshot(dir.path)).toEqual(before);
  });
});
