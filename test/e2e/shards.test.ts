// Shards end to end (issue 9): `plan --shards n --json` is a GitHub Actions matrix; 4 shard
// processes started at the same time against one destination (a CSV folder, the local object
// store) cover the window with every partition written exactly once; `--shard-index-env` reads a
// 0-based worker index; bad shard flags are bad input.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, oneLineError, useSandboxes, type CliResult, type Sandbox } from "./helpers.js";
import { dailyFile, daysBetween, endsPerKey, expectComplete, runLog, runPool, startPool } from "./pool-helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

const SLOW = 150_000;
const WINDOW = "2026-01-01..2026-01-12";
const DAYS = daysBetween("2026-01-01", "2026-01-12");
/** The days of shard i of n: every n-th day of the window, newest first. */
const shardDays = (i: number, n: number, days: readonly string[] = DAYS) => [...days].reverse().filter((_, at) => at % n === i - 1);

interface Matrix {
  include: { shard: string; partitions: string[] }[];
}

function matrixOf(result: CliResult): Matrix {
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.outLines, "one line: the value of a GitHub output").toHaveLength(1);
  return JSON.parse(result.stdout) as Matrix;
}

describe("plan --shards n --json", () => {
  it("prints a GitHub Actions matrix: one include entry per shard with the partitions it will run", async () => {
    const box = await sandbox();
    const matrix = matrixOf(await runPool(box, ["plan", "daily", "--window", WINDOW, "--shards", "4", "--json"]));
    expect(Object.keys(matrix)).toEqual(["include"]);
    expect(matrix.include.map((entry) => entry.shard)).toEqual(["1/4", "2/4", "3/4", "4/4"]);
    matrix.include.forEach((entry, i) => expect(entry.partitions).toEqual(shardDays(i + 1, 4)));
    expect(matrix.include[0]!.partitions[0]).toBe("2026-01-12");
    const all = matrix.include.flatMap((entry) => entry.partitions);
    expect(all.sort()).toEqual(DAYS);
    // a matrix value GitHub can expand: strings and arrays of strings only
    for (const entry of matrix.include)
      for (const value of Object.values(entry))
        expect(typeof value === "string" || (Array.isArray(value) && value.every((v) => typeof v === "string"))).toBe(true);
    expect(await box.files()).toEqual([]);
  });

  it("more shards than partitions: the extra shards are empty; --order oldest starts shard 1 on the oldest", async () => {
    const box = await sandbox();
    const [many, oldest] = await Promise.all([
      runPool(box, ["plan", "daily", "--window", "2026-01-01..2026-01-03", "--shards", "5", "--json"]),
      runPool(box, ["plan", "daily", "--window", WINDOW, "--shards", "4", "--order", "oldest", "--json"]),
    ]);
    expect(matrixOf(many).include.map((entry) => entry.partitions)).toEqual([["2026-01-03"], ["2026-01-02"], ["2026-01-01"], [], []]);
    const old = matrixOf(oldest).include;
    expect(old[0]!.partitions[0]).toBe("2026-01-01");
    expect(old.flatMap((entry) => entry.partitions).sort()).toEqual(DAYS);
  });

  it("with --missing: only the missing partitions, each in the shard it has without --missing", async () => {
    const box = await sandbox();
    const written = await runPool(box, ["materialize", "daily", "--window", "2026-01-03..2026-01-07"]);
    expect(written.exitCode, written.stderr).toBe(0);
    const matrix = matrixOf(await runPool(box, ["plan", "daily", "--window", WINDOW, "--shards", "4", "--missing", "--json"]));
    const missing = new Set(DAYS.filter((d) => d < "2026-01-03" || d > "2026-01-07"));
    matrix.include.forEach((entry, i) => expect(entry.partitions).toEqual(shardDays(i + 1, 4).filter((d) => missing.has(d))));
  });

  it("without --json: one line per shard", async () => {
    const box = await sandbox();
    const result = await runPool(box, ["plan", "daily", "--window", WINDOW, "--shards", "4"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines).toHaveLength(4);
    expect(result.outLines[0]).toMatch(/^shard 1\/4: 3 partitions \(2026-01-12, 2026-01-08, 2026-01-04\)$/);
  });
});

describe("4 shard processes at the same time against one destination", () => {
  for (const destination of ["csv", "object-store"] as const) {
    it(
      `${destination}: coverage is complete and every partition was written exactly once`,
      async () => {
        const box = await sandbox();
        const env = { INTERLOPER_DESTINATION: destination };
        const shards = [1, 2, 3, 4].map((i) => startPool(box, ["materialize", "--window", WINDOW, "--shard", `${i}/4`], { env }));
        const results = await Promise.all(shards.map((s) => s.done));
        results.forEach((result, i) => {
          expect(result.exitCode, result.stderr).toBe(0);
          expect(result.stderr).toContain("Done: 3 of 3 partitions completed");
          const reported = [...result.stderr.matchAll(/^ok +\[ *\d+\/3\] (\d{4}-\d\d-\d\d) /gm)].map((m) => m[1]);
          expect(reported.sort(), `shard ${i + 1}`).toEqual(shardDays(i + 1, 4).sort());
        });
        await expectComplete(box, "2026-01-01", "2026-01-12", env);
        const files = await box.files();
        for (const day of DAYS) expect(files).toContain(dailyFile(day, destination));

        const log = await runLog(box);
        expect(endsPerKey(log)).toEqual(Object.fromEntries(DAYS.map((d) => [d, 1])));
        expect(log.filter((l) => l.what === "start")).toHaveLength(12);
        // each shard process ran exactly its share, starting on its newest day
        shards.forEach((shard, i) => {
          const started = log.filter((l) => l.what === "start" && l.pid === shard.pid).map((l) => l.key!);
          expect(started[0]).toBe(shardDays(i + 1, 4)[0]);
          expect(started.sort()).toEqual(shardDays(i + 1, 4).sort());
        });
        // the unpartitioned asset runs once, in shard 1
        expect(log.filter((l) => l.what === "settings").map((l) => l.pid)).toEqual([shards[0]!.pid]);
      },
      SLOW,
    );
  }

  it(
    "with --missing after a partial load: every missing partition written once, none rewritten",
    async () => {
      const box = await sandbox();
      const first = await runPool(box, ["materialize", "daily", "--window", "2026-01-04..2026-01-09"]);
      expect(first.exitCode, first.stderr).toBe(0);
      const before = (await runLog(box)).length;
      const results = await Promise.all(
        [1, 2, 3, 4].map((i) => startPool(box, ["materialize", "daily", "--window", WINDOW, "--shard", `${i}/4`, "--missing"]).done),
      );
      for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
      await expectComplete(box, "2026-01-01", "2026-01-12");
      const rerun = (await runLog(box)).slice(before);
      const missing = DAYS.filter((d) => d < "2026-01-04" || d > "2026-01-09");
      expect(endsPerKey(rerun)).toEqual(Object.fromEntries(missing.map((d) => [d, 1])));
    },
    SLOW,
  );
});

describe("shard flags on the command line", () => {
  it(
    "--shard-index-env VAR --shard-count n: VAR is 0-based (JOB_COMPLETION_INDEX=0 is shard 1/n)",
    async () => {
      const box = await sandbox();
      const results = await Promise.all(
        [0, 1, 2].map((index) =>
          runPool(box, ["materialize", "daily", "--window", WINDOW, "--shard-index-env", "JOB_COMPLETION_INDEX", "--shard-count", "3"], {
            JOB_COMPLETION_INDEX: String(index),
          }),
        ),
      );
      for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
      const log = await runLog(box);
      expect(endsPerKey(log)).toEqual(Object.fromEntries(DAYS.map((d) => [d, 1])));
      const pids = [...new Set(log.filter((l) => l.what === "start").map((l) => l.pid))];
      expect(pids).toHaveLength(3);
      const shares = pids.map((pid) =>
        log
          .filter((l) => l.what === "start" && l.pid === pid)
          .map((l) => l.key!)
          .sort(),
      );
      expect(shares.sort((a, b) => b.at(-1)!.localeCompare(a.at(-1)!))).toEqual([1, 2, 3].map((i) => shardDays(i, 3).sort()));
      // shard 1 (index 0) holds the newest day
      expect(results[0]!.stderr).toMatch(/^ok +\[ *\d\/4\] 2026-01-12 /m);
    },
    SLOW,
  );

  it(
    "--shard with --processes: the shard's partitions, in the pool's worker processes",
    async () => {
      const box = await sandbox();
      const result = await runPool(box, [
        "materialize",
        "daily",
        "--window",
        "2026-01-01..2026-01-06",
        "--shard",
        "1/2",
        "--processes",
        "2",
      ]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toContain("Done: 3 of 3 partitions completed");
      const log = await runLog(box);
      expect(
        log
          .filter((l) => l.what === "start")
          .map((l) => l.key)
          .sort(),
      ).toEqual(["2026-01-02", "2026-01-04", "2026-01-06"]);
      // in the pool's workers (at most 2 for the 3 partitions), not in the parent
      const workers = log.filter((l) => l.what === "up").map((l) => l.pid);
      expect(workers.length).toBeGreaterThanOrEqual(1);
      expect(workers.length).toBeLessThanOrEqual(2);
      for (const start of log.filter((l) => l.what === "start")) expect(workers).toContain(start.pid);
      expect((await box.dataFiles()).sort()).toEqual(["2026-01-02", "2026-01-04", "2026-01-06"].map((d) => dailyFile(d)));
    },
    SLOW,
  );

  it("a shard with nothing to do exits 0 and says so", async () => {
    const box = await sandbox();
    const result = await runPool(box, ["materialize", "daily", "--window", "2026-01-01..2026-01-02", "--shard", "3/4"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Nothing to do/);
    expect(await box.files()).toEqual([]);
  });
});

describe.concurrent("bad shard flags", () => {
  it.each([
    [["--shard", "0/4"], '"0/4"'],
    [["--shard", "5/4"], '"5/4"'],
    [["--shard", "a/b"], '"a/b"'],
    [["--shard", "1/4", "--shard-index-env", "JOB_COMPLETION_INDEX"], "--shard-index-env"],
    [["--shard-index-env", "JOB_COMPLETION_INDEX"], "--shard-count"],
    [["--shard-index-env", "INTERLOPER_TEST_UNSET_INDEX", "--shard-count", "4"], "INTERLOPER_TEST_UNSET_INDEX"],
    [["--shard-index-env", "JOB_COMPLETION_INDEX", "--shard-count", "4"], '"first"'],
    [["--shard-count", "0", "--shard-index-env", "JOB_COMPLETION_INDEX"], "--shard-count"],
  ])("%j is bad input: exit 2, one line naming %s, nothing written", async (flags, named) => {
    const box: Sandbox = await sandbox();
    const result = await runPool(box, ["materialize", "daily", "--window", WINDOW, ...flags], {
      JOB_COMPLETION_INDEX: "first",
      INTERLOPER_TEST_UNSET_INDEX: undefined,
    });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(oneLineError(result)).toContain(named);
    expect(await box.files()).toEqual([]);
  });
});
