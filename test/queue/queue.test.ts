// Issue 23: backfills on a pg-boss queue, driven in process against the real PostgreSQL: each
// test gets its own schemas (ours and pg-boss's), dropped afterwards.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import type { QueueConnection } from "../../src/queue/index.js";
import {
  backfillProgress,
  cancelBackfill,
  enqueuePlan,
  listBackfills,
  retryFailed,
  runWorker,
  type JobData,
  type JobEvent,
} from "../../src/queue/index.js";
import { completeJob, failJob } from "../../src/queue/complete-job.js";
import { postgresAvailable } from "../database/servers.js";
import { queuePerTest } from "./schema-per-test.js";

const up = await postgresAvailable();

/** Every run of an asset's partition, in order. */
const runs: string[] = [];
let poisoned = new Set<string>();
let slowMs = 5;

const orders = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  run: async (ctx) => {
    const key = ctx.partition!.key;
    runs.push(`orders ${key}`);
    await new Promise((resolve) => setTimeout(resolve, slowMs));
    if (poisoned.has(key)) throw new Error(`poisoned ${key}`);
    return [{ date: key, amount: Number(key.slice(8, 10)) }];
  },
});
const monthly = il.asset({
  key: "monthly",
  partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
  requires: { orders },
  run: (ctx, { orders }) => {
    runs.push(`monthly ${ctx.partition!.key}`);
    const rows = orders as Array<{ amount: number }>;
    return [{ month: `${ctx.partition!.key}-01`, days: rows.length, total: rows.reduce((t, o) => t + o.amount, 0) }];
  },
});

function project(): il.Project {
  return projectOf({ sources: [il.source({ key: "shop", assets: [orders, monthly] })({ destinations: new il.MemoryDestination() })] });
}

describe.skipIf(!up)("backfills on the queue", () => {
  let connection: QueueConnection;
  const queue = queuePerTest("il_q", () => {
    runs.length = 0;
    poisoned = new Set();
    slowMs = 5;
    il.MemoryDestination.clear();
  });
  const { admin } = queue;

  async function open(): Promise<QueueConnection> {
    return (connection = await queue.open({ supervise: true, maintenanceIntervalSeconds: 1 }));
  }

  it("runs every partition once, a month after all its days, and shows the backfill completed", async () => {
    await open();
    const p = project();
    const plan = il.planMaterialize(p, { window: "2026-01-25..2026-03-02" });
    const enqueued = await enqueuePlan(connection, p, plan);
    expect(enqueued).toMatchObject({ created: true, jobs: 37 + 1, ready: 37 });
    const before = await backfillProgress(connection, enqueued.backfillId);
    expect(before.counts).toMatchObject({ queued: 37, waiting: 1, completed: 0 });

    const events: JobEvent[] = [];
    const summary = await runWorker(connection, p, { concurrency: 4, idleExitSeconds: 1, pollSeconds: 0.2, onJob: (e) => events.push(e) });
    expect(summary).toMatchObject({ completed: 38, failed: 0, reason: "idle" });
    expect(runs).toHaveLength(38);
    expect(new Set(runs).size).toBe(38);
    expect(runs.indexOf("monthly 2026-02")).toBeGreaterThan(
      Math.max(...runs.filter((r) => r.startsWith("orders 2026-02")).map((r) => runs.indexOf(r))),
    );
    expect(await p.dag.find("shop.monthly")!.read(il.TimePartition.fromKey("2026-02"))).toEqual([
      { month: "2026-02-01", days: 28, total: (28 * 29) / 2 },
    ]);
    expect(events.filter((e) => e.type === "job:completed" && e.released === 1)).toHaveLength(1);

    const after = await backfillProgress(connection, enqueued.backfillId);
    expect(after.counts).toMatchObject({ queued: 0, waiting: 0, running: 0, completed: 38, failed: 0 });
    expect(after.slots.every((s) => s.worker?.includes(`:${process.pid}`) && s.attempts === 1)).toBe(true);
  });

  it("enqueuing the same backfill twice adds nothing and gives the same id", async () => {
    await open();
    const p = project();
    const plan = il.planMaterialize(p, { window: "2026-02-01..2026-02-28" });
    const first = await enqueuePlan(connection, p, plan);
    const second = await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-28" }));
    expect(second).toEqual({ ...first, created: false });
    const jobs = await admin.query(`SELECT count(*)::int AS n FROM ${queue.schema}_boss.job WHERE name = 'interloper'`);
    expect(jobs.rows[0].n).toBe(28);
    expect((await listBackfills(connection)).map((b) => b.id)).toEqual([first.backfillId]);
    const other = await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-27" }));
    expect(other.backfillId).not.toBe(first.backfillId);
  });

  it("a poisoned partition retries, then stays failed with its error; the month that reads it stays blocked", async () => {
    await open();
    poisoned = new Set(["2026-02-14"]);
    const p = project();
    const enqueued = await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-28" }), {
      retries: 1,
      retryDelaySeconds: 0,
    });
    // The retry backs off 1-2 s: an idle exit longer than that sees it.
    const summary = await runWorker(connection, p, { concurrency: 4, idleExitSeconds: 4, pollSeconds: 0.2 });
    expect(summary).toMatchObject({ completed: 27, failed: 2 });
    expect(runs.filter((r) => r === "orders 2026-02-14")).toHaveLength(2);
    const progress = await backfillProgress(connection, enqueued.backfillId);
    expect(progress.counts).toMatchObject({ completed: 27, failed: 1, blocked: 1, waiting: 0, queued: 0 });
    const failed = progress.slots.find((s) => s.state === "failed")!;
    expect(failed).toMatchObject({
      partition: "2026-02-14",
      attempts: 2,
      error: { message: 'asset "shop.orders" failed for 2026-02-14: poisoned 2026-02-14', asset: "shop.orders" },
    });

    // Fixed, retried: the day completes and releases the month.
    poisoned = new Set();
    expect(await retryFailed(connection, enqueued.backfillId)).toBe(1);
    const again = await runWorker(connection, p, { concurrency: 2, idleExitSeconds: 1, pollSeconds: 0.2 });
    expect(again).toMatchObject({ completed: 2, failed: 0 });
    expect((await backfillProgress(connection, enqueued.backfillId)).counts).toMatchObject({ completed: 29, failed: 0, blocked: 0 });
  });

  it("cancel stops a backfill: nothing more runs, nothing is released", async () => {
    await open();
    const p = project();
    const enqueued = await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-28" }));
    await runWorker(connection, p, { maxJobs: 3, pollSeconds: 0.2 });
    expect(await cancelBackfill(connection, enqueued.backfillId)).toBe(26);
    const summary = await runWorker(connection, p, { idleExitSeconds: 0.5, pollSeconds: 0.2 });
    expect(summary.completed).toBe(0);
    const progress = await backfillProgress(connection, enqueued.backfillId);
    expect(progress).toMatchObject({ state: "canceled", counts: { completed: 3, canceled: 26 } });
  });

  it("a worker of another project gives the job back and says why", async () => {
    await open();
    const p = project();
    await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-02" }));
    const other = projectOf({ sources: [il.source({ key: "shop", assets: [orders] })({ destinations: new il.MemoryDestination() })] });
    await expect(runWorker(connection, other, { idleExitSeconds: 1, pollSeconds: 0.2 })).rejects.toThrow(
      /this worker's project \(\(in code\)#\w+\) is not the one that enqueued backfill/,
    );
    const summary = await runWorker(connection, p, { concurrency: 2, idleExitSeconds: 0.5, pollSeconds: 0.2 });
    expect(summary.completed).toBe(2);
  });

  it("a job whose worker vanished expires and runs again; a live worker's long partition does not expire", async () => {
    await open();
    const p = project();
    await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-02" }), {
      expireSeconds: 1,
      retryDelaySeconds: 0,
    });
    // A worker that fetched a job and died: nothing completes it, no heartbeat extends it.
    const [lost] = await connection.boss.fetch("interloper", { batchSize: 1 });
    expect(lost).toBeDefined();
    slowMs = 3000;
    const summary = await runWorker(connection, p, { concurrency: 2, idleExitSeconds: 4, pollSeconds: 0.2 });
    expect(summary).toMatchObject({ completed: 2, failed: 0 });
    // Each day ran once in this worker, though its run outlived the job's expiry three times over.
    expect(runs.sort()).toEqual(["orders 2026-02-01", "orders 2026-02-02"]);
  });

  it("progress outlives pg-boss's retention: settled jobs it deleted still count; unstarted jobs are kept a year", async () => {
    await open();
    poisoned = new Set(["2026-02-02"]);
    const p = project();
    const enqueued = await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-03" }), { retries: 0 });
    const kept = await admin.query(`SELECT min(keep_until) > now() + interval '300 days' AS far FROM ${queue.schema}_boss.job`);
    expect(kept.rows[0].far).toBe(true);
    await runWorker(connection, p, { concurrency: 3, idleExitSeconds: 0.5, pollSeconds: 0.2 });
    const before = await backfillProgress(connection, enqueued.backfillId);
    expect(before.counts).toMatchObject({ completed: 2, failed: 1 });
    await admin.query(`DELETE FROM ${queue.schema}_boss.job; DELETE FROM ${queue.schema}_boss.archive`);
    const after = await backfillProgress(connection, enqueued.backfillId);
    expect(after.counts).toEqual(before.counts);
    expect(after.slots.find((s) => s.state === "failed")!.error!.message).toContain("poisoned 2026-02-02");
  });

  it("a worker whose job expired and was fetched again elsewhere neither completes nor fails the new attempt", async () => {
    await open();
    const p = project();
    const enqueued = await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-01" }));
    const [job] = await connection.boss.fetch<JobData>("interloper", { batchSize: 1, includeMetadata: true });
    expect(job!.retryCount).toBe(0);
    // As pg-boss's supervisor and another worker's fetch leave it: active again, one attempt later.
    await admin.query(`UPDATE ${queue.schema}_boss.job SET retry_count = 1, started_on = now() WHERE id = $1`, [job!.id]);
    expect(await completeJob(connection, job!.id, 0, job!.data)).toBeNull();
    expect(await failJob(connection, job!.id, 0, job!.data, { message: "stale" })).toBe(false);
    expect((await backfillProgress(connection, enqueued.backfillId)).counts).toMatchObject({ running: 1 });
    expect(await completeJob(connection, job!.id, 1, job!.data)).toBe(0);
    expect((await backfillProgress(connection, enqueued.backfillId)).counts).toMatchObject({ completed: 1, running: 0 });
  });
});
