import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { listFiles } from "../contract/temp-dir.js";
import { caught, collector, day, days, RecordingDestination, tempDir } from "./helpers.js";

beforeEach(() => il.MemoryDestination.clear());

/** The data files below a folder (hidden bookkeeping files of the destination left out). */
const dataFiles = async (root: string) => (await listFiles(root)).filter((f) => !f.split("/").pop()!.startsWith("."));

const OrderSchema = z.object({ date: z.iso.date(), id: z.number().int(), amount: z.number(), note: z.string().nullable() });

describe("run, materialize, read, partitionRowCounts", () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await dir.remove();
  });

  const ordersDef = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    schema: OrderSchema,
    run: (ctx) => [
      { date: ctx.partition!.key, id: 1, amount: 9.5, note: null },
      { date: ctx.partition!.key, id: 2, amount: "3" as unknown as number, note: "x" },
    ],
  });

  it("run() returns the conformed data and writes nothing", async () => {
    const rec = new RecordingDestination();
    const csv = new il.CSVDestination({ basePath: dir.path });
    const shop = il.source({ key: "shop", assets: [ordersDef] })({ destinations: [csv, rec] });
    const data = await shop.assets.orders.run(day("2026-01-02"));
    // auto with a schema coerces "3" to 3.
    expect(data).toEqual([
      { date: "2026-01-02", id: 1, amount: 9.5, note: null },
      { date: "2026-01-02", id: 2, amount: 3, note: "x" },
    ]);
    expect(rec.calls).toEqual([]);
    expect(await dataFiles(dir.path)).toEqual([]);
  });

  it("materialize() writes to every destination; read() reads back typed through the schema with CSV", async () => {
    const rec = new RecordingDestination();
    const csv = new il.CSVDestination({ basePath: dir.path });
    const shop = il.source({ key: "shop", assets: [ordersDef] })({ destinations: [csv, rec] });
    await shop.assets.orders.materialize(day("2026-01-02"));
    expect(await dataFiles(dir.path)).toEqual(["shop/orders/date=2026-01-02/data.csv"]);
    expect(rec.writes()).toHaveLength(1);
    const back = (await shop.assets.orders.read(day("2026-01-02"))) as Array<Record<string, unknown>>;
    expect(back).toEqual([
      { date: "2026-01-02", id: 1, amount: 9.5, note: null },
      { date: "2026-01-02", id: 2, amount: 3, note: "x" },
    ]);
    expect(typeof back[0]!["id"]).toBe("number");
    expect(OrderSchema.array().parse(back)).toEqual(back);
  });

  it("read() of a window joins partitions; partitionRowCounts() counts per stored partition", async () => {
    const csv = new il.CSVDestination({ basePath: dir.path });
    const shop = il.source({ key: "shop", assets: [ordersDef] })({ destinations: csv });
    await shop.assets.orders.materialize(day("2026-01-02"));
    await shop.assets.orders.materialize(day("2026-01-03"));
    const both = (await shop.assets.orders.read(days("2026-01-02", "2026-01-03"))) as unknown[];
    expect(both).toHaveLength(4);
    expect(await shop.assets.orders.partitionRowCounts()).toEqual({ "2026-01-02": 2, "2026-01-03": 2 });
  });

  it("partitionRowCounts() asks the first destination only", async () => {
    const first = new RecordingDestination();
    const second = new RecordingDestination();
    const shop = il.source({ key: "shop", assets: [ordersDef] })({ destinations: [first, second] });
    await shop.assets.orders.partitionRowCounts();
    expect(first.calls.filter((c) => c.op === "count")).toHaveLength(1);
    expect(second.calls.filter((c) => c.op === "count")).toHaveLength(0);
  });

  it("partitionRowCounts() of an unpartitioned asset is a ConfigError", async () => {
    const a = il.asset({ key: "a", run: () => [] });
    const s = il.source({ key: "s", assets: [a] })({ destinations: new il.MemoryDestination() });
    expect(await caught(() => s.assets.a.partitionRowCounts())).toBeInstanceOf(il.ConfigError);
  });

  it("read() of what was never written raises DataNotFoundError", async () => {
    const shop = il.source({ key: "shop", assets: [ordersDef] })({ destinations: new il.MemoryDestination() });
    expect(await caught(() => shop.assets.orders.read(day("2026-01-05")))).toBeInstanceOf(il.DataNotFoundError);
  });

  it("materialize() without a destination fails; run() does not need one", async () => {
    const a = il.asset({ key: "a", run: () => [{ n: 1 }] });
    const s = il.source({ key: "s", assets: [a] })();
    expect(await s.assets.a.run()).toEqual([{ n: 1 }]);
    const error = await caught(() => s.assets.a.materialize());
    expect(error).toBeInstanceOf(il.InterloperError);
  });

  it("materialize() of a partitioned asset without a window raises PartitionError", async () => {
    const shop = il.source({ key: "shop", assets: [ordersDef] })({ destinations: new il.MemoryDestination() });
    expect(await caught(() => shop.assets.orders.materialize())).toBeInstanceOf(il.PartitionError);
    expect(await caught(() => shop.assets.orders.run())).toBeInstanceOf(il.PartitionError);
  });

  it("materialize() of a window splits writes per partition", async () => {
    const rec = new RecordingDestination();
    const a = il.asset({
      key: "a",
      partitioning: new il.TimePartitionConfig({ column: "date", allowWindow: true }),
      run: (ctx) => ctx.window!.partitions.map((p) => ({ date: p.key, n: 1 })),
    });
    await il
      .source({ key: "s", assets: [a] })({ destinations: rec })
      .assets.a.materialize(days("2026-01-01", "2026-01-03"));
    expect(rec.writes().map((w) => w.partition?.key)).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"]);
  });

  it("wraps an error thrown by run() in AssetError naming the asset", async () => {
    const a = il.asset({
      key: "boom",
      run: () => {
        throw new Error("kaput");
      },
    });
    const error = await caught(() =>
      il
        .source({ key: "s", assets: [a] })()
        .assets.boom.run(),
    );
    expect(error).toBeInstanceOf(il.AssetError);
    expect(error.message).toContain("s.boom");
    expect(error.message).toContain("kaput");
  });

  it("accepts a sync or async run", async () => {
    const sync = il.asset({ key: "sync", run: () => [{ n: 1 }] });
    const asyncA = il.asset({ key: "async_a", run: async () => [{ n: 2 }] });
    expect(await new il.Asset(sync, null).run()).toEqual([{ n: 1 }]);
    expect(await new il.Asset(asyncA, null).run()).toEqual([{ n: 2 }]);
  });
});

describe("conform strategies through assets", () => {
  const Schema = z.object({ id: z.number().int(), name: z.string(), score: z.number().nullable().optional() });

  function run(strategy: il.ConformStrategy | undefined, rows: unknown, schema: typeof Schema | undefined = Schema) {
    const definition = schema
      ? il.asset({ key: "a", schema, ...(strategy ? { strategy } : {}), run: () => rows as never })
      : il.asset({ key: "a", ...(strategy ? { strategy } : {}), run: () => rows as never });
    return new il.Asset(definition, null);
  }

  it("auto with a schema coerces and keeps extra fields", async () => {
    const data = (await run("auto", [{ id: "7", name: "x", extra: true }]).run()) as Array<Record<string, unknown>>;
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ id: 7, name: "x", extra: true });
  });

  it("auto without a schema infers one and passes the rows through", async () => {
    const rec = new RecordingDestination();
    const a = new il.Asset(il.asset({ key: "a", destinations: rec, run: () => [{ id: 1, name: "x" }] }), null);
    expect(await a.run()).toEqual([{ id: 1, name: "x" }]);
    await a.materialize();
    const schema = rec.writes()[0]!.context.schema;
    expect(schema?.map((f) => [f.name, f.type])).toEqual([
      ["id", "integer"],
      ["name", "string"],
    ]);
  });

  it("strict fails with a SchemaError listing every offending field with a row index", async () => {
    const error = await caught(() =>
      run("strict", [
        { id: 1, name: "ok" },
        { id: "2", extra: 1 },
      ]).run(),
    );
    expect(error).toBeInstanceOf(il.SchemaError);
    expect(error.message).toContain('"id"');
    expect(error.message).toContain('"name"');
    expect(error.message).toContain('"extra"');
    expect(error.message).toMatch(/row 1/);
  });

  it("strict passes rows that already match", async () => {
    expect(await run("strict", [{ id: 1, name: "ok" }]).run()).toEqual([{ id: 1, name: "ok" }]);
  });

  it("strict without a schema is a SchemaError", async () => {
    expect(await caught(() => run("strict", [{ id: 1 }], undefined).run())).toBeInstanceOf(il.SchemaError);
  });

  it("reconcile drops extra fields with a warning log event, adds missing nullable fields and coerces", async () => {
    const a = il.asset({ key: "a", schema: Schema, strategy: "reconcile", run: () => [{ id: "3", name: "n", junk: 1 }] as never });
    const s = il.source({ key: "s", assets: [a] })({ destinations: new il.MemoryDestination() });
    const { events, onEvent } = collector();
    const result = await new il.DAG(s).materialize(null, { onEvent });
    expect(result.status).toBe("completed");
    expect(await s.assets.a.read()).toEqual([{ id: 3, name: "n", score: null }]);
    const warnings = events.filter((e) => e.type === "log" && e.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.type === "log" && warnings[0]!.message).toContain("junk");
  });

  it("reconcile fails on a null in a non-nullable field", async () => {
    const error = await caught(() => run("reconcile", [{ id: null, name: "n" }]).run());
    expect(error).toBeInstanceOf(il.SchemaError);
    expect(error.message).toContain('"id"');
  });

  it("passes non-tabular data untouched under auto", async () => {
    const value = { total: 3, nested: { a: [1, 2] } };
    expect(await run("auto", value, undefined).run()).toEqual(value);
    expect(await run(undefined, "plain text", undefined).run()).toBe("plain text");
  });

  it.each(["strict", "reconcile"] as const)("refuses non-tabular data under %s with AssetError", async (strategy) => {
    const error = await caught(() => run(strategy, 42).run());
    expect(error).toBeInstanceOf(il.AssetError);
    expect(error.message).toContain(strategy);
  });

  it("a conform failure inside a DAG run fails the asset with the SchemaError", async () => {
    const a = il.asset({ key: "a", schema: Schema, strategy: "strict", run: () => [{ id: "x" }] as never });
    const result = await new il.DAG(il.source({ key: "s", assets: [a] })({ destinations: new il.MemoryDestination() })).materialize();
    expect(result.status).toBe("failed");
    expect(result.error).toBeInstanceOf(il.SchemaError);
  });

  it("carries the effective schema to every destination in IOContext.schema", async () => {
    const r1 = new RecordingDestination();
    const r2 = new RecordingDestination();
    const a = il.asset({ key: "a", schema: Schema, strategy: "reconcile", run: () => [{ id: 1, name: "n" }] });
    await il
      .source({ key: "s", assets: [a] })({ destinations: [r1, r2] })
      .assets.a.materialize();
    for (const r of [r1, r2]) {
      const schema = r.writes()[0]!.context.schema;
      expect(schema?.map((f) => [f.name, f.type, f.nullable])).toEqual([
        ["id", "integer", false],
        ["name", "string", false],
        ["score", "number", true],
      ]);
    }
  });

  it("carries an inferred schema to the downstream read, so CSV upstream data comes back typed", async () => {
    const dir = await tempDir();
    try {
      let seen: unknown;
      const up = il.asset({ key: "up", run: () => [{ n: 5, ok: true }] });
      const down = il.asset({ key: "down", requires: { up: "up" }, run: (_c, d) => ((seen = d.up), [{ x: 1 }]) });
      const s = il.source({ key: "s", assets: [up, down] })({ destinations: new il.CSVDestination({ basePath: dir.path }) });
      const result = await new il.DAG(s).materialize();
      expect(result.status).toBe("completed");
      expect(seen).toEqual([{ n: 5, ok: true }]);
    } finally {
      await dir.remove();
    }
  });
});
