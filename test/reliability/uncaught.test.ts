// An asset that fails outside its own promise: a callback it waits for throws (an uncaught
// exception), or it leaves a rejection unhandled. The backfill must end in order: scheduling
// stops, the error is put on the asset and partition it came from (or, when no asset's context
// reaches it, on the run), the summary prints it in one line with the re-run commands, exit 1,
// no stack trace unless --verbose. What was stored is complete, and nothing of the failed
// partition is written after it failed.
import { beforeAll, describe, expect, it } from "vitest";
import { checkStored, days, ensureBuilt, startCli, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
beforeAll(ensureBuilt, 180_000);

const WINDOW = days("2024-02-01", "2024-02-04");
const BAD = "2024-02-03";
const LIMIT_MS = 60_000;

async function run(
  args: readonly string[],
  data: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = startCli(args, data, env);
  const limit = setTimeout(() => child.process.kill("SIGKILL"), LIMIT_MS);
  const { code } = await child.exit;
  clearTimeout(limit);
  return { code, stderr: child.stderr(), stdout: child.stdout() };
}

/** What every case shares: exit 1, a summary, BAD not stored, what is stored complete, the re-run command covers BAD. */
async function expectOrderlyFailure(result: { code: number | null; stderr: string }, data: string): Promise<void> {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(/^Failed: \d of 4 partitions completed/m);
  expect(result.stderr).toContain("Re-run what did not complete with:");
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toContain("unexpected error");
  const state = await checkStored("csv", data, WINDOW);
  expect(Object.keys(state.counts)).not.toContain(BAD);
  const rerun = [...result.stderr.matchAll(/materialize events -c \S+ --(?:partition|window) (\S+)$/gm)].map((m) => m[1]!);
  const covered = rerun.some((range) => {
    const [from, to = from] = range.split("..");
    return from! <= BAD && BAD <= to!;
  });
  expect(covered, result.stderr).toBe(true);
}

describe.concurrent("an asset that fails outside its own promise", () => {
  it("a callback it waits for throws (uncaught exception): the partition fails naming it, exit 1, no stack", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW)], data, { REL_THROW_ON: BAD, REL_THROW: "timer" });
    await expectOrderlyFailure(result, data);
    expect(result.stderr).toMatch(new RegExp(`^Failed partitions: ${BAD}$`, "m"));
    expect(result.stderr).toMatch(
      new RegExp(`^  ${BAD}: rel\\.events: asset "rel\\.events" for ${BAD} threw outside its run: .*JSON`, "m"),
    );
  });

  it("an unhandled rejection: the partition fails naming it, and its rows, returned after, are never written", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--no-fail-fast"], data, {
      REL_THROW_ON: BAD,
      REL_THROW: "rejection",
    });
    await expectOrderlyFailure(result, data);
    expect(result.stderr).toMatch(
      new RegExp(
        `^  ${BAD}: rel\\.events: asset "rel\\.events" for ${BAD} threw outside its run: rejected and never handled on ${BAD}$`,
        "m",
      ),
    );
  });

  it("an error no asset's context reaches (a microtask): a run-level failure, exit 1, the summary says so in one line", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW)], data, { REL_THROW_ON: BAD, REL_THROW: "microtask" });
    await expectOrderlyFailure(result, data);
    expect(result.stderr).toMatch(new RegExp(`^Error: an asset threw outside its run: thrown from a microtask on ${BAD}$`, "m"));
  });

  it("after such an error, what still runs gets the grace, then is abandoned (a partition hung on a timer does not hold the backfill)", async () => {
    const data = await tempDir();
    const env = { REL_THROW_ON: BAD, REL_THROW: "microtask", REL_HANG_ON: "2024-02-04", REL_HANG: "timer" };
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--grace", "1s"], data, env);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^Failed: 0 of 4 partitions completed, 2 abandoned, 2 not run/m);
    expect(result.stderr).toMatch(
      /^Abandoned \(still running 1s after the run stopped \(an asset threw outside its run\)\): 2024-02-03, 2024-02-04$/m,
    );
    expect(result.stderr).toMatch(new RegExp(`^Error: an asset threw outside its run: thrown from a microtask on ${BAD}$`, "m"));
    expect(result.stderr).toMatch(/materialize events -c \S+ --window 2024-02-01\.\.2024-02-04$/m);
  });

  it("-p: exit 1, the summary names the asset and the error", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-p", BAD], data, { REL_THROW_ON: BAD, REL_THROW: "timer" });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^  rel\\.events: asset "rel\\.events" for ${BAD} threw outside its run: .*JSON`, "m"));
    expect(result.stderr).toMatch(new RegExp(`materialize events -c \\S+ --window ${BAD}$`, "m"));
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("in the pool: the child fails its partition the same way; the parent's summary names it", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--processes", "2", "--no-fail-fast"], data, {
      REL_THROW_ON: BAD,
      REL_THROW: "timer",
    });
    await expectOrderlyFailure(result, data);
    expect(result.stderr).toMatch(
      new RegExp(`^  ${BAD}: rel\\.events: asset "rel\\.events" for ${BAD} threw outside its run: .*JSON`, "m"),
    );
  });

  it("--verbose adds the stack trace", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-p", BAD, "--verbose"], data, { REL_THROW_ON: BAD, REL_THROW: "timer" });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});
