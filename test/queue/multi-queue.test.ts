// Multi partitions on the work queue (issue 36): a job carries its key joined by "|" (into
// PostgreSQL and back, in the backfill's id and its job graph), each combination runs once, a
// day's total waits for the three regions of its day only, and a failed combination fails alone.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { backfillProgress, enqueuePlan, runWorker } from "../../src/queue/index.js";
import { jobGraph } from "../../src/queue/job-graph.js";
import { postgresAvailable } from "../database/servers.js";
import { queuePerTest } from "./schema-per-test.js";

const up = await postgresAvailable();

const runs: string[] = [];
let poisoned = new Set<string>();

const stock = il.asset({
  key: "stock",
  partitioning: new il.MultiPartitionConfig({
    date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }),
  }),
  run: (ctx) => {
    runs.push(`stock ${ctx.partition.key}`);
    if (poisoned.has(ctx.partition.key)) throw new Error(`poisoned ${ctx.partition.key}`);
    return [{ ...ctx.partition.keys, units: 1 }];
  },
});
const total = il.asset({
  key: "total",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  requires: { stock },
  run: (ctx, deps) => {
    runs.push(`total ${ctx.partition!.key}`);
    return [{ date: ctx.partition!.key, units: (deps.stock as unknown[]).length }];
  },
});

const project = () =>
  projectOf({ sources: [il.source({ key: "shop", assets: [stock, total] })({ destinations: new il.MemoryDestination() })] });

describe("the job graph of multi keys", () => {
  it("a day's total waits for its own day's three regions only", () => {
    const p = project();
    const graph = jobGraph(p.dag, il.planMaterialize(p, { window: "2026-01-01..2026-01-02" }).schedule);
    const name = (id: number) => `${graph.slots[id]!.partition} ${graph.slots[id]!.assets.join("+")}`;
    const parents = graph.edges.filter((e) => name(e.child) === "2026-01-02 shop.total").map((e) => name(e.parent));
    expect(parents.sort()).toEqual(["2026-01-02|apac shop.stock", "2026-01-02|eu shop.stock", "2026-01-02|us shop.stock"]);
  });
});

describe.skipIf(!up)("multi partitions on the queue", () => {
  const queue = queuePerTest("il_qm", () => {
    runs.length = 0;
    poisoned = new Set();
    il.MemoryDestination.clear();
  });

  it("runs every combination once and each day's total after its regions; a failed combination fails alone", async () => {
    const connection = await queue.open({ supervise: true, maintenanceIntervalSeconds: 1 });
    poisoned = new Set(["2026-01-01|us"]);
    const p = project();
    const enqueued = await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-01-01..2026-01-02" }), { retries: 0 });
    expect(enqueued).toMatchObject({ created: true, jobs: 6 + 2 });
    const summary = await runWorker(connection, p, { concurrency: 3, idleExitSeconds: 1, pollSeconds: 0.2 });
    expect(summary).toMatchObject({ completed: 6, failed: 1 });
    expect(runs.filter((r) => r.startsWith("stock")).sort()).toEqual([
      "stock 2026-01-01|apac",
      "stock 2026-01-01|eu",
      "stock 2026-01-01|us",
      "stock 2026-01-02|apac",
      "stock 2026-01-02|eu",
      "stock 2026-01-02|us",
    ]);
    // The day whose us failed has no total; the other day's came after its three regions.
    expect(runs.filter((r) => r.startsWith("total"))).toEqual(["total 2026-01-02"]);
    const at = (r: string) => runs.indexOf(r);
    expect(at("total 2026-01-02")).toBeGreaterThan(
      Math.max(at("stock 2026-01-02|eu"), at("stock 2026-01-02|us"), at("stock 2026-01-02|apac")),
    );
    const progress = await backfillProgress(connection, enqueued.backfillId);
    const failed = progress.slots.filter((s) => s.state === "failed").map((s) => s.partition);
    expect(failed).toEqual(["2026-01-01|us"]);
    expect(progress.slots.find((s) => s.partition === "2026-01-01")!.state).not.toBe("completed");
  });
});
