// The process pool (issues 9 and 18): `materialize --window ... --processes <n>` runs the
// partitions in n worker processes (the library's worker entry, not the command line), each
// loading the config once and running partition after partition, forwarding their events; a
// worker that crashes, is killed or times out fails only its partition, with its exit code or
// signal and the tail of its stderr in the error, and a fresh worker takes the next; Ctrl-C
// stops scheduling, lets the workers finish their partitions and reports what completed, so
// `--missing` resumes.
// Real child processes on the pool fixture (fixtures/projects/pool), whose run log shows which
// process ran what and when each child was up.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, useSandboxes, type CliResult, type Sandbox } from "./helpers.js";
import {
  dailyFile,
  daysBetween,
  endsPerKey,
  expectComplete,
  isAlive,
  jsonEvents,
  maxChildrenAlive,
  runLog,
  runPool,
  runPoolProgram,
  startPool,
  waitUntil,
  type JsonEvent,
} from "./pool-helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

const SLOW = 150_000;
const files = (keys: readonly string[]) => keys.map((key) => dailyFile(key)).sort();

/** The events of a --json run, without what differs from run to run (ids, times, durations). */
function comparable(events: readonly JsonEvent[]): string[] {
  return events
    .filter((e) => e.partition !== undefined)
    .map(({ time: _t, runId: _r, backfillId: _b, durationMs: _d, ...rest }) => JSON.stringify(rest))
    .sort();
}

describe("--processes: a pool of child processes", () => {
  it(
    "writes every partition in two worker processes, each running several partitions, with at most 2 alive at once",
    async () => {
      const box = await sandbox();
      const days = daysBetween("2026-01-01", "2026-01-08");
      // The first two partitions dispatched wait for each other, so the overlap is observed, not hoped for.
      const result = await runPool(box, ["materialize", "--window", "2026-01-01..2026-01-08", "--processes", "2"], {
        INTERLOPER_PEER_ON: "2026-01-08,2026-01-07",
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("Done: 8 of 8 partitions completed");
      expect((await box.dataFiles()).filter((f) => f.startsWith("pool/daily/"))).toEqual(files(days));
      await expectComplete(box, "2026-01-01", "2026-01-08");

      const log = await runLog(box);
      expect(endsPerKey(log)).toEqual(Object.fromEntries(days.map((d) => [d, 1])));
      const starts = log.filter((l) => l.what === "start");
      expect(starts.map((l) => l.key).sort()).toEqual(days);
      // two worker processes for the eight partitions (each loads the config once and runs
      // partition after partition), none of them the parent (which runs the unpartitioned settings once)
      expect(new Set(starts.map((l) => l.pid)).size).toBe(2);
      expect(log.filter((l) => l.what === "up")).toHaveLength(2);
      const settings = log.filter((l) => l.what === "settings");
      expect(settings).toHaveLength(1);
      expect(starts.map((l) => l.pid)).not.toContain(settings[0]!.pid);
      // every partition's process was a child of the pool: it said up, and exited (down)
      const ups = log.filter((l) => l.what === "up").map((l) => l.pid);
      const downs = log.filter((l) => l.what === "down").map((l) => l.pid);
      for (const { pid } of starts) {
        expect(ups).toContain(pid);
        expect(downs).toContain(pid);
      }
      expect(maxChildrenAlive(log)).toBe(2);
    },
    SLOW,
  );

  it(
    "--processes 1: one child at a time, newest first",
    async () => {
      const box = await sandbox();
      const result = await runPool(box, ["materialize", "daily", "--window", "2026-01-01..2026-01-04", "--processes", "1"]);
      expect(result.exitCode, result.stderr).toBe(0);
      const log = await runLog(box);
      expect(maxChildrenAlive(log)).toBe(1);
      expect(log.filter((l) => l.what === "start").map((l) => l.key)).toEqual(["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"]);
      await expectComplete(box, "2026-01-01", "2026-01-04");
    },
    SLOW,
  );

  it(
    "--json: the parent prints the children's events, under the parent's backfillId, as an in-process backfill does",
    async () => {
      const [poolBox, inProcessBox] = await Promise.all([sandbox(), sandbox()]);
      const window = "2026-01-01..2026-01-06";
      const [pooled, inProcess] = await Promise.all([
        runPool(poolBox, ["materialize", "daily", "--window", window, "--processes", "2", "--json"]),
        runPool(inProcessBox, ["materialize", "daily", "--window", window, "--json"]),
      ]);
      expect(pooled.exitCode, pooled.stderr).toBe(0);
      expect(inProcess.exitCode, inProcess.stderr).toBe(0);
      const events = jsonEvents(pooled);
      const started = events.find((e) => e.type === "backfill:started")!;
      expect(started, pooled.stdout).toBeDefined();
      const backfillId = started.backfillId!;
      expect(backfillId).toMatch(/\S/);
      for (const event of events) expect(event.backfillId, JSON.stringify(event)).toBe(backfillId);
      const days = daysBetween("2026-01-01", "2026-01-06");
      const completed = events.filter((e) => e.type === "asset:completed");
      expect(completed.map((e) => [e.partition, e.asset, e.rows]).sort()).toEqual(days.map((d) => [d, "pool.daily", 3]));
      expect(
        events
          .filter((e) => e.type === "run:completed")
          .map((e) => e.partition)
          .sort(),
      ).toEqual(days);
      // one runId per partition, shared by all of that partition's events
      const runIds = new Map<string, Set<string>>();
      for (const e of events) if (e.partition) runIds.set(e.partition, (runIds.get(e.partition) ?? new Set()).add(e.runId!));
      for (const ids of runIds.values()) expect(ids.size).toBe(1);
      expect(new Set([...runIds.values()].flatMap((s) => [...s])).size).toBe(6);
      const finished = events.at(-1)!;
      expect(finished.type).toBe("backfill:completed");
      expect(finished["completed"]).toEqual([...days].reverse());
      // the same events as the in-process backfill, partition by partition
      expect(comparable(events)).toEqual(comparable(jsonEvents(inProcess)));
    },
    SLOW,
  );
});

describe("a child that crashes or is killed fails only its partition", () => {
  const window = "2026-01-01..2026-01-06";
  const crash = { INTERLOPER_EXIT_ON: "2026-01-03", INTERLOPER_KILL_ON: "2026-01-05" };
  let box: Sandbox;
  let human: CliResult;
  let json: CliResult;
  let jsonBox: Sandbox;
  beforeAll(async () => {
    [box, jsonBox] = await Promise.all([sandbox(), sandbox()]);
    [human, json] = await Promise.all([
      runPool(box, ["materialize", "daily", "--window", window, "--processes", "2", "--no-fail-fast"], crash),
      runPool(jsonBox, ["materialize", "daily", "--window", window, "--processes", "2", "--no-fail-fast", "--json"], crash),
    ]);
  }, SLOW);

  it("exit 1, every other partition written, the summary names the two failed partitions", async () => {
    expect(human.exitCode, human.stderr).toBe(1);
    expect((await box.dataFiles()).filter((f) => f.startsWith("pool/daily/"))).toEqual(
      files(["2026-01-01", "2026-01-02", "2026-01-04", "2026-01-06"]),
    );
    expect(human.stderr).toContain("Failed: 4 of 6 partitions completed, 2 failed");
    expect(human.stderr).toMatch(/^Failed partitions: 2026-01-03, 2026-01-05$/m);
    expect(human.stderr).toContain("--partition 2026-01-03");
    expect(human.stderr).toContain("--partition 2026-01-05");
    expect(json.exitCode, json.stderr).toBe(1);
    const finished = jsonEvents(json).at(-1)!;
    expect(finished.type).toBe("backfill:failed");
    expect([...(finished["failed"] as string[])].sort()).toEqual(["2026-01-03", "2026-01-05"]);
  });

  it("the output names the exit code (with the tail of the child's stderr) and the signal", () => {
    // As in-process, a failed partition gets a FAIL line saying why.
    expect(human.stderr).toMatch(/^FAIL .*2026-01-03.*exited with code 7.*giving up on 2026-01-03/m);
    expect(human.stderr).toMatch(/^FAIL .*2026-01-05.*SIGKILL/m);
  });

  it("--json: each crashed partition ends with asset:failed and run:failed events carrying the reason", () => {
    const events = jsonEvents(json);
    const failed = (key: string) => events.filter((e) => e.partition === key && e.type === "asset:failed");
    expect(
      failed("2026-01-03").map((e) => [e.asset, e.error?.message]),
      json.stdout,
    ).toEqual([["pool.daily", expect.stringMatching(/exited with code 7.*giving up on 2026-01-03/)]]);
    expect(failed("2026-01-05").map((e) => [e.asset, e.error?.message])).toEqual([["pool.daily", expect.stringContaining("SIGKILL")]]);
    for (const key of ["2026-01-03", "2026-01-05"])
      expect(events.filter((e) => e.partition === key && e.type === "run:failed")).toHaveLength(1);
  });

  it(
    "--missing re-runs just the two, and the window is complete",
    async () => {
      const before = (await runLog(box)).length;
      const result = await runPool(box, ["materialize", "daily", "--window", window, "--missing", "--processes", "2"]);
      expect(result.exitCode, result.stderr).toBe(0);
      const rerun = (await runLog(box)).slice(before);
      expect(
        rerun
          .filter((l) => l.what === "start")
          .map((l) => l.key)
          .sort(),
      ).toEqual(["2026-01-03", "2026-01-05"]);
      await expectComplete(box, "2026-01-01", "2026-01-06");
    },
    SLOW,
  );
});

describe("il.backfill({ processes, childProcess })", () => {
  it(
    "the result holds each failed partition's reason: the exit code or signal, or the timeout, with the tail of the child's stderr",
    async () => {
      const box = await sandbox();
      // A program using the built package, as a user's would.
      const out = await runPoolProgram<{ status: string; partitions: [string, string, string | null][]; completedEvents: number }>(
        box,
        `const types = [];
const result = await il.backfill(project.dag, il.TimePartitionWindow.parse("2026-01-01..2026-01-04"), {
  assets: ["pool.daily"], processes: 2, failFast: false,
  childProcess: { configPath: config, timeoutMs: 10000 },
  onEvent: (event) => types.push(event.type),
});
console.log(JSON.stringify({
  status: result.status,
  partitions: result.partitions.map((p) => [p.key, p.status, p.result?.assetExecutions["pool.daily"]?.error?.message ?? null]),
  completedEvents: types.filter((t) => t === "asset:completed").length,
}));`,
        { INTERLOPER_EXIT_ON: "2026-01-03", INTERLOPER_KILL_ON: "2026-01-02", INTERLOPER_HANG_ON: "2026-01-01" },
      );
      expect(out.status).toBe("failed");
      expect(out.partitions).toEqual([
        ["2026-01-04", "completed", null],
        ["2026-01-03", "failed", expect.stringMatching(/exited with code 7.*giving up on 2026-01-03/)],
        ["2026-01-02", "failed", expect.stringMatching(/SIGKILL.*killing myself on 2026-01-02/)],
        ["2026-01-01", "failed", expect.stringMatching(/timed out/)],
      ]);
      expect(out.completedEvents).toBe(1);
    },
    SLOW,
  );
});

describe("il.backfill({ processes }): which destinations hold each partition (issue 19, item 6)", () => {
  it(
    "a partition whose write failed in one destination reports written and failedDestinations as in process, with a DestinationWriteError",
    async () => {
      const box = await sandbox();
      const out = await runPoolProgram<{ pooled: unknown[]; inProcess: unknown[] }>(
        box,
        `const outcome = async (processes) => {
  const result = await il.backfill(project.dag, il.TimePartitionWindow.parse("2026-01-01..2026-01-03"), {
    assets: ["pool.daily"], failFast: false, backfillId: "b-" + processes,
    ...(processes ? { processes, childProcess: { configPath: config } } : {}),
  });
  return result.partitions.map((p) => {
    const e = p.result.assetExecutions["pool.daily"];
    return [p.key, p.status, e.written, e.failedDestinations, e.error ? [e.error.name, e.error instanceof il.DestinationWriteError, e.error.written ?? null] : null];
  });
};
console.log(JSON.stringify({ pooled: await outcome(2), inProcess: await outcome(0) }));
`,
        { INTERLOPER_MIRROR_FAIL_ON: "2026-01-02" },
      );
      expect(out.pooled).toEqual([
        ["2026-01-03", "completed", ["main", "mirror"], [], null],
        ["2026-01-02", "failed", ["main"], ["mirror"], ["DestinationWriteError", true, ["main"]]],
        ["2026-01-01", "completed", ["main", "mirror"], [], null],
      ]);
      expect(out.pooled).toEqual(out.inProcess);
    },
    SLOW,
  );
});

describe("--timeout", () => {
  let box: Sandbox;
  let result: CliResult;
  beforeAll(async () => {
    box = await sandbox();
    // 10 s: a child starts in about a second, several on a loaded machine; 2026-01-02 never ends.
    result = await runPool(
      box,
      ["materialize", "daily", "--window", "2026-01-01..2026-01-03", "--processes", "2", "--timeout", "10s", "--no-fail-fast"],
      { INTERLOPER_HANG_ON: "2026-01-02" },
    );
  }, SLOW);

  it("kills the child of a partition that runs too long; the others are written", async () => {
    expect(result.exitCode, result.stderr).toBe(1);
    expect((await box.dataFiles()).filter((f) => f.startsWith("pool/daily/"))).toEqual(files(["2026-01-01", "2026-01-03"]));
    expect(result.stderr).toMatch(/^Failed partitions: 2026-01-02$/m);
    const hung = (await runLog(box)).find((l) => l.what === "start" && l.key === "2026-01-02");
    expect(hung).toBeDefined();
    expect(isAlive(hung!.pid)).toBe(false);
  });

  it("the output says the partition timed out", () => {
    expect(result.stderr).toMatch(/^FAIL .*2026-01-02.*timed out/m);
  });

  it(
    "is refused when it is not a duration, with or without --processes (exit 2, one line, nothing written)",
    async () => {
      const other = await sandbox();
      for (const processes of [[], ["--processes", "2"]]) {
        const bad = await runPool(other, ["materialize", "daily", "--window", "2026-01-01..2026-01-03", ...processes, "--timeout", "soon"]);
        expect(bad.exitCode).toBe(2);
        expect(bad.errLines).toHaveLength(1);
        expect(bad.stderr).toContain('--timeout "soon"');
      }
      expect(await other.files()).toEqual([]);
    },
    SLOW,
  );
});

describe("Ctrl-C during a pool backfill", () => {
  it(
    "stops scheduling, terminates the children, exits 130 reporting what completed; --missing then completes the window",
    async () => {
      const box = await sandbox();
      const days = daysBetween("2026-01-01", "2026-01-08");
      const run = startPool(box, ["materialize", "daily", "--window", "2026-01-01..2026-01-08", "--processes", "2"], {
        env: { INTERLOPER_RUN_MS: "2500" },
      });
      await waitUntil(async () => (await runLog(box)).some((l) => l.what === "end"), "a first partition to complete");
      run.process.kill("SIGINT");
      const result = await run.done;
      expect(result.exitCode, result.stderr).toBe(130);

      const summary = /^Interrupted: (\d+) of 8 partitions completed/m.exec(result.stderr);
      expect(summary, result.stderr).not.toBeNull();
      const completed = Number(summary![1]);
      expect(completed).toBeGreaterThanOrEqual(1);
      expect(completed).toBeLessThan(8);
      const reported = [...result.stderr.matchAll(/^ok +\[ *\d+\/8\] (\S+)/gm)].map((m) => m[1]!);
      expect(reported).toHaveLength(completed);
      const written = (await box.dataFiles()).filter((f) => f.startsWith("pool/daily/"));
      for (const key of reported) expect(written).toContain(dailyFile(key));
      expect(result.stderr).toContain("Re-run what did not complete with:");

      const log = await runLog(box);
      // scheduling stopped: besides the completed ones, at most the two in flight were started
      expect(new Set(log.filter((l) => l.what === "start").map((l) => l.key)).size).toBeLessThanOrEqual(completed + 2);
      // the children are gone
      const children = [...new Set(log.filter((l) => l.what === "up").map((l) => l.pid))];
      expect(children.length).toBeGreaterThanOrEqual(1);
      await waitUntil(() => children.every((pid) => !isAlive(pid)), "the children to be gone", 10_000);

      const resumed = await runPool(box, ["materialize", "daily", "--window", "2026-01-01..2026-01-08", "--missing", "--processes", "2"]);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      await expectComplete(box, "2026-01-01", "2026-01-08");
      // every partition completed exactly once over the two runs
      expect(endsPerKey(await runLog(box))).toEqual(Object.fromEntries(days.map((d) => [d, 1])));
    },
    SLOW,
  );

  it(
    "SIGTERM likewise: the children are terminated and the parent exits 143",
    async () => {
      const box = await sandbox();
      const run = startPool(box, ["materialize", "daily", "--window", "2026-01-01..2026-01-06", "--processes", "2"], {
        env: { INTERLOPER_RUN_MS: "2500" },
      });
      await waitUntil(async () => (await runLog(box)).some((l) => l.what === "start"), "a first partition to start");
      run.process.kill("SIGTERM");
      const result = await run.done;
      expect(result.exitCode, result.stderr).toBe(143);
      expect(result.stderr).toMatch(/^Interrupted: \d+ of 6 partitions completed/m);
      const children = [...new Set((await runLog(box)).filter((l) => l.what === "up").map((l) => l.pid))];
      await waitUntil(() => children.every((pid) => !isAlive(pid)), "the children to be gone", 10_000);
    },
    SLOW,
  );
});
