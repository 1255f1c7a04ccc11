import { beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { caught, collector, day, days, gauge, RecordingDestination, tick } from "./helpers.js";

beforeEach(() => il.MemoryDestination.clear());

const mem = () => new il.MemoryDestination();

/** An asset that logs its start and end, waits a tick, and returns one row. */
function traced(key: string, log: string[], extra: Partial<Parameters<typeof il.asset>[0]> = {}) {
  return il.asset({
    key,
    ...extra,
    run: async () => {
      log.push(`start ${key}`);
      await tick();
      log.push(`end ${key}`);
      return [{ key }];
    },
  } as Parameters<typeof il.asset>[0]);
}

describe("scheduling", () => {
  it("starts an asset only after every dependency is done", async () => {
    const log: string[] = [];
    const a = traced("a", log);
    const b = traced("b", log);
    const c = traced("c", log, { requires: { a: "a", b: "b" } });
    const d = traced("d", log, { requires: { c: "c" } });
    const result = await new il.DAG(il.source({ key: "s", assets: [d, c, b, a] })({ destinations: mem() })).materialize();
    expect(result.status).toBe("completed");
    expect(result.completedAssets.sort()).toEqual(["s.a", "s.b", "s.c", "s.d"]);
    const at = (entry: string) => log.indexOf(entry);
    expect(at("start c")).toBeGreaterThan(at("end a"));
    expect(at("start c")).toBeGreaterThan(at("end b"));
    expect(at("start d")).toBeGreaterThan(at("end c"));
    // Independent roots overlap: both start before either ends.
    expect(at("start b")).toBeLessThan(at("end a"));
  });

  it("starts a dependent as soon as its own dependencies are done, without waiting for unrelated assets", async () => {
    const order: string[] = [];
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    const fast = il.asset({ key: "fast", run: () => (order.push("fast"), [{ n: 1 }]) });
    const after = il.asset({ key: "after", requires: { fast: "fast" }, run: () => (order.push("after"), releaseSlow(), [{ n: 1 }]) });
    const slow = il.asset({ key: "slow", run: async () => (await slowGate, order.push("slow"), [{ n: 1 }]) });
    const result = await new il.DAG(il.source({ key: "s", assets: [slow, fast, after] })({ destinations: mem() })).materialize();
    expect(result.status).toBe("completed");
    expect(order).toEqual(["fast", "after", "slow"]);
  });

  it.each([
    [2, 6],
    [3, 7],
    [1, 4],
  ])("keeps at most %i assets in flight (of %i independent ones)", async (limit, count) => {
    const g = gauge();
    const assets = Array.from({ length: count }, (_, i) =>
      il.asset({
        key: `a${i}`,
        run: async () => {
          g.enter();
          await tick(10);
          g.leave();
          return [{ i }];
        },
      }),
    );
    const result = await new il.DAG(il.source({ key: "s", assets })({ destinations: mem() })).materialize(null, { concurrency: limit });
    expect(result.status).toBe("completed");
    expect(g.max).toBe(limit);
    expect(g.now).toBe(0);
  });

  it("defaults concurrency to 4", async () => {
    const g = gauge();
    const assets = Array.from({ length: 8 }, (_, i) =>
      il.asset({ key: `a${i}`, run: async () => (g.enter(), await tick(10), g.leave(), [{ i }]) }),
    );
    await new il.DAG(il.source({ key: "s", assets })({ destinations: mem() })).materialize();
    expect(g.max).toBe(4);
  });

  it("refuses a concurrency below 1", async () => {
    const dag = new il.DAG(il.source({ key: "s", assets: [il.asset({ key: "a", run: () => [] })] })({ destinations: mem() }));
    expect(await caught(() => dag.materialize(null, { concurrency: 0 }))).toBeInstanceOf(Error);
  });

  it("runs only materializable assets", async () => {
    const ran: string[] = [];
    const a = il.asset({ key: "a", run: () => (ran.push("a"), [{ n: 1 }]) });
    const b = il.asset({ key: "b", materializable: false, run: () => (ran.push("b"), [{ n: 1 }]) });
    const result = await new il.DAG(il.source({ key: "s", assets: [a, b] })({ destinations: mem() })).materialize();
    expect(ran).toEqual(["a"]);
    expect(Object.keys(result.assetExecutions)).toEqual(["s.a"]);
  });
});

describe("failures", () => {
  function failingDag(log: string[]) {
    const boom = il.asset({
      key: "boom",
      run: async () => {
        log.push("boom");
        await tick();
        throw new Error("kaput");
      },
    });
    const child = il.asset({ key: "child", requires: { boom: "boom" }, run: () => (log.push("child"), [{ n: 1 }]) });
    const grandchild = il.asset({ key: "grandchild", requires: { child: "child" }, run: () => (log.push("grandchild"), [{ n: 1 }]) });
    const other = il.asset({ key: "other", run: () => (log.push("other"), [{ n: 1 }]) });
    const otherChild = il.asset({ key: "other_child", requires: { other: "other" }, run: () => (log.push("other_child"), [{ n: 1 }]) });
    return new il.DAG(il.source({ key: "s", assets: [boom, child, grandchild, other, otherChild] })({ destinations: mem() }));
  }

  it("failFast (the default) stops scheduling and cancels dependents", async () => {
    const log: string[] = [];
    const { events, onEvent } = collector();
    const result = await failingDag(log).materialize(null, { concurrency: 1, onEvent });
    expect(result.status).toBe("failed");
    expect(result.failedAssets).toEqual(["s.boom"]);
    expect(result.canceledAssets.sort()).toEqual(["s.child", "s.grandchild", "s.other", "s.other_child"]);
    expect(log).toEqual(["boom"]);
    expect(result.error).toBeInstanceOf(il.AssetError);
    expect(result.error!.message).toContain("kaput");
    expect(result.assetExecutions["s.boom"]!.status).toBe("failed");
    expect(result.assetExecutions["s.boom"]!.startTime).toBeInstanceOf(Date);
    expect(result.assetExecutions["s.child"]!.status).toBe("canceled");
    const canceled = events
      .filter((e) => e.type === "asset:canceled")
      .map((e) => (e as { asset: string }).asset)
      .sort();
    expect(canceled).toEqual(["s.child", "s.grandchild", "s.other", "s.other_child"]);
    expect(events.at(-1)!.type).toBe("run:failed");
  });

  it("failFast false runs independent assets and cancels only dependents of the failure", async () => {
    const log: string[] = [];
    const result = await failingDag(log).materialize(null, { concurrency: 1, failFast: false });
    expect(result.status).toBe("failed");
    expect(result.failedAssets).toEqual(["s.boom"]);
    expect(result.canceledAssets.sort()).toEqual(["s.child", "s.grandchild"]);
    expect(result.completedAssets.sort()).toEqual(["s.other", "s.other_child"]);
    expect(log).not.toContain("child");
    expect(log).not.toContain("grandchild");
    expect(log).toContain("other_child");
  });

  it("captures a failure in the RunResult instead of rejecting", async () => {
    const a = il.asset({ key: "a", run: () => Promise.reject(new TypeError("nope")) });
    const promise = new il.DAG(il.source({ key: "s", assets: [a] })({ destinations: mem() })).materialize();
    await expect(promise).resolves.toBeInstanceOf(il.RunResult);
    const result = await promise;
    expect(result.status).toBe("failed");
    expect(result.failedAssets).toEqual(["s.a"]);
    expect(result.error?.message).toContain("nope");
  });

  it("captures a thrown non-Error value and a destination write failure", async () => {
    const a = il.asset({
      key: "a",
      run: () => {
        throw "a string";
      },
    });
    const b = il.asset({ key: "b", run: () => [{ n: 1 }] });
    class Broken extends RecordingDestination {
      override writePartition(): void {
        throw new Error("disk full");
      }
    }
    const dag = new il.DAG(
      il.source({ key: "s", assets: [a] })({ destinations: mem() }),
      il.source({ key: "t", assets: [b] })({ destinations: [mem(), new Broken()] }),
    );
    const result = await dag.materialize(null, { failFast: false });
    expect(result.status).toBe("failed");
    expect(result.failedAssets.sort()).toEqual(["s.a", "t.b"]);
    expect(result.assetExecutions["s.a"]!.error).toBeInstanceOf(Error);
    expect(result.assetExecutions["t.b"]!.error!.message).toContain("disk full");
    const keys = dag.find("t.b")!.destinationKeys;
    expect(result.assetExecutions["t.b"]!.written).toEqual([keys[0]]);
    expect(result.assetExecutions["t.b"]!.failedDestinations).toEqual([keys[1]]);
    // The error itself carries both lists, typed: a DestinationWriteError (an AssetError).
    const error = result.assetExecutions["t.b"]!.error;
    expect(error).toBeInstanceOf(il.DestinationWriteError);
    expect(error).toBeInstanceOf(il.AssetError);
    expect([
      (error as il.DestinationWriteError).written,
      (error as il.DestinationWriteError).failedDestinations,
      (error as il.DestinationWriteError).code,
    ]).toEqual([[keys[0]], [keys[1]], "DESTINATION_WRITE_ERROR"]);
    // One destination holds the data: the verb agrees.
    expect(result.assetExecutions["t.b"]!.error!.message).toMatch(new RegExp(`; ${keys[0]} holds the new data$`));
  });

  it("a failing upstream read (nothing stored) fails the downstream asset when run alone", async () => {
    const up = il.asset({ key: "up", run: () => [{ n: 1 }] });
    const down = il.asset({ key: "down", requires: { up: "up" }, run: () => [{ n: 1 }] });
    const dag = new il.DAG(il.source({ key: "s", assets: [up, down] })({ destinations: mem() }));
    const result = await dag.materialize(null, { assets: ["s.down"] });
    expect(result.status).toBe("failed");
    expect(result.error).toBeInstanceOf(il.DataNotFoundError);
  });
});

describe("window rules", () => {
  const windowed = (key: string, calls: string[], extra: Record<string, unknown> = {}) =>
    il.asset({
      key,
      partitioning: new il.TimePartitionConfig({ column: "date", allowWindow: true, start: "2026-01-01" }),
      ...extra,
      run: (ctx) => {
        calls.push(`${key} ${String(ctx.window)}`);
        return ctx.window!.partitions.map((p) => ({ date: p.key, n: 1 }));
      },
    });
  const single = (key: string, calls: string[]) =>
    il.asset({
      key,
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      run: (ctx) => {
        calls.push(`${key} ${String(ctx.window)}`);
        return [{ date: ctx.partition!.key, n: 1 }];
      },
    });

  it("runs a window of several partitions as one execution when every partitioned asset allows windows", async () => {
    const calls: string[] = [];
    const rec = new RecordingDestination();
    const a = windowed("a", calls);
    const b = windowed("b", calls, { requires: { a: "a" } });
    const flat = il.asset({ key: "flat", run: (ctx) => (calls.push(`flat ${String(ctx.window)}`), [{ n: 1 }]) });
    const result = await new il.DAG(il.source({ key: "s", assets: [a, b, flat] })({ destinations: rec })).materialize(
      days("2026-01-01", "2026-01-03"),
    );
    expect(result.status).toBe("completed");
    expect(result.partitionOrWindow).toBe("2026-01-01..2026-01-03");
    expect(calls.sort()).toEqual(["a 2026-01-01..2026-01-03", "b 2026-01-01..2026-01-03", "flat null"]);
    expect(
      rec
        .writes()
        .filter((w) => w.context.asset.key === "s.a")
        .map((w) => w.partition?.key),
    ).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"]);
  });

  it("refuses a multi-partition window when some partitioned assets do not allow windows, listing every one, running nothing", async () => {
    const calls: string[] = [];
    const rec = new RecordingDestination();
    const { events, onEvent } = collector();
    const dag = new il.DAG(
      il.source({
        key: "s",
        assets: [
          windowed("ok", calls),
          single("no1", calls),
          single("no2", calls),
          il.asset({ key: "flat", run: () => (calls.push("flat"), [{ n: 1 }]) }),
        ],
      })({ destinations: [mem(), rec] }),
    );
    const error = await caught(() => dag.materialize(days("2026-01-01", "2026-01-02"), { onEvent }));
    expect(error).toBeInstanceOf(il.PartitionError);
    expect(error.message).toContain("s.no1");
    expect(error.message).toContain("s.no2");
    expect(error.message).not.toContain("s.ok");
    expect(calls).toEqual([]);
    expect(rec.calls).toEqual([]);
    expect(events.filter((e) => e.type.startsWith("asset:") || e.type.startsWith("destination:"))).toEqual([]);
    expect(await caught(() => dag.find("s.ok")!.read(day("2026-01-01")))).toBeInstanceOf(il.DataNotFoundError);
  });

  it("checks only enabled assets: a non-materializable asset without allowWindow does not block a window", async () => {
    const calls: string[] = [];
    const disabled = il.asset({
      key: "disabled",
      materializable: false,
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      run: () => (calls.push("disabled"), []),
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [windowed("w", calls), disabled] })({ destinations: mem() }));
    const result = await dag.materialize(days("2026-01-01", "2026-01-03"));
    expect(result.status).toBe("completed");
    expect(calls).toEqual(["w 2026-01-01..2026-01-03"]);
  });

  it("runs a single partition across windowed and non-windowed assets", async () => {
    const calls: string[] = [];
    const dag = new il.DAG(il.source({ key: "s", assets: [windowed("w", calls), single("p", calls)] })({ destinations: mem() }));
    const result = await dag.materialize(day("2026-01-05"));
    expect(result.status).toBe("completed");
    expect(calls.sort()).toEqual(["p 2026-01-05", "w 2026-01-05"]);
  });

  it("refuses a partitioned asset with no window with PartitionError, running nothing", async () => {
    const calls: string[] = [];
    const dag = new il.DAG(
      il.source({ key: "s", assets: [single("p", calls), il.asset({ key: "flat", run: () => (calls.push("flat"), [{ n: 1 }]) })] })({
        destinations: mem(),
      }),
    );
    const error = await caught(() => dag.materialize());
    expect(error).toBeInstanceOf(il.PartitionError);
    expect(error.message).toContain("s.p");
    expect(calls).toEqual([]);
  });

  it("lets unpartitioned assets ignore the window", async () => {
    let seenWindow: unknown = "unset";
    const flat = il.asset({ key: "flat", run: (ctx) => ((seenWindow = ctx.window), [{ n: 1 }]) });
    const rec = new RecordingDestination();
    const result = await new il.DAG(il.source({ key: "s", assets: [flat] })({ destinations: rec })).materialize(day("2026-01-05"));
    expect(result.status).toBe("completed");
    expect(seenWindow).toBeNull();
    expect(rec.writes()[0]!.partition).toBeNull();
    expect(rec.writes()[0]!.context.window).toBeNull();
  });

  it("refuses a window reaching before the partitioning's start with PartitionError", async () => {
    const calls: string[] = [];
    const dag = new il.DAG(il.source({ key: "s", assets: [windowed("w", calls)] })({ destinations: mem() }));
    const error = await caught(() => dag.materialize(days("2025-12-30", "2026-01-02")));
    expect(error).toBeInstanceOf(il.PartitionError);
    expect(error.message).toContain("s.w");
    expect(calls).toEqual([]);
    expect(await caught(() => dag.find("s.w")!.run(day("2025-12-31")))).toBeInstanceOf(il.PartitionError);
  });

  it("refuses a window of another granularity or kind with PartitionError", async () => {
    const calls: string[] = [];
    const dag = new il.DAG(il.source({ key: "s", assets: [windowed("w", calls)] })({ destinations: mem() }));
    expect(await caught(() => dag.materialize(new il.TimePartition("2026-02", il.TimeGranularity.MONTH)))).toBeInstanceOf(
      il.PartitionError,
    );
    const list = new il.ListPartitionConfig({ column: "r", values: ["eu"] });
    expect(await caught(() => dag.materialize(list.partition("eu")))).toBeInstanceOf(il.PartitionError);
    expect(calls).toEqual([]);
  });

  it("runs list-partitioned assets through dag.materialize", async () => {
    const config = new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] });
    const a = il.asset({ key: "sales", partitioning: config, run: (ctx) => [{ region: ctx.partition!.key, total: 1 }] });
    const s = il.source({ key: "s", assets: [a] })({ destinations: mem() });
    const result = await new il.DAG(s).materialize(config.partition("us"));
    expect(result.status).toBe("completed");
    expect(await s.assets.sales.read(config.partition("us"))).toEqual([{ region: "us", total: 1 }]);
    expect(await s.assets.sales.partitionRowCounts()).toEqual({ us: 1 });
  });
});
