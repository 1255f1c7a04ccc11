// Issue 23, items 3 and 6: failures of backfills on the work queue, with worker processes of
// the built CLI against the real PostgreSQL: a worker SIGKILLed mid-partition, a poisoned
// partition, the queue server cut away (through the TCP proxy of test/support).
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { PG_CONNECTION } from "../database/servers.js";
import { startTcpProxy } from "../support/tcp-proxy.js";
import { admin, completions, dayCount, daysOf, up, world } from "./queue-helpers.js";

type World = Awaited<ReturnType<typeof world>>;

/** Enqueues the fixture's backfill over `window` with these flags; its id. */
async function enqueue(w: World, window: string, flags: readonly string[]): Promise<string> {
  const enqueued = await w.run(["materialize", "--window", window, "--queue", w.queue(), ...flags]);
  expect(enqueued.exitCode, enqueued.stderr).toBe(0);
  return enqueued.outLines[0]!;
}

describe.skipIf(!up)("failures of backfills run by worker processes", () => {
  it("a worker SIGKILLed mid-partition: its job expires and completes in another worker, nothing torn, counts exact", async () => {
    const w = await world({ QUEUE_SLOW_MS: "1500" });
    const id = await enqueue(w, "2026-02-01..2026-02-08", ["--job-expiry", "2s", "--retry-delay", "0"]);
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

  // The frozen worker's run outlasts the expiry and the other worker's whole run of its day, so
  // that a write it made on resuming would land last. With --processes only the parent is
  // stopped: its child asks it before writing, and waits.
  it.each([
    ["in process", [] as string[]],
    ["--processes", ["--processes", "1"]],
  ])(
    "a worker stopped past its job's expiry writes nothing when it resumes (%s): the retry that completed keeps its rows",
    async (_, flags) => {
      const w = await world({ QUEUE_SLOW_MS: "6000" });
      const id = await enqueue(w, "2026-02-01..2026-02-02", ["--job-expiry", "2s", "--retry-delay", "0"]);
      const frozen = w.worker(["--idle-exit", "1", ...flags]);
      let day: string | undefined;
      for (let i = 0; i < 200 && !day; i++) {
        await sleep(100);
        day = (await w.lines()).find((l) => l.startsWith("start orders"))?.split(" ")[2];
      }
      expect(day).toBeDefined();
      frozen.child.kill("SIGSTOP");
      // Another worker runs the free day at once, and the frozen one's day once its job expired.
      const other = w.worker(["--concurrency", "2", "--idle-exit", "1", "--supervise-every", "1s"], { QUEUE_SLOW_MS: "10" });
      const end = await other.done;
      expect(end.exitCode, end.stderr).toBe(0);
      expect(end.stderr).toMatch(/: 2 completed, 0 failed$/m);
      frozen.child.kill("SIGCONT");
      const resumed = await frozen.done;
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(`gave up ${day} shop.orders: this worker was stopped or cut off past the job expiry`);
      expect(resumed.stderr).toMatch(/: 0 completed, 0 failed, 1 given up \(see above\)$/m);
      const writers = await admin.query(`SELECT DISTINCT pid::int AS pid FROM ${w.dataset}.orders WHERE date = $1`, [day]);
      expect(writers.rows).toEqual([{ pid: other.pid }]);
      expect((await w.stored()).days).toEqual({ "2026-02-01": 1, "2026-02-02": 2 });
      expect((await w.progress(id)).counts).toMatchObject({ completed: 2, failed: 0, running: 0 });
    },
  );

  it("a poisoned partition is retried, then stays failed with its error; the rest completes, the month that reads it is blocked", async () => {
    const w = await world({ QUEUE_SLOW_MS: "10", QUEUE_POISON: "2026-02-14" });
    const id = await enqueue(w, "2026-02-01..2026-02-28", ["--retries", "2", "--retry-delay", "0"]);
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
    expect(view.outLines).toContain("  stopped by 1 failed job: 27/29 completed, 1 failed, 1 blocked");
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
      const id = await enqueue(w, "2026-02-01..2026-02-20", ["--job-expiry", "3s", "--retry-delay", "0"]);
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
      expect(errors.at(-1)).toMatch(new RegExp(`^interloper: the queue server 127\\.0\\.0\\.1:${proxy.port} is unreachable for 1 s: \\S`));
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
