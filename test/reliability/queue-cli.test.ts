// Issue 31, items 13, 19 and 20, and issue 32, item 9: the work queue's commands in plain words,
// with the built CLI against the real PostgreSQL: input checked before the queue is touched,
// flags that need --queue, a server that refuses, a backfill's status and its hints, which run
// as printed (the queue's password left out, given in PGPASSWORD), and enqueuing again.
import { dirname } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { uniqueName } from "../database/servers.js";
import { BIN } from "../e2e/helpers.js";
import { admin, PG_URL, up, world } from "./queue-helpers.js";

/** Whether a schema exists on the server. */
async function schemaExists(name: string): Promise<boolean> {
  const { rows } = await admin.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [name]);
  return rows.length === 1;
}

describe.skipIf(!up)("the work queue's commands", () => {
  it("bad input is refused before the queue is touched: no schema is created; a missing database is said plainly", async () => {
    const w = await world();
    const typo = uniqueName("il_typo");
    const id = await w.run(["backfills", "not-a-uuid", "--queue", `${PG_URL}?schema=${typo}`]);
    expect(id).toMatchObject({
      exitCode: 2,
      errLines: ['interloper: "not-a-uuid" is not a backfill id: expected a UUID, as materialize --queue printed it'],
    });
    const list = await w.run(["backfills", "--queue", `${PG_URL}?schema=${typo}`]);
    expect(list).toMatchObject({
      exitCode: 2,
      errLines: [
        `interloper: no work queue in schema "${typo}" on 127.0.0.1:5432: nothing was ever enqueued there; check ?schema= and the database of --queue`,
      ],
    });
    expect(await schemaExists(typo)).toBe(false);
    expect(await schemaExists(`${typo}_boss`)).toBe(false);

    const noQueue = { INTERLOPER_QUEUE_URL: "" };
    const retries = await w.run(["materialize", "--window", "2026-02-01..2026-02-03", "--retries", "1", "--job-expiry", "4s"], noQueue);
    expect(retries).toMatchObject({
      exitCode: 2,
      errLines: [
        "interloper: --retries, --job-expiry only apply with --queue (how a queued backfill's jobs retry and expire): add --queue URL, or leave them out",
      ],
    });
    expect(await w.lines()).toEqual([]);

    const missing = await w.run(["backfills", "--queue", PG_URL.replace(/\/test$/, `/${typo}`)]);
    expect(missing).toMatchObject({
      exitCode: 2,
      errLines: [
        `interloper: the queue server 127.0.0.1:5432 has no such database (database "${typo}" does not exist): create it (createdb NAME) or name another at the end of --queue`,
      ],
    });
  });

  it("a backfill's status in words, hints that run as printed, and enqueuing again once it is settled", async () => {
    const w = await world({ QUEUE_SLOW_MS: "1", QUEUE_POISON: "2026-02-14" });
    // The server trusts this user: the password is only there to be kept out of what is printed.
    const queue = w.queue(PG_URL.replace("postgres@", "postgres:pa55word@"));
    const enqueue = () => w.run(["materialize", "--window", "2026-02-01..2026-02-28", "--queue", queue, "--retries", "0"]);
    const enqueued = await enqueue();
    expect(enqueued.exitCode, enqueued.stderr).toBe(0);
    const id = enqueued.outLines[0]!;
    const shown = `--queue '${w.queue()}'`;
    const note = " (the queue's password is left out: give it in PGPASSWORD)";
    const run = `run workers with: interloper worker ${shown} -c `;
    expect(enqueued.errLines).toEqual([expect.stringMatching(/: 29 jobs on 127\.0\.0\.1:5432, 28 ready, the rest waiting/)]);
    const workerHint = enqueued.errLines[0]!.slice(enqueued.errLines[0]!.indexOf(run) + "run workers with: ".length, -note.length);
    expect(enqueued.errLines[0]!.endsWith(note)).toBe(true);
    // As printed, with the password in PGPASSWORD (and --idle-exit, to end).
    const hinted = (command: string, env: Record<string, string> = {}) =>
      execa("sh", ["-c", command], {
        cwd: w.box.dir,
        env: { PATH: `${dirname(BIN)}:${process.env["PATH"]}`, PGPASSWORD: "pa55word", INTERLOPER_QUEUE_URL: "", CI: "1", ...env },
        reject: false,
      });
    const worked = await hinted(`${workerHint} --concurrency 4 --idle-exit 1`, { QUEUE_DATASET: w.dataset, QUEUE_POISON: "2026-02-14" });
    expect(worked.exitCode, String(worked.stderr)).toBe(0);

    const unknown = await w.run(["backfills", "00000000-0000-4000-8000-000000000000", "--queue", queue]);
    expect(unknown).toMatchObject({ exitCode: 2, errLines: ["interloper: no backfill 00000000-0000-4000-8000-000000000000 in the queue"] });
    const listed = await w.run(["backfills", "--queue", queue]);
    expect(listed.outLines).toEqual([
      expect.stringContaining(`  stopped by 1 failed job: 27/29 completed, 1 failed, 1 blocked  (created `),
    ]);
    const view = await w.run(["backfills", id, "--queue", queue]);
    expect(view.outLines.slice(1, 2)).toEqual(["  stopped by 1 failed job: 27/29 completed, 1 failed, 1 blocked"]);
    expect(view.stdout).toContain(
      "Blocked (each waits on jobs that cannot complete):\n  2026-02 shop.monthly: waits on 2026-02-14 shop.orders (failed)\n",
    );
    expect(view.outLines.at(-1)).toBe(`Fix the cause, then run: interloper backfills ${id} --retry-failed ${shown}${note}`);
    expect(`${view.stdout}${enqueued.stderr}`).not.toContain("pa55word");

    // Enqueued again while a failure stops it: nothing added, exit 1, and what to do.
    const stopped = await enqueue();
    expect(stopped).toMatchObject({
      exitCode: 1,
      outLines: [id],
      errLines: [
        `Backfill ${id} is already enqueued, and stopped: 1 failed job blocks 1 other; nothing added`,
        `Fix the cause, then run: interloper backfills ${id} --retry-failed ${shown}${note}`,
        `(or cancel it with: interloper backfills ${id} --cancel ${shown}, and enqueue it again)`,
      ],
    });
    const retried = await hinted(view.outLines.at(-1)!.slice("Fix the cause, then run: ".length, -note.length));
    expect(retried.exitCode, String(retried.stderr)).toBe(0);
    expect(String(retried.stderr)).toContain(`Sent 1 failed job of backfill ${id} back to the queue`);
    const fixed = await hinted(`${workerHint} --idle-exit 1`, { QUEUE_DATASET: w.dataset, QUEUE_POISON: "" });
    expect(fixed.exitCode, String(fixed.stderr)).toBe(0);
    expect((await w.run(["backfills", id, "--queue", queue])).outLines[1]).toBe("  completed: 29/29");

    // Settled: enqueued anew, every job runs again.
    const again = await enqueue();
    expect(again).toMatchObject({ exitCode: 0, outLines: [id] });
    expect(again.errLines).toEqual([
      expect.stringMatching(new RegExp(`^Enqueued backfill ${id} again \\(it had been completed: every job runs again\\): 29 jobs`)),
    ]);
    expect((await w.progress(id)).counts).toMatchObject({ queued: 28, waiting: 1, completed: 0 });
    const canceled = await w.run(["backfills", id, "--cancel", "--queue", queue]);
    expect(canceled.errLines[0]).toBe(
      `Canceled backfill ${id}: 29 jobs will not run (running ones finish); enqueuing it again starts it over`,
    );
    expect((await enqueue()).errLines).toEqual([expect.stringContaining(" again (it had been canceled: every job runs again): 29 jobs")]);
  });
});
