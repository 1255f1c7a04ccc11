import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { caught, collector, day, days, RecordingDestination } from "./helpers.js";

beforeEach(() => il.MemoryDestination.clear());

const mem = () => new il.MemoryDestination();

describe("dependencies", () => {
  it("resolves requires by bare key within the source", async () => {
    const customers = il.asset({ key: "customers", run: () => [{ id: 1, name: "ann" }] });
    const orders = il.asset({
      key: "orders",
      requires: { people: "customers" },
      run: (_ctx, { people }) => (people as Array<{ id: number }>).map((p) => ({ customer: p.id, total: 10 })),
    });
    const shop = il.source({ key: "shop", assets: [customers, orders] })({ destinations: mem() });
    const result = await new il.DAG(shop).materialize();
    expect(result.status).toBe("completed");
    expect(await shop.assets.orders.read()).toEqual([{ customer: 1, total: 10 }]);
  });

  it("resolves requires by source.asset across sources", async () => {
    const rates = il.asset({ key: "rates", run: () => [{ ccy: "EUR", rate: 2 }] });
    const Fx = il.source({ key: "fx", assets: [rates] });
    let received: unknown;
    const converted = il.asset({
      key: "converted",
      requires: { rates: "fx.rates" },
      run: (_ctx, deps) => {
        received = deps.rates;
        return [{ amount: 2 }];
      },
    });
    const Shop = il.source({ key: "shop", assets: [converted] });
    const dag = new il.DAG(Shop({ destinations: mem() }), Fx({ destinations: mem() }));
    expect(dag.dependencies(dag.find("shop.converted")!).map((d) => d.asset?.qualifiedKey)).toEqual(["fx.rates"]);
    const result = await dag.materialize();
    expect(result.status).toBe("completed");
    expect(received).toEqual([{ ccy: "EUR", rate: 2 }]);
  });

  it("does not resolve a bare key to an asset of another source", () => {
    const rates = il.asset({ key: "rates", run: () => [] });
    const converted = il.asset({ key: "converted", requires: { rates: "rates" }, run: () => [] });
    const error = (() => {
      try {
        new il.DAG(il.source({ key: "shop", assets: [converted] }), il.source({ key: "fx", assets: [rates] }));
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(il.DependencyNotFoundError);
  });

  it("a misspelt key in requires gets a did-you-mean, as other typos do (issue 32.11)", () => {
    const orders = il.asset({ key: "orders", run: () => [] });
    const revenue = il.asset({ key: "revenue", requires: { orders: "ordrs" }, run: () => [] });
    expect(() => new il.DAG(il.source({ key: "shop", assets: [orders, revenue] }))).toThrow(
      new il.DependencyNotFoundError('asset "shop.revenue" requires "ordrs" (as orders), which is not in the DAG: did you mean "orders"?'),
    );
  });

  it("resolves requires given as a definition object, within and across sources", async () => {
    const rates = il.asset({ key: "rates", schema: z.object({ rate: z.number() }), run: () => [{ rate: 3 }] });
    const base = il.asset({ key: "base", run: () => [{ v: 5 }] });
    let seen: unknown[] = [];
    const total = il.asset({
      key: "total",
      requires: { rates, base },
      run: (_ctx, { rates, base }) => {
        seen = [rates, base];
        return [{ total: rates[0]!.rate * (base as Array<{ v: number }>)[0]!.v }];
      },
    });
    const dag = new il.DAG(
      il.source({ key: "fx", assets: [rates] })({ destinations: mem() }),
      il.source({ key: "shop", assets: [base, total] })({ destinations: mem() }),
    );
    const result = await dag.materialize();
    expect(result.status).toBe("completed");
    expect(seen).toEqual([[{ rate: 3 }], [{ v: 5 }]]);
    expect(await dag.find("shop.total")!.read()).toEqual([{ total: 15 }]);
  });

  it("passes an optional dependency that is present", async () => {
    const extra = il.asset({ key: "extra", run: () => [{ x: 1 }] });
    let got: unknown = "not called";
    const main = il.asset({
      key: "main",
      optionalRequires: { extra: "extra" },
      run: (_ctx, deps) => {
        got = deps.extra;
        return [{ ok: true }];
      },
    });
    const result = await new il.DAG(il.source({ key: "s", assets: [extra, main] })({ destinations: mem() })).materialize();
    expect(result.status).toBe("completed");
    expect(got).toEqual([{ x: 1 }]);
  });

  it("passes an absent optional dependency as undefined", async () => {
    let got: unknown = "not called";
    let has = false;
    const main = il.asset({
      key: "main",
      optionalRequires: { extra: "other.maybe" },
      run: (_ctx, deps) => {
        got = deps.extra;
        has = "extra" in deps;
        return [{ ok: true }];
      },
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [main] })({ destinations: mem() }));
    expect(dag.dependencies(dag.find("s.main")!)).toEqual([
      { name: "extra", optional: true, asset: undefined, mapping: null, problem: null },
    ]);
    const result = await dag.materialize();
    expect(result.status).toBe("completed");
    expect(got).toBeUndefined();
    expect(has).toBe(true);
  });

  it("passes an absent optional dependency as undefined to asset.run() outside a DAG", async () => {
    let got: unknown = "not called";
    const main = il.asset({ key: "main", optionalRequires: { extra: "nothing" }, run: (_ctx, deps) => ((got = deps.extra), [{ ok: 1 }]) });
    const s = il.source({ key: "s", assets: [main] })();
    expect(await s.assets.main.run()).toEqual([{ ok: 1 }]);
    expect(got).toBeUndefined();
  });

  it("reads a sibling from storage when asset.run() is called outside a DAG", async () => {
    const up = il.asset({ key: "up", run: () => [{ n: 1 }] });
    const down = il.asset({ key: "down", requires: { up: "up" }, run: (_c, { up }) => up as unknown[] });
    const s = il.source({ key: "s", assets: [up, down] })({ destinations: mem() });
    await s.assets.up.materialize();
    expect(await s.assets.down.run()).toEqual([{ n: 1 }]);
  });

  it("refuses requires targets that are neither keys nor definitions", () => {
    expect(() => il.asset({ key: "a", requires: { x: "not-a-key" }, run: () => [] })).toThrow(il.ConfigError);
    expect(() => il.asset({ key: "a", requires: { x: 42 as unknown as string }, run: () => [] })).toThrow(il.ConfigError);
  });
});

describe("execution context", () => {
  const daily = () => new il.TimePartitionConfig({ column: "date" });

  it("exposes partition, partitionDate, window, asset, runId and a logger", async () => {
    let seen: Record<string, unknown> = {};
    const a = il.asset({
      key: "a",
      partitioning: daily(),
      run: (ctx) => {
        ctx.logger.info("hello");
        ctx.logger.warn("careful");
        seen = {
          partition: ctx.partition?.key,
          date: ctx.partitionDate,
          window: String(ctx.window),
          windowLength: ctx.window?.length,
          asset: ctx.asset,
          runId: ctx.runId,
        };
        return [{ date: "2026-03-05", n: 1 }];
      },
    });
    const s = il.source({ key: "s", assets: [a] })({ destinations: mem() });
    const { events, onEvent } = collector();
    const result = await new il.DAG(s).materialize(day("2026-03-05"), { onEvent, runId: "run-42" });
    expect(result.status).toBe("completed");
    expect(seen["partition"]).toBe("2026-03-05");
    expect(seen["date"]).toBeInstanceOf(Date);
    expect((seen["date"] as Date).getTime()).toBe(Date.UTC(2026, 2, 5));
    expect(seen["window"]).toBe("2026-03-05");
    expect(seen["windowLength"]).toBe(1);
    expect(seen["asset"]).toBe(s.assets.a);
    expect(seen["runId"]).toBe("run-42");
    const logs = events.filter((e) => e.type === "log");
    expect(logs.map((e) => [e.type === "log" && e.level, e.type === "log" && e.message])).toEqual([
      ["info", "hello"],
      ["warn", "careful"],
    ]);
    for (const log of logs) {
      expect(log.runId).toBe("run-42");
      expect((log as { asset?: string }).asset).toBe("s.a");
    }
  });

  it("gives partitionDate as the start of a monthly period", async () => {
    let date: Date | null = null;
    const a = il.asset({
      key: "a",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
      run: (ctx) => ((date = ctx.partitionDate), [{ month: "2026-05-01" }]),
    });
    await new il.Asset(a, null).run(new il.TimePartition("2026-05-20", il.TimeGranularity.MONTH));
    expect(date!.getTime()).toBe(Date.UTC(2026, 4, 1));
  });

  it("presents a single partition to an allowWindow asset as a one-partition window", async () => {
    let seen: il.PartitionWindow | null = null;
    let partition: string | undefined;
    const a = il.asset({
      key: "a",
      partitioning: new il.TimePartitionConfig({ column: "date", allowWindow: true }),
      run: (ctx) => ((seen = ctx.window), (partition = ctx.partition?.key), []),
    });
    await new il.Asset(a, null).run(day("2026-01-09"));
    expect(seen).toBeInstanceOf(il.TimePartitionWindow);
    expect(seen!.length).toBe(1);
    expect(String(seen)).toBe("2026-01-09");
    expect(partition).toBe("2026-01-09");
  });

  it("gives a window of several partitions to an allowWindow asset, with no single partition", async () => {
    let ctxSeen: il.ExecutionContext | null = null;
    const a = il.asset({
      key: "a",
      partitioning: new il.TimePartitionConfig({ column: "date", allowWindow: true }),
      run: (ctx) => ((ctxSeen = ctx), []),
    });
    await new il.Asset(a, null).run(days("2026-01-01", "2026-01-03"));
    expect(String(ctxSeen!.window)).toBe("2026-01-01..2026-01-03");
    expect(ctxSeen!.partition).toBeNull();
    const error = await caught(() => ctxSeen!.partitionDate);
    expect(error).toBeInstanceOf(il.PartitionError);
  });

  it("raises PartitionError for partitionDate of a list partition", async () => {
    let error: unknown = null;
    let partition: unknown;
    const config = new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] });
    const a = il.asset({
      key: "a",
      partitioning: config,
      run: (ctx) => {
        partition = ctx.partition?.value;
        try {
          void ctx.partitionDate;
        } catch (e) {
          error = e;
        }
        return [{ region: "eu" }];
      },
    });
    await new il.Asset(a, null).run(config.partition("eu"));
    expect(partition).toBe("eu");
    expect(error).toBeInstanceOf(il.PartitionError);
  });

  it("gives an unpartitioned asset no window and no partition", async () => {
    let ctxSeen: il.ExecutionContext | null = null;
    const a = il.asset({ key: "a", run: (ctx) => ((ctxSeen = ctx), []) });
    await new il.Asset(a, null).run();
    expect(ctxSeen!.window).toBeNull();
    expect(ctxSeen!.partition).toBeNull();
    expect(() => ctxSeen!.partitionDate).toThrow(il.PartitionError);
  });

  it("gives every asset of a run the same runId", async () => {
    const ids: string[] = [];
    const a = il.asset({ key: "a", run: (ctx) => (ids.push(ctx.runId), [{ n: 1 }]) });
    const b = il.asset({ key: "b", requires: { a: "a" }, run: (ctx) => (ids.push(ctx.runId), [{ n: 1 }]) });
    const result = await new il.DAG(il.source({ key: "s", assets: [a, b] })({ destinations: new RecordingDestination() })).materialize();
    expect(ids).toEqual([result.runId, result.runId]);
    expect(typeof result.runId).toBe("string");
    expect(result.runId.length).toBeGreaterThan(0);
  });
});
