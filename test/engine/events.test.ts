import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { collector, day, RecordingDestination } from "./helpers.js";

beforeEach(() => il.MemoryDestination.clear());

function twoAssets(destinations: il.Destination | il.Destination[] = new il.MemoryDestination()) {
  const a = il.asset({ key: "a", run: () => [{ n: 1 }, { n: 2 }] });
  const b = il.asset({ key: "b", requires: { a: "a" }, run: (_ctx, { a }) => (a as Array<{ n: number }>).map((r) => ({ m: r.n * 10 })) });
  return new il.DAG(il.source({ key: "s", assets: [a, b] })({ destinations }));
}

/** A compact view of an event: its type and the asset it is about. */
const brief = (e: il.InterloperEvent) => ("asset" in e && e.asset ? `${e.type} ${e.asset}` : e.type);

describe("events", () => {
  it("emits the exact sequence for a simple two-asset run", async () => {
    const { events, onEvent } = collector();
    const result = await twoAssets().materialize(null, { onEvent });
    expect(result.status).toBe("completed");
    expect(events.map(brief)).toEqual([
      "run:started",
      "asset:queued s.a",
      "asset:queued s.b",
      "asset:started s.a",
      "destination:write:started s.a",
      "destination:write:completed s.a",
      "asset:completed s.a",
      "asset:started s.b",
      "destination:read:started s.b",
      "destination:read:completed s.b",
      "destination:write:started s.b",
      "destination:write:completed s.b",
      "asset:completed s.b",
      "run:completed",
    ]);
  });

  it("carries row counts, durations and destination names", async () => {
    const { events, onEvent } = collector();
    await twoAssets().materialize(null, { onEvent });
    const byType = (type: string) => events.filter((e) => e.type === type) as unknown as Array<Record<string, unknown>>;
    expect(byType("run:started")[0]!["assets"]).toEqual(["s.a", "s.b"]);
    expect(byType("asset:completed").map((e) => e["rows"])).toEqual([2, 2]);
    expect(byType("destination:write:completed").map((e) => e["rows"])).toEqual([2, 2]);
    expect(byType("destination:read:completed").map((e) => e["rows"])).toEqual([2]);
    for (const e of byType("destination:write:started")) expect(typeof e["destination"]).toBe("string");
    for (const e of byType("asset:completed")) expect(typeof e["durationMs"]).toBe("number");
    const end = byType("run:completed")[0]!;
    expect(end["completed"]).toEqual(["s.a", "s.b"]);
    expect(end["failed"]).toEqual([]);
    expect(end["canceled"]).toEqual([]);
  });

  it("emits one write pair per destination", async () => {
    const { events, onEvent } = collector();
    await twoAssets([new il.MemoryDestination(), new RecordingDestination()]).materialize(null, { onEvent });
    const writes = events.filter((e) => e.type === "destination:write:completed" && e.asset === "s.a");
    expect(writes).toHaveLength(2);
  });

  it("emits asset:failed, asset:canceled and run:failed with error data", async () => {
    const a = il.asset({
      key: "a",
      run: () => {
        throw new Error("kaput");
      },
    });
    const b = il.asset({ key: "b", requires: { a: "a" }, run: () => [] });
    const { events, onEvent } = collector();
    await new il.DAG(il.source({ key: "s", assets: [a, b] })({ destinations: new il.MemoryDestination() })).materialize(null, { onEvent });
    expect(events.map(brief)).toEqual([
      "run:started",
      "asset:queued s.a",
      "asset:queued s.b",
      "asset:started s.a",
      "asset:failed s.a",
      "asset:canceled s.b",
      "run:failed",
    ]);
    const failed = events.find((e) => e.type === "asset:failed") as Extract<il.InterloperEvent, { type: "asset:failed" }>;
    expect(failed.error.name).toBe("AssetError");
    expect(failed.error.code).toBe("ASSET_ERROR");
    expect(failed.error.message).toContain("kaput");
    const canceled = events.find((e) => e.type === "asset:canceled") as Extract<il.InterloperEvent, { type: "asset:canceled" }>;
    expect(canceled.reason).toContain("s.a");
  });

  it("emits destination:write:failed when a destination refuses the data", async () => {
    class Broken extends RecordingDestination {
      override writePartition(): void {
        throw new Error("disk full");
      }
    }
    const a = il.asset({ key: "a", run: () => [{ n: 1 }] });
    const { events, onEvent } = collector();
    const result = await new il.DAG(il.source({ key: "s", assets: [a] })({ destinations: new Broken() })).materialize(null, { onEvent });
    expect(result.status).toBe("failed");
    expect(events.map(brief)).toContain("destination:write:failed s.a");
  });

  it("makes every event JSON-serialisable to one line carrying the runId", async () => {
    const a = il.asset({
      key: "a",
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      run: (ctx) => {
        ctx.logger.info("multi\nline message");
        return [{ date: ctx.partition!.key }];
      },
    });
    const b = il.asset({
      key: "b",
      run: () => {
        throw new Error("with\nnewline");
      },
    });
    const { events, onEvent } = collector();
    const result = await new il.DAG(il.source({ key: "s", assets: [a, b] })({ destinations: new il.MemoryDestination() })).materialize(
      day("2026-01-02"),
      {
        onEvent,
        failFast: false,
      },
    );
    expect(events.map((e) => e.type)).toContain("log");
    for (const event of events) {
      const line = JSON.stringify(event);
      expect(line.split("\n")).toHaveLength(1);
      expect(JSON.parse(line)).toEqual(event);
      expect(event.runId).toBe(result.runId);
      expect(typeof event.time).toBe("string");
      expect(new Date(event.time).toISOString()).toBe(event.time);
      expect(event.backfillId).toBeUndefined();
    }
    expect(events.filter((e) => e.type.startsWith("asset:")).every((e) => (e as { partition?: string }).partition === "2026-01-02")).toBe(
      true,
    );
  });

  it("serialises a RunResult to JSON", async () => {
    const result = await twoAssets().materialize();
    const parsed = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
    expect(parsed["status"]).toBe("completed");
    expect(Object.keys(parsed["assetExecutions"] as object)).toEqual(["s.a", "s.b"]);
  });

  describe("subscribe", () => {
    const unsubscribers: Array<() => void> = [];
    afterEach(() => {
      for (const off of unsubscribers.splice(0)) off();
    });

    it("delivers events to subscribers until they unsubscribe", async () => {
      const seen: il.InterloperEvent[] = [];
      const off = il.subscribe((e) => seen.push(e));
      unsubscribers.push(off);
      const { events, onEvent } = collector();
      const first = await twoAssets().materialize(null, { onEvent });
      const fromFirst = seen.filter((e) => e.runId === first.runId);
      expect(fromFirst).toEqual(events);
      off();
      const second = await twoAssets().materialize();
      expect(seen.filter((e) => e.runId === second.runId)).toEqual([]);
    });

    it("delivers backfill events to subscribers once each", async () => {
      const seen: il.InterloperEvent[] = [];
      unsubscribers.push(il.subscribe((e) => seen.push(e)));
      const a = il.asset({
        key: "a",
        partitioning: new il.TimePartitionConfig({ column: "date" }),
        run: (ctx) => [{ date: ctx.partition!.key }],
      });
      const dag = new il.DAG(il.source({ key: "s", assets: [a] })({ destinations: new il.MemoryDestination() }));
      const { events, onEvent } = collector();
      const result = await il.backfill(dag, new il.TimePartitionWindow("2026-01-01", "2026-01-02"), { onEvent });
      const mine = seen.filter((e) => e.backfillId === result.backfillId);
      expect(mine).toEqual(events);
      expect(mine.filter((e) => e.type === "backfill:started")).toHaveLength(1);
      expect(mine.filter((e) => e.type === "run:started")).toHaveLength(2);
    });

    it("delivers logger calls and conform warnings of asset.run() outside a DAG to subscribers", async () => {
      const seen: il.InterloperEvent[] = [];
      unsubscribers.push(il.subscribe((e) => seen.push(e)));
      const a = il.asset({
        key: "a",
        schema: z.object({ id: z.number() }),
        strategy: "reconcile",
        run: (ctx) => {
          ctx.logger.info("fetching");
          return [{ id: 1, junk: true }];
        },
      });
      const s = il.source({ key: "s", assets: [a] })({ destinations: new il.MemoryDestination() });
      await s.assets.a.run();
      await s.assets.a.materialize();
      const logs = seen.filter((e) => e.type === "log" && e.asset === "s.a");
      expect(logs.filter((e) => e.type === "log" && e.message === "fetching")).toHaveLength(2);
      expect(logs.filter((e) => e.type === "log" && e.level === "warn" && e.message.includes("junk"))).toHaveLength(2);
    });

    it("does not let a throwing listener break the run", async () => {
      const off = il.subscribe(() => {
        throw new Error("listener bug");
      });
      unsubscribers.push(off);
      // The runner reports a throwing listener as a process warning; keep the output quiet.
      const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
      try {
        const result = await twoAssets().materialize(null, {
          onEvent: () => {
            throw new Error("handler bug");
          },
        });
        expect(result.status).toBe("completed");
        expect(result.completedAssets).toEqual(["s.a", "s.b"]);
        const messages = warn.mock.calls.map((c) => String(c[0]));
        expect(messages.some((m) => m.includes("handler bug"))).toBe(true);
        expect(messages.some((m) => m.includes("listener bug"))).toBe(true);
      } finally {
        warn.mockRestore();
      }
    });
  });

  it("carries the runId into IOContext.metadata of writes and reads", async () => {
    const rec = new RecordingDestination();
    const result = await twoAssets(rec).materialize(null, { runId: "run-7" });
    expect(result.runId).toBe("run-7");
    expect(rec.calls.length).toBeGreaterThanOrEqual(3);
    for (const call of rec.calls) expect(call.context.metadata.runId).toBe("run-7");
    expect(rec.calls.some((c) => c.op === "read")).toBe(true);
  });
});
