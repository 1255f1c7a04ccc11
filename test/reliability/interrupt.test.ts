// SIGINT and SIGTERM during an in-process backfill (no --processes): scheduling stops, the
// running partitions finish (or, when they honour the abort signal, are abandoned without a
// trace), the summary says what completed, and the exit code is 130 / 143.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "../e2e/pool-helpers.js";
import { checkStored, days, ensureBuilt, startCli, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
beforeAll(ensureBuilt, 180_000);

const WINDOW = days("2024-02-01", "2024-02-10");

async function logLines(data: string): Promise<string[][]> {
  const text = await readFile(join(data, "runs.log"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" "));
}

describe("interrupting an in-process backfill", () => {
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`${signal}: running partitions finish and are stored, no new one starts, the summary names what completed, exit ${code}`, async () => {
      const data = await tempDir();
      const child = startCli(["materialize", "events", "-w", String(WINDOW), "--concurrency", "2"], data, {
        REL_WORK_MS: "1500",
        REL_LOG: "1",
      });
      await waitUntil(async () => (await logLines(data)).filter(([what]) => what === "start").length === 2, "two partitions to start");
      child.process.kill(signal);
      const exit = await child.exit;
      expect(exit.code, child.stderr()).toBe(code);
      const log = await logLines(data);
      const started = log.filter(([what]) => what === "start").map(([, key]) => key!);
      const ended = log.filter(([what]) => what === "end").map(([, key]) => key!);
      // Newest first, two at a time: the two newest days, and nothing after the signal.
      expect(started.sort()).toEqual(["2024-02-09", "2024-02-10"]);
      expect(ended.sort()).toEqual(started);
      const state = await checkStored("csv", data, WINDOW);
      expect(Object.keys(state.counts)).toEqual(started);
      const stderr = child.stderr();
      expect(stderr).toContain(`${signal} received`);
      expect(stderr).toMatch(/Interrupted: 2 of 10 partitions completed, 8 not run/);
      // The re-run command names exactly the partitions that did not complete.
      expect(stderr).toMatch(/materialize events -c \S+ --window 2024-02-01\.\.2024-02-08/);
      expect(stderr).not.toMatch(/\n\s+at /);
    });
  }

  it("SIGINT with runs that honour the abort signal: they are abandoned, nothing of theirs is stored, exit 130", async () => {
    const data = await tempDir();
    const child = startCli(["materialize", "events", "-w", String(WINDOW), "--concurrency", "2"], data, {
      REL_WORK_MS: "5000",
      REL_LOG: "1",
      REL_HONOR_SIGNAL: "1",
    });
    await waitUntil(async () => (await logLines(data)).filter(([what]) => what === "start").length === 2, "two partitions to start");
    child.process.kill("SIGINT");
    const exit = await child.exit;
    expect(exit.code, child.stderr()).toBe(130);
    const log = await logLines(data);
    expect(log.filter(([what]) => what === "end")).toEqual([]);
    expect(log.filter(([what]) => what === "start")).toHaveLength(2);
    const state = await checkStored("csv", data, WINDOW);
    expect(state.counts).toEqual({});
    expect(state.leftovers).toEqual([]);
    expect(child.stderr()).toMatch(/0 of 10 partitions completed/);
    expect(child.stderr()).toMatch(/--window 2024-02-01\.\.2024-02-10/);
  });

  it("a second SIGINT stops at once with 130, and what was stored is still complete", async () => {
    const data = await tempDir();
    const child = startCli(["materialize", "events", "-w", String(WINDOW), "--concurrency", "2"], data, {
      REL_WORK_MS: "5000",
      REL_LOG: "1",
    });
    await waitUntil(async () => (await logLines(data)).filter(([what]) => what === "start").length === 2, "two partitions to start");
    child.process.kill("SIGINT");
    await waitUntil(() => child.stderr().includes("SIGINT received"), "the first SIGINT to be acknowledged");
    child.process.kill("SIGINT");
    const exit = await child.exit;
    expect(exit.code).toBe(130);
    const state = await checkStored("csv", data, WINDOW);
    expect(state.counts).toEqual({});
  });
});
