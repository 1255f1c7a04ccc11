// Issue 31, items 12, 13 and 20: a backfill's identity (its destinations and datasets, never a
// password), enqueuing a settled backfill anew, and the jobs of silent workers sent back at once;
// in process against the real PostgreSQL, each test in schemas of its own.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { resolvePathsFrom } from "../../src/api/project.js";
import { reclaimExpired } from "../../src/queue/boss-internals.js";
import type { QueueConnection } from "../../src/queue/index.js";
import { backfillProgress, cancelBackfill, enqueuePlan, projectIdentity, runWorker, type JobData } from "../../src/queue/index.js";
import { PG_CONNECTION, postgresAvailable } from "../database/servers.js";
import { queuePerTest } from "./schema-per-test.js";

const up = await postgresAvailable();
const runs: string[] = [];
let poisoned = new Set<string>();

const orders = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  run: (ctx) => {
    const key = ctx.partition!.key;
    runs.push(key);
    if (poisoned.has(key)) throw new Error(`poisoned ${key}`);
    return [{ date: key, amount: 1 }];
  },
});

/** The project with `destinations` for its one source, of `dataset`. */
function project(destinations: il.Destination = new il.MemoryDestination(), dataset?: string, filepath?: string): il.Project {
  const source = il.source({ key: "shop", assets: [orders], ...(dataset ? { dataset } : {}) })({ destinations });
  return projectOf({ sources: [source] }, filepath ?? null);
}

describe.skipIf(!up)("identity, settled backfills and silent workers", () => {
  let connection: QueueConnection;
  const queue = queuePerTest("il_q", () => {
    runs.length = 0;
    poisoned = new Set();
    il.MemoryDestination.clear();
  });
  const { admin } = queue;

  // No pg-boss supervisor here: the tests expire jobs themselves.
  async function open(): Promise<QueueConnection> {
    return (connection = await queue.open());
  }
  const worker = (p: il.Project) => runWorker(connection, p, { concurrency: 2, idleExitSeconds: 0.3, pollSeconds: 0.1 });

  it("a canceled or completed backfill is enqueued anew; one under way or stopped by a failure is not", async () => {
    await open();
    const p = project();
    const plan = () => il.planMaterialize(p, { window: "2026-02-01..2026-02-03" });
    const first = await enqueuePlan(connection, p, plan());
    expect(await worker(p)).toMatchObject({ completed: 3 });
    const again = await enqueuePlan(connection, p, plan());
    expect(again).toMatchObject({ backfillId: first.backfillId, created: true, replaced: "completed", jobs: 3, ready: 3 });
    expect((await backfillProgress(connection, first.backfillId)).status).toBe("running");
    expect(await worker(p)).toMatchObject({ completed: 3 });
    expect(runs).toHaveLength(6);
    expect((await backfillProgress(connection, first.backfillId)).status).toBe("completed");

    await enqueuePlan(connection, p, plan());
    expect(await cancelBackfill(connection, first.backfillId)).toBe(3);
    expect(await enqueuePlan(connection, p, plan())).toMatchObject({ created: true, replaced: "canceled" });
    expect(await worker(p)).toMatchObject({ completed: 3 });

    poisoned = new Set(["2026-02-02"]);
    await enqueuePlan(connection, p, plan(), { retries: 0 });
    expect(await worker(p)).toMatchObject({ completed: 2, failed: 1 });
    const stopped = await enqueuePlan(connection, p, plan());
    expect(stopped).toMatchObject({ created: false });
    expect(stopped.replaced).toBeUndefined();
    expect(await backfillProgress(connection, first.backfillId)).toMatchObject({ status: "stopped", counts: { failed: 1, completed: 2 } });
  });

  it("a backfill's identity holds each destination's kind and place and the dataset, never a password", async () => {
    await open();
    const prodUrl = `postgres://etl:s3cret-pw@${PG_CONNECTION.host}:${PG_CONNECTION.port}/${PG_CONNECTION.database}`;
    const prod = project(new il.PostgresDestination({ connection: { url: prodUrl } }), "prod");
    const staging = project(new il.PostgresDestination({ connection: { url: prodUrl } }), "staging");
    // The same project whose worker logs in without the password in its URL (PGPASSWORD) is the same.
    const prodElsewhere = project(new il.PostgresDestination({ connection: { url: prodUrl.replace(":s3cret-pw", "") } }), "prod");
    const otherServer = project(new il.PostgresDestination({ connection: { url: prodUrl.replace("127.0.0.1", "db.example") } }), "prod");
    expect(projectIdentity(staging)).not.toBe(projectIdentity(prod));
    expect(projectIdentity(otherServer)).not.toBe(projectIdentity(prod));
    expect(projectIdentity(prodElsewhere)).toBe(projectIdentity(prod));
    // A CSV folder under the config's folder is the same wherever the project is checked out.
    const here = project(new il.CSVDestination({ basePath: "./data" }), undefined, "/srv/a/interloper.config.ts");
    const there = project(new il.CSVDestination({ basePath: "./data" }), undefined, "/home/b/interloper.config.ts");
    resolvePathsFrom(here, "/srv/a");
    resolvePathsFrom(there, "/home/b");
    expect(projectIdentity(here)).toBe(projectIdentity(there));

    const window = { window: "2026-02-01..2026-02-02" };
    const a = await enqueuePlan(connection, prod, il.planMaterialize(prod, window));
    const b = await enqueuePlan(connection, staging, il.planMaterialize(staging, window));
    expect(b).toMatchObject({ created: true });
    expect(b.backfillId).not.toBe(a.backfillId);
    const leaked = await admin.query(
      `SELECT (SELECT count(*)::int FROM ${queue.schema}_boss.job WHERE data::text LIKE '%s3cret%')
            + (SELECT count(*)::int FROM ${queue.schema}.backfill WHERE project LIKE '%s3cret%') AS n`,
    );
    expect(leaked.rows[0].n).toBe(0);
    await cancelBackfill(connection, b.backfillId);
    // A staging worker refuses the prod backfill's jobs and puts them back.
    await expect(worker(staging)).rejects.toThrow(/this worker's project \(\(in code\)#\w+\) is not the one that enqueued backfill/);
    expect((await backfillProgress(connection, a.backfillId)).counts).toMatchObject({ queued: 2, running: 0 });
  });

  it("a job whose worker went silent past its expiry goes back at once, in plain words; with no retry left it fails", async () => {
    await open();
    const p = project();
    const { backfillId } = await enqueuePlan(connection, p, il.planMaterialize(p, { window: "2026-02-01..2026-02-02" }), {
      expireSeconds: 1,
      retryDelaySeconds: 30,
      retries: 1,
    });
    // A worker that fetched both jobs and went silent: no heartbeat extends them.
    const lost = await connection.boss.fetch<JobData>("interloper", { batchSize: 2 });
    expect(lost).toHaveLength(2);
    expect(await reclaimExpired(connection)).toBe(0);
    await sleep(1500);
    expect(await reclaimExpired(connection)).toBe(2);
    const progress = await backfillProgress(connection, backfillId);
    expect(progress.counts).toMatchObject({ queued: 2, running: 0 });
    expect(progress.slots[0]!.error!.message).toBe(
      "its worker went silent (killed, stopped, or cut off from the queue) for longer than the job expiry; it runs again",
    );
    // Not after the 30 s retry delay of a failure: at once.
    const again = await connection.boss.fetch<JobData>("interloper", { batchSize: 2, includeMetadata: true });
    expect(again.map((j) => j.retryCount)).toEqual([1, 1]);
    await sleep(1500);
    expect(await reclaimExpired(connection)).toBe(2);
    const failed = await backfillProgress(connection, backfillId);
    expect(failed).toMatchObject({ status: "stopped", counts: { failed: 2 } });
    expect(failed.slots[0]!.error!.message).toMatch(/for longer than the job expiry; no retry was left$/);
  });
});
