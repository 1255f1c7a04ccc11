// Issue 23, item 6: backfills on the work queue, run by worker processes of the built CLI
// against the real PostgreSQL (fixtures/projects/queue): several workers on one backfill,
// child processes, SIGTERM, enqueuing twice, bad input. Failures are in queue-failures.test.ts.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { completions, dayCount, daysOf, up, world } from "./queue-helpers.js";

describe.skipIf(!up)("backfills run by worker processes", () => {
  it("three workers run every partition exactly once, each month after its days; enqueuing twice adds nothing", async () => {
    const w = await world({ QUEUE_SLOW_MS: "100" });
    const enqueue = () => w.run(["materialize", "--window", "2026-01-30..2026-03-01", "--queue", w.queue()]);
    const first = await enqueue();
    expect(first.exitCode, first.stderr).toBe(0);
    const id = first.outLines[0]!;
    expect(first.errLines).toEqual([expect.stringMatching(/^Enqueued backfill [0-9a-f-]{36}: 32 jobs on 127\.0\.0\.1:5432, 31 ready/)]);
    const second = await enqueue();
    expect(second).toMatchObject({
      exitCode: 0,
      outLines: [id],
      errLines: [
        `Backfill ${id} is already enqueued and under way: nothing added; follow it with: interloper backfills ${id} --queue '${w.queue()}'`,
      ],
    });

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

  it("bad input is one line and exit 2: no queue, a flag that does not apply, no id, a server away", async () => {
    const w = await world();
    const noQueue = await w.run(["worker"], { INTERLOPER_QUEUE_URL: "" });
    expect(noQueue).toMatchObject({
      exitCode: 2,
      errLines: [expect.stringMatching(/^interloper: interloper worker needs --queue postgres:\/\//)],
    });
    const pool = await w.run(["materialize", "--window", "2026-02-01..2026-02-03", "--queue", w.queue(), "--processes", "2"]);
    expect(pool).toMatchObject({
      exitCode: 2,
      errLines: ["interloper: --processes does not apply with --queue: start workers with `interloper worker`"],
    });
    const one = await w.run(["materialize", "orders", "-p", "2026-02-01", "--queue", w.queue()]);
    expect(one).toMatchObject({ exitCode: 2, errLines: [expect.stringMatching(/^interloper: --queue needs a backfill/)] });
    const cancel = await w.run(["backfills", "--cancel"], { INTERLOPER_QUEUE_URL: w.queue() });
    expect(cancel).toMatchObject({ exitCode: 2, errLines: ["interloper: --cancel needs a backfill id"] });
    const away = await w.run(["backfills", "--queue", "postgres://postgres@127.0.0.1:1/test"]);
    expect(away).toMatchObject({
      exitCode: 2,
      errLines: [
        expect.stringMatching(
          /^interloper: the queue server 127\.0\.0\.1:1 is unreachable: nothing accepts connections there \(.*\); start PostgreSQL or fix the host and port of --queue$/,
        ),
      ],
    });
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
});
