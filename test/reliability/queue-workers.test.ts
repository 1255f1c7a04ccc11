// Issue 23, item 6: backfills on the work queue, run by worker processes of the built CLI
// against the real PostgreSQL (fixtures/projects/queue): several workers on one backfill,
// a worker SIGKILLed mid-partition, a poisoned partition, enqueuing twice, and the queue
// server cut away mid-run (through the TCP proxy of test/support). Each test has its own
// schemas (destination, queue, pg-boss), dropped afterwards.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_CONNECTION, postgresAvailable, uniqueName } from "../database/servers.js";
import { BIN, cli, ensureBuilt, FIXTURES, useSandboxes, type CliResult } from "../e2e/helpers.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

const CONFIG = join(FIXTURES, "queue", "interloper.config.ts");
const PG_URL = `postgres://${PG_CONNECTION.user}@${PG_CONNECTION.host}:${PG_CONNECTION.port}/${PG_CONNECTION.database}`;
const up = await postgresAvailable();
const sandbox = useSandboxes();
const admin = new pg.Client(PG_CONNECTION);
const schemas: string[] = [];

beforeAll(async () => {
  if (!up) return;
  await ensureBuilt();
  await admin.connect();
}, 180_000);

afterAll(async () => {
  if (!up) return;
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

/** One test's world: its schemas, its run log, and the CLI with them. */
async function world(extraEnv: Record<string, string> = {}) {
  const box = await sandbox();
  const dataset = uniqueName("il_qd");
  const queueSchema = uniqueName("il_qq");
  schemas.push(dataset, queueSchema, `${queueSchema}_boss`);
  const log = join(box.dir, "runs.log");
  const env = { QUEUE_DATASET: dataset, QUEUE_LOG: log, ...extraEnv };
  const queue = (url = PG_URL) => `${url}?schema=${queueSchema}`;
  const run = (args: readonly string[], more: Record<string, string> = {}): Promise<CliResult> =>
    cli([...args, "-c", CONFIG], { cwd: box.dir, env: { ...env, ...more } });
  /** A worker process, left running: its exit is `done`. */
  const worker = (args: readonly string[], more: Record<string, string> = {}, url = PG_URL) => {
    const child = execa(process.execPath, [BIN, "worker", "--queue", queue(url), "-c", CONFIG, "--poll", "200ms", ...args], {
      cwd: box.dir,
      env: { ...process.env, CI: "1", NO_COLOR: "1", ...env, ...more },
      reject: false,
      stdin: "ignore",
      timeout: 80_000,
    });
    const done = child.then((r) => ({
      exitCode: r.exitCode ?? -1,
      signal: r.signal ?? null,
      stderr: String(r.stderr),
      stdout: String(r.stdout),
    }));
    return { child, pid: child.pid!, done };
  };
  const lines = async () => (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
  const progress = async (id: string) => {
    const result = await run(["backfills", id, "--queue", queue(), "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as {
      counts: Record<string, number>;
      slots: Array<{ partition: string; state: string; attempts: number; worker: string | null; error: { message: string } | null }>;
    };
  };
  /** Each day's row count in the destination, and the monthly rows. */
  const stored = async () => {
    const days = await admin.query(`SELECT date::text AS day, count(*)::int AS n FROM ${dataset}.orders GROUP BY 1 ORDER BY 1`);
    const months = await admin
      .query(`SELECT month::text AS month, days::int AS days, "rows"::int AS "rows" FROM ${dataset}.monthly ORDER BY 1`)
      .catch(() => ({ rows: [] }));
    return { days: Object.fromEntries(days.rows.map((r: { day: string; n: number }) => [r.day, r.n])), months: months.rows };
  };
  return { box, run, worker, queue, lines, progress, stored, dataset };
}

/** The keys of a range of days. */
function daysOf(first: string, last: string): string[] {
  const out: string[] = [];
  for (let d = new Date(`${first}T00:00:00Z`); d <= new Date(`${last}T00:00:00Z`); d.setUTCDate(d.getUTCDate() + 1))
    out.push(d.toISOString().slice(0, 10));
  return out;
}
const dayCount = (key: string) => Number(key.slice(8, 10));
const completions = (lines: readonly string[], what: string) => lines.filter((l) => l.startsWith(`${what} `)).length;

describe.skipIf(!up)("backfills run by worker processes", () => {
  it("three workers run every partition exactly once, each month after its days; enqueuing twice adds nothing", async () => {
    const w = await world({ QUEUE_SLOW_MS: "100" });
    const enqueue = () => w.run(["materialize", "--window", "2026-01-30..2026-03-01", "--queue", w.queue()]);
    const first = await enqueue();
    expect(first.exitCode, first.stderr).toBe(0);
    const id = first.outLines[0]!;
    expect(first.errLines).toEqual([expect.stringMatching(/^Enqueued backfill [0-9a-f-]{36}: 32 jobs on 127\.0\.0\.1:5432, 31 ready/)]);
    const second = await enqueue();
    expect(second).toMatchObject({ exitCode: 0, outLines: [id], errLines: [`Backfill ${id} is already enqueued: nothing added`] });

    const workers = [1, 2, 3].map(() => w.worker(["--concurrency", "2", "--idle-exit", "1"]));
    const ends = await Promise.all(workers.map((x) => x.done));
    for (const end of ends) expect(end.exitCode, end.stderr).toBe(0);
    const done = ends.map((e) => Number(/(\d+) completed, 0 failed/.exec(e.stderr)?.[1] ?? NaN));
    expect(done.reduce((a, b) => a + b, 0)).toBe(32);

    const lines = await w.lines();
    const days = daysOf("2026-01-30", "2026-03-01");
    for (const day of days) expect(completions(lines, `orders ${day}`), day).toBe(1);
    expect(completions(lines, "monthly 2026-02")).toBe(1);
    const monthAt = lines.findIndex((l) => l.startsWith("monthly 2026-02"));
    const lastFebruaryDay = Math.max(...lines.flatMap((l, i) => (l.startsWith("orders 2026-02-") ? [i] : [])));
    expect(monthAt).toBeGreaterThan(lastFebruaryDay);
    const { days: stored, months } = await w.stored();
    expect(stored).toEqual(Object.fromEntries(days.map((d) => [d, dayCount(d)])));
    expect(months).toEqual([{ month: "2026-02-01", days: 28, rows: (28 * 29) / 2 }]);
    const progress = await w.progress(id);
    expect(progress.counts).toMatchObject({ completed: 32, queued: 0, running: 0, failed: 0, waiting: 0 });
    expect(new Set(progress.slots.map((s) => s.worker?.replace(/^.*:/, ""))).size).toBeGreaterThan(1);
  });

  it("--processes: a worker runs its partitions in child processes, each once", async () => {
    const w = await world({ QUEUE_SLOW_MS: "50" });
    const enqueued = await w.run(["materialize", "--window", "2026-02-01..2026-02-06", "--queue", w.queue()]);
    const id = enqueued.outLines[0]!;
    const worker = w.worker(["--processes", "2", "--idle-exit", "1"]);
    const end = await worker.done;
    expect(end.exitCode, end.stderr).toBe(0);
    const lines = await w.lines();
    const days = daysOf("2026-02-01", "2026-02-06");
    for (const day of days) expect(completions(lines, `orders ${day}`), day).toBe(1);
    const pids = new Set(lines.filter((l) => l.startsWith("orders ")).map((l) => l.split(" ").at(-1)));
    expect(pids.has(String(worker.pid))).toBe(false);
    expect(pids.size).toBeLessThanOrEqual(2);
    expect((await w.progress(id)).counts).toMatchObject({ completed: 6 });
    expect((await w.stored()).days).toEqual(Object.fromEntries(days.map((d) => [d, dayCount(d)])));
  });

  it("a worker SIGKILLed mid-partition: its job expires and completes in another worker, nothing torn, counts exact", async () => {
    const w = await world({ QUEUE_SLOW_MS: "1500" });
    const enqueued = await w.run([
      "materialize",
      "--window",
      "2026-02-01..2026-02-08",
      "--queue",
      w.queue(),
      "--job-expiry",
      "2s",
      "--retry-delay",
      "0",
    ]);
    expect(enqueued.exitCode, enqueued.stderr).toBe(0);
    const id = enqueued.outLines[0]!;
    const doomed = w.worker(["--concurrency", "1"]);
    let victim: string | undefined;
    for (let i = 0; i < 200 && !victim; i++) {
      await sleep(100);
      victim = (await w.lines()).find((l) => l.startsWith("start orders") && l.endsWith(` ${doomed.pid}`))?.split(" ")[2];
    }
    expect(victim).toBeDefined();
    doomed.child.kill("SIGKILL");
    expect((await doomed.done).signal).toBe("SIGKILL");

    const survivor = w.worker(["--concurrency", "3", "--idle-exit", "1", "--supervise-every", "1s"]);
    const end = await survivor.done;
    expect(end.exitCode, end.stderr).toBe(0);
    const lines = await w.lines();
    for (const day of daysOf("2026-02-01", "2026-02-08")) expect(completions(lines, `orders ${day}`), day).toBe(1);
    expect(lines.filter((l) => l.startsWith(`start orders ${victim}`))).toHaveLength(2);
    const progress = await w.progress(id);
    expect(progress.counts).toMatchObject({ completed: 8, failed: 0 });
    expect(progress.slots.find((s) => s.partition === victim)).toMatchObject({ state: "completed", attempts: 2 });
    expect((await w.stored()).days).toEqual(Object.fromEntries(daysOf("2026-02-01", "2026-02-08").map((d) => [d, dayCount(d)])));
  });

  it("SIGTERM: the running partitions finish, nothing more starts, the rest stays queued", async () => {
    const w = await world({ QUEUE_SLOW_MS: "1500" });
    const enqueued = await w.run(["materialize", "--window", "2026-02-01..2026-02-06", "--queue", w.queue()]);
    const id = enqueued.outLines[0]!;
    const worker = w.worker(["--concurrency", "2"]);
    const mine = async (prefix: string) => (await w.lines()).filter((l) => l.startsWith(prefix) && l.endsWith(` ${worker.pid}`));
    for (let i = 0; i < 200 && (await mine("start orders")).length < 2; i++) await sleep(100);
    worker.child.kill("SIGTERM");
    const end = await worker.done;
    expect(end.exitCode, end.stderr).toBe(0);
    expect(end.stderr).toContain("SIGTERM received: finishing the running partitions, fetching no more");
    expect(await mine("start orders")).toHaveLength(2);
    expect(await mine("orders")).toHaveLength(2);
    expect((await w.progress(id)).counts).toMatchObject({ completed: 2, queued: 4, running: 0, failed: 0 });
  });

  it("a poisoned partition is retried, then stays failed with its error; the rest completes, the month that reads it is blocked", async () => {
    const w = await world({ QUEUE_SLOW_MS: "10", QUEUE_POISON: "2026-02-14" });
    const enqueued = await w.run([
      "materialize",
      "--window",
      "2026-02-01..2026-02-28",
      "--queue",
      w.queue(),
      "--retries",
      "2",
      "--retry-delay",
      "0",
    ]);
    expect(enqueued.exitCode, enqueued.stderr).toBe(0);
    const id = enqueued.outLines[0]!;
    const end = await w.worker(["--concurrency", "4", "--idle-exit", "1"]).done;
    expect(end.exitCode, end.stderr).toBe(0);
    expect(end.stderr).toMatch(/failed 2026-02-14 shop\.orders: .*orders feed poisoned for 2026-02-14 \(no retry left\)/);
    const lines = await w.lines();
    expect(lines.filter((l) => l.startsWith("start orders 2026-02-14"))).toHaveLength(3);
    const progress = await w.progress(id);
    expect(progress.counts).toMatchObject({ completed: 27, failed: 1, blocked: 1, queued: 0, running: 0 });
    expect(progress.slots.find((s) => s.state === "failed")).toMatchObject({ partition: "2026-02-14", attempts: 3 });
    expect(progress.slots.find((s) => s.state === "failed")!.error!.message).toContain("orders feed poisoned for 2026-02-14");
    const view = await w.run(["backfills", id, "--queue", w.queue()]);
    expect(view.exitCode).toBe(0);
    expect(view.outLines).toContain("  27/29 completed, 1 failed, 1 blocked");
    expect(view.stdout).toMatch(/Failed:\n {2}2026-02-14 shop\.orders after 3 attempts: .*orders feed poisoned for 2026-02-14/);
    expect((await w.stored()).months).toEqual([]);

    // Fixed and retried: the day completes, and the month it blocked runs after it.
    const retried = await w.run(["backfills", id, "--queue", w.queue(), "--retry-failed"]);
    expect(retried.errLines[0]).toBe(`Sent 1 failed job of backfill ${id} back to the queue`);
    const again = await w.worker(["--idle-exit", "1"], { QUEUE_POISON: "" }).done;
    expect(again.exitCode, again.stderr).toBe(0);
    expect((await w.progress(id)).counts).toMatchObject({ completed: 29, failed: 0, blocked: 0 });
    expect((await w.stored()).months).toEqual([{ month: "2026-02-01", days: 28, rows: (28 * 29) / 2 }]);
  });

  it("the queue server cut away mid-run: workers reconnect, or exit with one clear line; no job is lost", async () => {
    const w = await world({ QUEUE_SLOW_MS: "300" });
    const proxy = await startTcpProxy({ host: PG_CONNECTION.host, port: PG_CONNECTION.port });
    try {
      const viaProxy = `postgres://${PG_CONNECTION.user}@127.0.0.1:${proxy.port}/${PG_CONNECTION.database}`;
      const enqueued = await w.run([
        "materialize",
        "--window",
        "2026-02-01..2026-02-20",
        "--queue",
        w.queue(),
        "--job-expiry",
        "3s",
        "--retry-delay",
        "0",
      ]);
      expect(enqueued.exitCode, enqueued.stderr).toBe(0);
      const id = enqueued.outLines[0]!;
      const patient = w.worker(["--concurrency", "2", "--idle-exit", "1", "--supervise-every", "1s", "--reconnect", "30s"], {}, viaProxy);
      const impatient = w.worker(["--concurrency", "2", "--reconnect", "1s"], {}, viaProxy);
      const waitForCompletions = async (n: number) => {
        for (let i = 0; i < 300 && completions(await w.lines(), "orders") < n; i++) await sleep(100);
      };
      // Every connection reset at once: both workers ride it out.
      await waitForCompletions(3);
      proxy.kill();
      // The server away for 4 s: the impatient worker gives up with one line, the patient one waits.
      await waitForCompletions(8);
      await proxy.stop();
      const gaveUp = await impatient.done;
      expect(gaveUp.exitCode).toBe(1);
      const errors = gaveUp.stderr.split("\n").filter((l) => l.startsWith("interloper: the queue server"));
      expect(errors.at(-1)).toMatch(new RegExp(`^interloper: the queue server 127\\.0\\.0\\.1:${proxy.port} is unreachable: \\S`));
      expect(gaveUp.stderr).not.toMatch(/\n\s+at /);
      await sleep(3000);
      await proxy.start();
      const end = await patient.done;
      expect(end.exitCode, end.stderr).toBe(0);
      // A partition the impatient worker was running when it left runs again elsewhere (its job expired).
      const progress = await w.progress(id);
      expect(progress.counts).toMatchObject({ completed: 20, failed: 0, queued: 0, running: 0 });
      const lines = await w.lines();
      for (const day of daysOf("2026-02-01", "2026-02-20")) expect(completions(lines, `orders ${day}`), day).toBeGreaterThanOrEqual(1);
      expect((await w.stored()).days).toEqual(Object.fromEntries(daysOf("2026-02-01", "2026-02-20").map((d) => [d, dayCount(d)])));
    } finally {
      await proxy.close();
    }
  });
});
