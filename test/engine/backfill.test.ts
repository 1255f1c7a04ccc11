import { beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { caught, collector, day, days, gauge, RecordingDestination, tick } from "./helpers.js";

beforeEach(() => il.MemoryDestination.clear());

const daily = (allowWindow = false) => new il.TimePartitionConfig({ column: "date", start: "2026-01-01", allowWindow });

/** A source with one partitioned asset recording the partition of each of its runs. */
function recordingSource(runs: string[], options: { fail?: (key: string) => boolean; wait?: () => Promise<void> } = {}) {
  const a = il.asset({
    key: "daily",
    partitioning: daily(),
    run: async (ctx) => {
      runs.push(ctx.partition!.key);
      await (options.wait?.() ?? tick(1));
      if (options.fail?.(ctx.partition!.key)) throw new Error(`bad day ${ctx.partition!.key}`);
      return [{ date: ctx.partition!.key, n: 1 }];
    },
  });
  return il.source({ key: "s", assets: [a] });
}

describe("backfill", () => {
  it("runs one run per partition, newest first by default", async () => {
    const runs: string[] = [];
    const dag = new il.DAG(recordingSource(runs)({ destinations: new il.MemoryDestination() }));
    const { events, onEvent } = collector();
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-04"), { concurrency: 1, onEvent });
    expect(result).toBeInstanceOf(il.BackfillResult);
    expect(result.status).toBe("completed");
    expect(runs).toEqual(["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"]);
    expect(result.partitions.map((p) => p.key)).toEqual(["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"]);
    expect(result.partitions.every((p) => p.status === "completed" && p.result?.status === "completed")).toBe(true);
    const runStarts = events.filter((e) => e.type === "run:started").map((e) => e.partition);
    expect(runStarts).toEqual(["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"]);
    expect(events[0]!.type).toBe("backfill:started");
    expect(events.at(-1)!.type).toBe("backfill:completed");
    expect(await dag.find("s.daily")!.partitionRowCounts()).toEqual({ "2026-01-01": 1, "2026-01-02": 1, "2026-01-03": 1, "2026-01-04": 1 });
  });

  it('runs oldest first with order: "oldest"', async () => {
    const runs: string[] = [];
    const dag = new il.DAG(recordingSource(runs)({ destinations: new il.MemoryDestination() }));
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-04"), { concurrency: 1, order: "oldest" });
    expect(runs).toEqual(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]);
    expect(result.partitions.map((p) => p.key)).toEqual(runs);
  });

  it("runs a windowed asset one partition per run too", async () => {
    const windows: string[] = [];
    const a = il.asset({
      key: "w",
      partitioning: daily(true),
      run: (ctx) => (windows.push(String(ctx.window)), [{ date: ctx.partition!.key }]),
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [a] })({ destinations: new il.MemoryDestination() }));
    await il.backfill(dag, days("2026-01-01", "2026-01-03"), { order: "oldest", concurrency: 1 });
    expect(windows).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"]);
  });

  it.each([1, 2, 3])("keeps at most %i partitions in flight", async (limit) => {
    const g = gauge();
    const a = il.asset({
      key: "daily",
      partitioning: daily(),
      run: async (ctx) => {
        g.enter();
        await tick(10);
        g.leave();
        return [{ date: ctx.partition!.key }];
      },
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [a] })({ destinations: new il.MemoryDestination() }));
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-06"), { concurrency: limit });
    expect(result.status).toBe("completed");
    expect(g.max).toBe(limit);
  });

  it("runs unpartitioned assets once and lists them apart", async () => {
    let flatRuns = 0;
    const runs: string[] = [];
    const flat = il.asset({ key: "flat", run: () => (flatRuns++, [{ n: 1 }]) });
    const dailyA = il.asset({
      key: "daily",
      partitioning: daily(),
      requires: { flat: "flat" },
      run: (ctx) => (runs.push(ctx.partition!.key), [{ date: ctx.partition!.key }]),
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [flat, dailyA] })({ destinations: new il.MemoryDestination() }));
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-03"));
    expect(result.status).toBe("completed");
    expect(flatRuns).toBe(1);
    expect(runs.sort()).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"]);
    expect(result.unpartitioned?.completedAssets).toEqual(["s.flat"]);
    for (const p of result.partitions) expect(Object.keys(p.result!.assetExecutions)).toEqual(["s.daily"]);
  });

  it("accepts a bare partition as a window of one", async () => {
    const runs: string[] = [];
    const dag = new il.DAG(recordingSource(runs)({ destinations: new il.MemoryDestination() }));
    const result = await il.backfill(dag, day("2026-01-02"));
    expect(runs).toEqual(["2026-01-02"]);
    expect(result.completedPartitions).toEqual(["2026-01-02"]);
  });

  it("refuses a window reaching before the start with PartitionError, running nothing", async () => {
    const runs: string[] = [];
    const dag = new il.DAG(recordingSource(runs)({ destinations: new il.MemoryDestination() }));
    expect(await caught(() => il.backfill(dag, days("2025-12-31", "2026-01-02")))).toBeInstanceOf(il.PartitionError);
    expect(runs).toEqual([]);
  });

  it("lists every asset that cannot run the window before anything runs, named by the window, as dag.materialize does", async () => {
    const runs: string[] = [];
    const late = (key: string, start: string) =>
      il.asset({
        key,
        partitioning: new il.TimePartitionConfig({ column: "date", start, allowWindow: true }),
        run: (ctx) => (runs.push(`${key} ${ctx.partition!.key}`), [{ date: ctx.partition!.key }]),
      });
    const dag = new il.DAG(
      il.source({ key: "s", assets: [late("a", "2026-01-05"), late("b", "2026-01-03")] })({ destinations: new il.MemoryDestination() }),
    );
    const window = days("2026-01-01", "2026-01-10");
    const expected =
      '2 assets cannot run this window: asset "s.a" starts at 2026-01-05 but the window 2026-01-01..2026-01-10 reaches before it; ' +
      'asset "s.b" starts at 2026-01-03 but the window 2026-01-01..2026-01-10 reaches before it';
    const whole = await caught(() => dag.materialize(window));
    expect(whole.message).toBe(expected);
    const backfill = await caught(() => il.backfill(dag, window));
    expect(backfill).toBeInstanceOf(il.PartitionError);
    expect(backfill.message).toBe(expected);
    expect(runs).toEqual([]);
  });

  it("lists each partition's outcome; failFast stops scheduling after a failed partition", async () => {
    const runs: string[] = [];
    const dag = new il.DAG(recordingSource(runs, { fail: (k) => k === "2026-01-02" })({ destinations: new il.MemoryDestination() }));
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-05"), { concurrency: 1, order: "oldest", failFast: true });
    expect(result.status).toBe("failed");
    expect(runs).toEqual(["2026-01-01", "2026-01-02"]);
    expect(result.partitions.map((p) => [p.key, p.status])).toEqual([
      ["2026-01-01", "completed"],
      ["2026-01-02", "failed"],
      ["2026-01-03", "canceled"],
      ["2026-01-04", "canceled"],
      ["2026-01-05", "canceled"],
    ]);
    expect(result.completedPartitions).toEqual(["2026-01-01"]);
    expect(result.failedPartitions).toEqual(["2026-01-02"]);
    expect(result.canceledPartitions).toEqual(["2026-01-03", "2026-01-04", "2026-01-05"]);
    expect(result.partitions[1]!.result?.error?.message).toContain("bad day 2026-01-02");
    expect(result.partitions[2]!.result).toBeNull();
  });

  it("by default (failFast false) runs every partition and reports the failed ones", async () => {
    const runs: string[] = [];
    const dag = new il.DAG(
      recordingSource(runs, { fail: (k) => k === "2026-01-02" || k === "2026-01-04" })({ destinations: new il.MemoryDestination() }),
    );
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-05"), { concurrency: 2 });
    expect(result.status).toBe("failed");
    expect(runs.sort()).toEqual(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05"]);
    expect(result.failedPartitions.sort()).toEqual(["2026-01-02", "2026-01-04"]);
    expect(result.completedPartitions.sort()).toEqual(["2026-01-01", "2026-01-03", "2026-01-05"]);
    expect(result.canceledPartitions).toEqual([]);
  });

  it("re-runs only the partitions that did not complete with only: result.incompletePartitions", async () => {
    const runs: string[] = [];
    let broken = true;
    const dag = new il.DAG(
      recordingSource(runs, { fail: (k) => broken && k === "2026-01-03" })({ destinations: new il.MemoryDestination() }),
    );
    const window = days("2026-01-01", "2026-01-05");
    const first = await il.backfill(dag, window, { concurrency: 1, failFast: true });
    expect(first.status).toBe("failed");
    // Newest first: 05 and 04 complete, 03 fails, 02 and 01 are canceled.
    expect(first.completedPartitions).toEqual(["2026-01-05", "2026-01-04"]);
    expect(first.incompletePartitions).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
    runs.length = 0;
    broken = false;
    const second = await il.backfill(dag, window, { concurrency: 1, only: first.incompletePartitions });
    expect(second.status).toBe("completed");
    expect(runs).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
    expect(second.partitions.map((p) => p.key)).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
    expect(second.incompletePartitions).toEqual([]);
    expect(Object.keys(await dag.find("s.daily")!.partitionRowCounts())).toEqual([
      "2026-01-01",
      "2026-01-02",
      "2026-01-03",
      "2026-01-04",
      "2026-01-05",
    ]);
  });

  it("carries the backfillId in every event and in IOContext.metadata of writes", async () => {
    const rec = new RecordingDestination();
    const up = il.asset({ key: "up", partitioning: daily(), run: (ctx) => [{ date: ctx.partition!.key, n: 1 }] });
    const down = il.asset({
      key: "down",
      partitioning: daily(),
      requires: { up: "up" },
      run: (ctx) => [{ date: ctx.partition!.key, m: 2 }],
    });
    const flat = il.asset({ key: "flat", run: () => [{ n: 1 }] });
    const dag = new il.DAG(il.source({ key: "s", assets: [up, down, flat] })({ destinations: rec }));
    const { events, onEvent } = collector();
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-02"), { onEvent, backfillId: "bf-1" });
    expect(result.status).toBe("completed");
    expect(result.backfillId).toBe("bf-1");
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(event.backfillId).toBe("bf-1");
      expect(typeof event.runId).toBe("string");
      const line = JSON.stringify(event);
      expect(line).not.toContain("\n");
      expect(JSON.parse(line)).toEqual(event);
    }
    const runIds = new Set([...result.partitions.map((p) => p.result!.runId), result.unpartitioned!.runId]);
    expect(runIds.size).toBe(3);
    expect(events.filter((e) => e.type === "asset:completed" && e.asset === "s.flat")).toHaveLength(1);
    const writes = rec.calls.filter((c) => c.op === "write");
    expect(writes).toHaveLength(5);
    for (const call of writes) {
      expect(call.context.metadata.backfillId).toBe("bf-1");
      expect(runIds.has(call.context.metadata.runId)).toBe(true);
    }
  });

  it("carries the run's runId and backfillId in IOContext.metadata of upstream reads", async () => {
    const rec = new RecordingDestination();
    const up = il.asset({ key: "up", partitioning: daily(), run: (ctx) => [{ date: ctx.partition!.key, n: 1 }] });
    const down = il.asset({
      key: "down",
      partitioning: daily(),
      requires: { up: "up" },
      run: (ctx) => [{ date: ctx.partition!.key, m: 2 }],
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [up, down] })({ destinations: rec }));
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-02"), { backfillId: "bf-2" });
    expect(result.status).toBe("completed");
    const runIds = new Set(result.partitions.map((p) => p.result!.runId));
    const reads = rec.calls.filter((c) => c.op === "read");
    expect(reads).toHaveLength(2);
    for (const call of reads) {
      expect(runIds.has(call.context.metadata.runId)).toBe(true);
      expect(call.context.metadata).toEqual({ runId: call.context.metadata.runId, backfillId: "bf-2" });
    }
  });

  it("gives the execution context the backfillId and each partition run its own runId", async () => {
    const seen: Array<[string, string | undefined]> = [];
    const a = il.asset({
      key: "a",
      partitioning: daily(),
      run: (ctx) => (seen.push([ctx.runId, ctx.backfillId]), [{ date: ctx.partition!.key }]),
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [a] })({ destinations: new il.MemoryDestination() }));
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-03"), { backfillId: "bf-ctx" });
    expect(seen.map(([, b]) => b)).toEqual(["bf-ctx", "bf-ctx", "bf-ctx"]);
    expect(new Set(seen.map(([r]) => r))).toEqual(new Set(result.partitions.map((p) => p.result!.runId)));
  });

  it("cancels every partition when the unpartitioned assets fail under failFast", async () => {
    const runs: string[] = [];
    const flat = il.asset({
      key: "flat",
      run: () => {
        throw new Error("no customers");
      },
    });
    const a = il.asset({
      key: "daily",
      partitioning: daily(),
      run: (ctx) => (runs.push(ctx.partition!.key), [{ date: ctx.partition!.key }]),
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [flat, a] })({ destinations: new il.MemoryDestination() }));
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-03"), { failFast: true });
    expect(result.status).toBe("failed");
    expect(result.unpartitioned?.failedAssets).toEqual(["s.flat"]);
    expect(runs).toEqual([]);
    expect(result.canceledPartitions).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
    expect(result.incompletePartitions).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
  });

  it("generates a backfillId when none is given", async () => {
    const runs: string[] = [];
    const dag = new il.DAG(recordingSource(runs)({ destinations: new il.MemoryDestination() }));
    const { events, onEvent } = collector();
    const result = await il.backfill(dag, days("2026-01-01", "2026-01-02"), { onEvent });
    expect(typeof result.backfillId).toBe("string");
    expect(result.backfillId.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.backfillId))).toEqual(new Set([result.backfillId]));
  });
});
