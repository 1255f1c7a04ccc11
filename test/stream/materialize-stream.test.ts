// Assets that return streams of rows: written to CSV as they arrive, collected for destinations
// that cannot stream, collected for several destinations and for run().
import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { listFiles } from "../contract/temp-dir.js";
import { RecordingDestination, tempDir } from "../engine/helpers.js";

const Order = z.object({
  date: z.iso.date(),
  order_id: z.number().int(),
  customer: z.string(),
  amount: z.number(),
  status: z.string(),
});
type Order = z.output<typeof Order>;

const STATUSES = ["new", "paid", "shipped", "returned"] as const;

/** The i-th deterministic order of a day. */
const order = (date: string, i: number): Order => ({
  date,
  order_id: i,
  customer: `customer ${i % 97}${i % 5 === 0 ? ", inc." : ""}`,
  amount: (i * 137 + 25) / 100 + (i % 2 === 0 ? 0.5 : 0.25),
  status: STATUSES[i % STATUSES.length]!,
});
const ordersOf = (date: string, n: number, from = 0): Order[] => Array.from({ length: n }, (_, i) => order(date, from + i));

const daily = () => new il.TimePartitionConfig({ column: "date", start: "2025-01-01" });
const day = (key: string) => new il.TimePartition(key);

/** The data files below a folder (hidden sidecars and temp files left out). */
const dataFiles = async (root: string) => (await listFiles(root)).filter((f) => !f.split("/").pop()!.startsWith("."));

/** A destination with a stream hook that records what it received, batch by batch. */
class StreamRecorder extends il.Destination {
  readonly batches: il.Row[][] = [];
  readonly writes: Array<{ partition: string | null; rows: number }> = [];
  readonly streamed: Array<{ partition: string | null; schema: readonly il.FieldSpec[] | null }> = [];

  writePartition(_context: il.IOContext, partition: il.Partition | null, data: unknown): void {
    this.writes.push({ partition: partition?.key ?? null, rows: (data as unknown[]).length });
  }
  override async writePartitionStream(
    context: il.IOContext,
    partition: il.Partition | null,
    batches: AsyncIterable<il.Row[]>,
  ): Promise<void> {
    this.streamed.push({ partition: partition?.key ?? null, schema: context.schema });
    for await (const batch of batches) this.batches.push(batch);
  }
  readPartition(): unknown {
    return this.batches.flat();
  }
  partitionRowCounts(): Record<string, number> {
    return {};
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

describe("a streamed asset materialized to CSV", () => {
  const shapes: Array<[string, (date: string) => unknown]> = [
    [
      "an async generator of row batches",
      async function* (date: string) {
        for (let b = 0; b < 5; b++) {
          await Promise.resolve();
          yield ordersOf(date, 300, b * 300);
        }
      },
    ],
    [
      "a sync generator of rows",
      function* (date: string) {
        for (let i = 0; i < 1_500; i++) yield order(date, i);
      },
    ],
    [
      "an async iterable of single rows (not a generator)",
      (date: string): AsyncIterable<Order> => ({
        [Symbol.asyncIterator]() {
          let i = 0;
          return {
            next: async () => (i < 1_500 ? { done: false, value: order(date, i++) } : { done: true, value: undefined }),
          };
        },
      }),
    ],
  ];

  for (const [name, produce] of shapes) {
    it(`writes ${name}: read back typed equal to the rows produced, partitionRowCounts right`, async () => {
      const csv = new il.CSVDestination({ basePath: dir.path });
      const orders = il.asset({ key: "orders", partitioning: daily(), schema: Order, run: (ctx) => produce(ctx.partition!.key) as never });
      const shop = il.source({ key: "shop", assets: [orders] })({ destinations: csv });

      await shop.assets.orders.materialize(day("2025-03-01"));
      await shop.assets.orders.materialize(day("2025-03-02"));

      expect(await dataFiles(dir.path)).toEqual(["shop/orders/date=2025-03-01/data.csv", "shop/orders/date=2025-03-02/data.csv"]);
      const back = (await shop.assets.orders.read(day("2025-03-01"))) as unknown[];
      expect(back).toEqual(ordersOf("2025-03-01", 1_500));
      expect(Order.array().parse(back)).toEqual(back);
      expect(typeof (back[1] as Order).order_id).toBe("number");
      expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2025-03-01": 1_500, "2025-03-02": 1_500 });
      // A window read joins both streamed partitions.
      const both = (await shop.assets.orders.read(new il.TimePartitionWindow("2025-03-01", "2025-03-02"))) as unknown[];
      expect(both).toEqual([...ordersOf("2025-03-01", 1_500), ...ordersOf("2025-03-02", 1_500)]);
    });
  }

  it("writes the CSV header once, from the first row, and one line per row", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      async *run(ctx) {
        for (let b = 0; b < 3; b++) yield ordersOf(ctx.partition!.key, 2, b * 2);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: csv });
    await shop.assets.orders.materialize(day("2025-03-01"));
    const text = await readFile(csv.pathOf(shop.assets.orders.ioContext(day("2025-03-01")), day("2025-03-01")), "utf8");
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("date,order_id,customer,amount,status");
    expect(lines.filter((l) => l.startsWith("date,"))).toHaveLength(1);
    expect(lines).toHaveLength(7);
  });

  it("materializes an empty stream as an empty partition (count 0), header from the schema", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      // eslint-disable-next-line require-yield
      async *run() {
        return;
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: csv });
    await shop.assets.orders.materialize(day("2025-03-01"));
    expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2025-03-01": 0 });
    expect(await shop.assets.orders.read(day("2025-03-01"))).toEqual([]);
    const text = await readFile(csv.pathOf(shop.assets.orders.ioContext(day("2025-03-01")), day("2025-03-01")), "utf8");
    expect(text.trim()).toBe("date,order_id,customer,amount,status");
  });

  it("writes an unpartitioned streamed asset to {table}/data.csv", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const customers = il.asset({
      key: "customers",
      schema: z.object({ id: z.number().int(), name: z.string() }),
      *run() {
        for (let i = 0; i < 10; i++) yield { id: i, name: `n${i}` };
      },
    });
    const shop = il.source({ key: "shop", assets: [customers] })({ destinations: csv });
    await shop.assets.customers.materialize();
    expect(await dataFiles(dir.path)).toEqual(["shop/customers/data.csv"]);
    expect(await shop.assets.customers.read()).toEqual(Array.from({ length: 10 }, (_, i) => ({ id: i, name: `n${i}` })));
  });

  it("replaces a partition's previous content with the new stream", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    let n = 50;
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      *run(ctx) {
        yield* ordersOf(ctx.partition!.key, n);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: csv });
    await shop.assets.orders.materialize(day("2025-03-01"));
    n = 3;
    await shop.assets.orders.materialize(day("2025-03-01"));
    expect(await shop.assets.orders.read(day("2025-03-01"))).toEqual(ordersOf("2025-03-01", 3));
    expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2025-03-01": 3 });
  });

  it("reports the streamed row count in destination:write:completed", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      async *run(ctx) {
        yield ordersOf(ctx.partition!.key, 700);
        yield order(ctx.partition!.key, 700);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: csv });
    const events: Array<{ type: string; rows?: number | null }> = [];
    await shop.assets.orders.materialize(day("2025-03-01"), { emit: (e) => events.push(e as never) });
    const completed = events.filter((e) => e.type === "destination:write:completed");
    expect(completed).toHaveLength(1);
    expect(completed[0]!.rows).toBe(701);
  });
});

describe("a large stream", () => {
  it("writes 200,000 streamed rows to one CSV partition: right count and content", async () => {
    const N = 200_000;
    const csv = new il.CSVDestination({ basePath: dir.path });
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      async *run(ctx) {
        const date = ctx.partition!.key;
        for (let i = 0; i < N; i++) yield order(date, i);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: csv });
    await shop.assets.orders.materialize(day("2025-06-30"));

    expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2025-06-30": N });
    const back = (await shop.assets.orders.read(day("2025-06-30"))) as Order[];
    expect(back).toHaveLength(N);
    for (const i of [0, 1, 4_999, 5_000, 19_999, 20_000, 99_999, 123_457, N - 1]) expect(back[i]).toEqual(order("2025-06-30", i));
    // Every row is there, in order.
    expect(back.every((row, i) => row.order_id === i)).toBe(true);
  }, 120_000);
});

describe("destinations without a stream hook receive the stream collected", () => {
  it("MemoryDestination gets the same data as an array", async () => {
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      async *run(ctx) {
        for (let b = 0; b < 4; b++) yield ordersOf(ctx.partition!.key, 10, b * 10);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: new il.MemoryDestination() });
    await shop.assets.orders.materialize(day("2025-03-01"));
    expect(await shop.assets.orders.read(day("2025-03-01"))).toEqual(ordersOf("2025-03-01", 40));
    expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2025-03-01": 40 });
  });

  it("FileDestination gets the same data as an array", async () => {
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      *run(ctx) {
        for (let i = 0; i < 25; i++) yield order(ctx.partition!.key, i);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: new il.FileDestination({ basePath: dir.path }) });
    await shop.assets.orders.materialize(day("2025-03-01"));
    expect(await dataFiles(dir.path)).toEqual(["shop/orders/date=2025-03-01/data.v8"]);
    expect(await shop.assets.orders.read(day("2025-03-01"))).toEqual(ordersOf("2025-03-01", 25));
    expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2025-03-01": 25 });
  });

  it("a custom destination without the hook gets one writePartition call holding every row", async () => {
    const rec = new RecordingDestination();
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      async *run(ctx) {
        yield ordersOf(ctx.partition!.key, 3);
        yield order(ctx.partition!.key, 3);
        yield [];
        yield ordersOf(ctx.partition!.key, 2, 4);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: rec });
    await shop.assets.orders.materialize(day("2025-03-01"));
    const writes = rec.writes();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.partition?.key).toBe("2025-03-01");
    expect(writes[0]!.data).toEqual(ordersOf("2025-03-01", 6));
    expect(writes[0]!.context.schema?.map((f) => f.name)).toEqual(["date", "order_id", "customer", "amount", "status"]);
  });

  it("a destination with the hook gets the batches, and no writePartition call", async () => {
    const dest = new StreamRecorder();
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      async *run(ctx) {
        yield ordersOf(ctx.partition!.key, 3);
        yield ordersOf(ctx.partition!.key, 2, 3);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: dest });
    await shop.assets.orders.materialize(day("2025-03-01"));
    expect(dest.writes).toEqual([]);
    expect(dest.streamed.map((s) => s.partition)).toEqual(["2025-03-01"]);
    expect(dest.streamed[0]!.schema?.map((f) => f.name)).toEqual(["date", "order_id", "customer", "amount", "status"]);
    expect(dest.batches.map((b) => b.length)).toEqual([3, 2]);
    expect(dest.batches.flat()).toEqual(ordersOf("2025-03-01", 5));
  });
});

describe("several destinations, and run()", () => {
  it("writes the full stream to every destination (CSV and memory)", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const memory = new il.MemoryDestination();
    let runs = 0;
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      async *run(ctx) {
        runs++;
        for (let b = 0; b < 3; b++) yield ordersOf(ctx.partition!.key, 100, b * 100);
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: { main: csv, backup: memory } });
    const events: Array<{ type: string; destination?: string; rows?: number | null }> = [];
    await shop.assets.orders.materialize(day("2025-03-01"), { emit: (e) => events.push(e as never) });
    expect(runs).toBe(1);
    expect(await shop.assets.orders.read(day("2025-03-01"))).toEqual(ordersOf("2025-03-01", 300));
    expect(await shop.assets.orders.with({ destinations: memory }).read(day("2025-03-01"))).toEqual(ordersOf("2025-03-01", 300));
    expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2025-03-01": 300 });
    const completed = events.filter((e) => e.type === "destination:write:completed");
    expect(completed.map((e) => [e.destination, e.rows])).toEqual([
      ["main", 300],
      ["backup", 300],
    ]);
  });

  it("run() returns the collected, conformed rows and writes nothing", async () => {
    const rec = new RecordingDestination();
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      schema: Order,
      async *run(ctx) {
        yield ordersOf(ctx.partition!.key, 2);
        // auto with a declared schema coerces the stored form of a number.
        yield { ...order(ctx.partition!.key, 2), order_id: "2" as unknown as number };
      },
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: [rec, new il.CSVDestination({ basePath: dir.path })] });
    const data = await shop.assets.orders.run(day("2025-03-01"));
    expect(data).toEqual(ordersOf("2025-03-01", 3));
    expect(rec.calls).toEqual([]);
    expect(await dataFiles(dir.path)).toEqual([]);
  });

  it("run() of a stream without a schema returns the rows as produced", async () => {
    const plain = il.asset({
      key: "plain",
      *run() {
        for (let i = 0; i < 4; i++) yield { id: i, name: `n${i}`, score: i + 0.5 };
      },
    });
    const shop = il.source({ key: "shop", assets: [plain] })({ destinations: new il.MemoryDestination() });
    expect(await shop.assets.plain.run()).toEqual(Array.from({ length: 4 }, (_, i) => ({ id: i, name: `n${i}`, score: i + 0.5 })));
  });
});

describe("streamed assets in a DAG", () => {
  it("a downstream asset reads the streamed upstream's data, typed by the schema inferred from the stream", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      async *run(ctx) {
        for (let b = 0; b < 3; b++) yield ordersOf(ctx.partition!.key, 10, b * 10);
      },
    });
    let seen: unknown = null;
    const revenue = il.asset({
      key: "revenue",
      partitioning: daily(),
      requires: { orders: "orders" },
      run(ctx, deps) {
        seen = deps.orders;
        const rows = deps.orders as Order[];
        return [{ date: ctx.partition!.key, total: rows.reduce((s, o) => s + o.amount, 0), n: rows.length }];
      },
    });
    const shop = il.source({ key: "shop", assets: [orders, revenue] })({ destinations: csv });
    const result = await new il.DAG(shop).materialize(day("2025-03-01"));
    expect(result.error ?? null).toBeNull();
    expect(seen).toEqual(ordersOf("2025-03-01", 30));
    const expected = ordersOf("2025-03-01", 30).reduce((s, o) => s + o.amount, 0);
    expect(await shop.assets.revenue.read(day("2025-03-01"))).toEqual([{ date: "2025-03-01", total: String(expected), n: "30" }]);
    expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2025-03-01": 30 });
  });
});
