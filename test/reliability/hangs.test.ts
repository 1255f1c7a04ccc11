// Runs that never finish: an asset whose promise never settles, a destination write that never
// ends, a server that stops answering. Each must end with a failure naming what hung (the asset,
// the partition, the destination), a summary with re-run commands and exit 1 (or 143 after a
// SIGTERM), with the other partitions of the backfill completed and stored: never exit 0, never
// wait forever. In process (no --processes, -p) and in the pool (--processes).
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, waitUntil } from "../e2e/pool-helpers.js";
import { BIN } from "../e2e/helpers.js";
import { checkStored, cliEnv, days, ensureBuilt, LONG, REL, startCli, useTempDirs, type Child } from "./helpers.js";

const tempDir = useTempDirs();
beforeAll(ensureBuilt, 180_000);

const WINDOW = days("2024-02-01", "2024-02-04");
const HUNG = "2024-02-03";
const OTHERS = ["2024-02-01", "2024-02-02", "2024-02-04"];
/** Far beyond any bound the fixes give (2 s timeouts, 1 s graces), far below forever. */
const LIMIT_MS = 60_000;

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly stdout: string;
  readonly elapsedMs: number;
}

/** Waits for a CLI process to end; kills it (and fails) when it is still running after LIMIT_MS. */
async function ended(child: Child, startedAt = Date.now()): Promise<Ended> {
  let killed = false;
  const limit = setTimeout(() => {
    killed = true;
    child.process.kill("SIGKILL");
  }, LIMIT_MS);
  const exit = await child.exit;
  clearTimeout(limit);
  if (killed) throw new Error(`still running after ${LIMIT_MS} ms; killed. stderr:\n${child.stderr()}`);
  return { ...exit, stderr: child.stderr(), stdout: child.stdout(), elapsedMs: Date.now() - startedAt };
}

function run(args: readonly string[], data: string, env: Record<string, string> = {}): Promise<Ended> {
  return ended(startCli(args, data, env));
}

async function startedPids(data: string, day: string): Promise<number[]> {
  const text = await readFile(join(data, "runs.log"), "utf8").catch(() => "");
  return text.split("\n").flatMap((line) => {
    const [what, key, pid] = line.split(" ");
    return what === "start" && key === day ? [Number(pid)] : [];
  });
}

/** The checks every hang of HUNG in WINDOW shares: exit 1, the others stored, the re-run command, no stack. */
async function expectHungFailure(result: Ended, data: string, kind: "csv" = "csv"): Promise<void> {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(/^Failed: 3 of 4 partitions completed, 1 failed/m);
  expect(result.stderr).toMatch(new RegExp(`^Failed partitions: ${HUNG}$`, "m"));
  expect(result.stderr).toMatch(new RegExp(`materialize events -c \\S+ --partition ${HUNG}$`, "m"));
  expect(result.stderr).not.toMatch(/\n\s+at /);
  const state = await checkStored(kind, data, WINDOW);
  expect(Object.keys(state.counts).sort()).toEqual(OTHERS);
  expect(state.leftovers).toEqual([]);
}

describe("an asset whose promise never settles, no --timeout", () => {
  it("a backfill: the drained event loop fails the partition (exit 1, not 0), naming the asset and the partition; the others are stored", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--no-fail-fast"], data, { REL_HANG_ON: HUNG });
    await expectHungFailure(result, data);
    expect(result.stderr).toMatch(new RegExp(`^FAIL .*${HUNG}.*rel\\.events.*never settled`, "m"));
    expect(result.stderr).toMatch(
      new RegExp(`^  ${HUNG}: rel\\.events: asset "rel\\.events" for ${HUNG} never finished: its promise never settled`, "m"),
    );
  });

  it("-p: exit 1, the summary names the asset, the partition and why", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-p", HUNG], data, { REL_HANG_ON: HUNG });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^Failed: 0 of 1 asset completed for ${HUNG}, 1 failed`, "m"));
    expect(result.stderr).toMatch(
      new RegExp(`^  rel\\.events: asset "rel\\.events" for ${HUNG} never finished: its promise never settled`, "m"),
    );
    expect(result.stderr).toMatch(new RegExp(`materialize events -c \\S+ --window ${HUNG}$`, "m"));
  });

  it("--json: the partition ends with asset:failed and run:failed events, the backfill with backfill:failed", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--no-fail-fast", "--json"], data, { REL_HANG_ON: HUNG });
    expect(result.code, result.stderr).toBe(1);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; partition?: string; error?: { message: string } });
    const failed = events.filter((e) => e.type === "asset:failed");
    expect(failed.map((e) => [e.partition, e.error?.message])).toEqual([[HUNG, expect.stringContaining("never settled")]]);
    expect(events.filter((e) => e.type === "run:failed").map((e) => e.partition)).toEqual([HUNG]);
    expect(events.at(-1)?.type).toBe("backfill:failed");
  });

  it("a destination write that never settles: exit 1, naming the destination", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--no-fail-fast"], data, { REL_HANG_WRITE_ON: HUNG });
    await expectHungFailure(result, data);
    expect(result.stderr).toMatch(
      new RegExp(
        `^  ${HUNG}: rel\\.events: asset "rel\\.events" for ${HUNG} never finished: its write to CSVDestination never settled`,
        "m",
      ),
    );
  });

  it("in the pool: the child fails its partition the same way, exit 1", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--no-fail-fast", "--processes", "2"], data, {
      REL_HANG_ON: HUNG,
    });
    await expectHungFailure(result, data);
    expect(result.stderr).toMatch(
      new RegExp(`^  ${HUNG}: rel\\.events: asset "rel\\.events" for ${HUNG} never finished: its promise never settled`, "m"),
    );
  });
});

describe("any command that waits on a promise nothing can settle", () => {
  it("show, with a read that never ends: exit 1 and one line saying so, not exit 0 and nothing", async () => {
    const data = await tempDir();
    expect((await run(["materialize", "events", "-p", HUNG], data)).code).toBe(0);
    const result = await run(["show", "events", "-p", HUNG], data, { REL_HANG_READ_ON: HUNG });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr.trim()).toBe(
      "interloper: the command stopped before it finished: it waited on a promise that nothing could settle any more",
    );
  });
});

describe("--timeout", () => {
  // A hang that holds a timer (REL_HANG=timer), as a stuck socket would: only the timeout ends it.
  const hung = { REL_HANG: "timer", REL_LOG: "1" };

  it("in process, a window backfill: the hung partition fails after the limit naming asset, partition and limit; the others are stored", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--no-fail-fast", "--timeout", "2s"], data, {
      ...hung,
      REL_HANG_ON: HUNG,
    });
    await expectHungFailure(result, data);
    expect(result.stderr).toMatch(new RegExp(`^FAIL .*${HUNG}.*rel\\.events: asset "rel\\.events" for ${HUNG} timed out after 2s`, "m"));
    expect(result.elapsedMs).toBeLessThan(LIMIT_MS / 2);
  });

  it("in process, -p: exit 1, the summary names the asset, the partition and the limit", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-p", HUNG, "--timeout", "2s"], data, { ...hung, REL_HANG_ON: HUNG });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^  rel\\.events: asset "rel\\.events" for ${HUNG} timed out after 2s$`, "m"));
    expect(result.elapsedMs).toBeLessThan(LIMIT_MS / 2);
  });

  it("in process, with --fail-fast: the partitions not started are not run, and the re-run command covers them", async () => {
    const data = await tempDir();
    const result = await run(
      ["materialize", "events", "-w", String(WINDOW), "--fail-fast", "--timeout", "2s", "--concurrency", "1"],
      data,
      {
        ...hung,
        REL_HANG_ON: "2024-02-04",
      },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^Failed: 0 of 4 partitions completed, 1 failed, 3 not run/m);
    expect(result.stderr).toMatch(/materialize events -c \S+ --window 2024-02-01\.\.2024-02-04$/m);
    expect((await checkStored("csv", data, WINDOW)).counts).toEqual({});
  });

  it("in process, a destination write that hangs: the failure names the destination", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "events", "-w", String(WINDOW), "--no-fail-fast", "--timeout", "2s"], data, {
      ...hung,
      REL_HANG_WRITE_ON: HUNG,
    });
    await expectHungFailure(result, data);
    expect(result.stderr).toMatch(
      new RegExp(`^FAIL .*${HUNG}.*asset "rel\\.events" for ${HUNG} timed out after 2s writing to CSVDestination`, "m"),
    );
  });

  it("--processes 2: the child fails its partition naming asset and partition and is gone; the others are stored", async () => {
    const data = await tempDir();
    const result = await run(
      ["materialize", "events", "-w", String(WINDOW), "--no-fail-fast", "--processes", "2", "--timeout", "2s"],
      data,
      { ...hung, REL_HANG_ON: HUNG },
    );
    await expectHungFailure(result, data);
    expect(result.stderr).toMatch(new RegExp(`^FAIL .*${HUNG}.*rel\\.events: asset "rel\\.events" for ${HUNG} timed out after 2s`, "m"));
    expect(result.elapsedMs).toBeLessThan(LIMIT_MS / 2);
    const pids = await startedPids(data, HUNG);
    expect(pids).toHaveLength(1);
    expect(isAlive(pids[0]!)).toBe(false);
  });

  it("--processes 2, a destination write that hangs: the failure names the destination", async () => {
    const data = await tempDir();
    const result = await run(
      ["materialize", "events", "-w", String(WINDOW), "--no-fail-fast", "--processes", "2", "--timeout", "2s"],
      data,
      { ...hung, REL_HANG_WRITE_ON: HUNG },
    );
    await expectHungFailure(result, data);
    expect(result.stderr).toMatch(new RegExp(`^FAIL .*${HUNG}.*timed out after 2s writing to CSVDestination`, "m"));
  });

  it("the help says what --timeout does in the pool: SIGTERM, then SIGKILL 15 s later", async () => {
    const data = await tempDir();
    const result = await run(["materialize", "--help"], data);
    expect(result.code).toBe(0);
    expect(result.stdout.replace(/\s+/g, " ")).toMatch(/--timeout <duration> .*SIGKILL 15 s later/);
    expect(result.stdout.replace(/\s+/g, " ")).toMatch(/--grace <duration> /);
  });
});

describe("SIGTERM with a partition that never finishes", () => {
  const hungNewest = { REL_HANG: "timer", REL_LOG: "1", REL_HANG_ON: "2024-02-04" };

  async function signalWhenOnlyTheHungRuns(child: Child, data: string): Promise<number> {
    // Newest first, two at a time: 2024-02-04 hangs, the other worker completes the three others.
    await waitUntil(async () => {
      const text = await readFile(join(data, "runs.log"), "utf8").catch(() => "");
      return text.split("\n").filter((line) => line.startsWith("end ")).length === 3 && text.includes("start 2024-02-04");
    }, "the three other partitions to end");
    // Their writes follow their "end" line: wait until the three are stored (the files on disk
    // are compared with the counts once the run is over: each test checks the stored state then).
    await waitUntil(
      async () => Object.keys((await checkStored("csv", data, WINDOW, { writing: true })).counts).length === 3,
      "the three others to be stored",
    );
    child.process.kill("SIGTERM");
    return Date.now();
  }

  it("in process, --grace 1s: the hung partition is abandoned after the grace, reported by name; exit 143", async () => {
    const data = await tempDir();
    const child = startCli(["materialize", "events", "-w", String(WINDOW), "--grace", "1s"], data, hungNewest);
    const signalledAt = await signalWhenOnlyTheHungRuns(child, data);
    const result = await ended(child, signalledAt);
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toContain("SIGTERM received");
    expect(result.stderr).toMatch(/^Interrupted: 3 of 4 partitions completed, 1 abandoned/m);
    expect(result.stderr).toMatch(/^Abandoned \(still running 1s after SIGTERM\): 2024-02-04$/m);
    expect(result.stderr).toMatch(/materialize events -c \S+ --partition 2024-02-04$/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const state = await checkStored("csv", data, WINDOW);
    expect(Object.keys(state.counts).sort()).toEqual(["2024-02-01", "2024-02-02", "2024-02-03"]);
    expect(result.elapsedMs).toBeLessThan(LIMIT_MS / 2);
  });

  it("in process, -p, --grace 1s: exit 143, the summary names the abandoned asset", async () => {
    const data = await tempDir();
    const child = startCli(["materialize", "events", "-p", "2024-02-04", "--grace", "1s"], data, hungNewest);
    await waitUntil(async () => (await startedPids(data, "2024-02-04")).length === 1, "the partition to start");
    child.process.kill("SIGTERM");
    const result = await ended(child);
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toMatch(/^Interrupted: 0 of 1 asset completed for 2024-02-04/m);
    expect(result.stderr).toMatch(/^ {2}rel\.events: abandoned: still running 1s after SIGTERM$/m);
  });

  it("in the pool, --grace 1s: the child abandons it, the parent reports it and exits 143; the child is gone", async () => {
    const data = await tempDir();
    const child = startCli(["materialize", "events", "-w", String(WINDOW), "--processes", "2", "--grace", "1s"], data, hungNewest);
    const signalledAt = await signalWhenOnlyTheHungRuns(child, data);
    const result = await ended(child, signalledAt);
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toMatch(/^Interrupted: 3 of 4 partitions completed, 1 abandoned/m);
    expect(result.stderr).toMatch(/^Abandoned \(still running 1s after SIGTERM\): 2024-02-04$/m);
    expect(Object.keys((await checkStored("csv", data, WINDOW)).counts).sort()).toEqual(["2024-02-01", "2024-02-02", "2024-02-03"]);
    const pids = await startedPids(data, "2024-02-04");
    await waitUntil(() => pids.every((pid) => !isAlive(pid)), "the hung child to be gone", 20_000);
    expect(result.elapsedMs).toBeLessThan(LIMIT_MS / 2);
  });

  it("Ctrl-C in a terminal (SIGINT to the whole process group) with the pool: the children finish their partitions, which are stored; exit 130", async () => {
    const data = await tempDir();
    // Its own process group, as a shell gives a command: the signal goes to the group.
    const cli = spawn(process.execPath, [BIN, "materialize", "events", "-w", String(WINDOW), "--processes", "2", "-c", REL], {
      cwd: data,
      env: cliEnv(data, { REL_WORK_MS: "1500", REL_LOG: "1" }),
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
    });
    let stderr = "";
    cli.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exit = new Promise<number | null>((resolve) => cli.on("close", (code) => resolve(code)));
    await waitUntil(
      async () => (await startedPids(data, "2024-02-04")).length + (await startedPids(data, "2024-02-03")).length === 2,
      "two partitions to start",
    );
    process.kill(-cli.pid!, "SIGINT");
    const limit = setTimeout(() => process.kill(-cli.pid!, "SIGKILL"), LIMIT_MS);
    const code = await exit;
    clearTimeout(limit);
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/^Interrupted: 2 of 4 partitions completed, 2 not run/m);
    expect(Object.keys((await checkStored("csv", data, WINDOW)).counts).sort()).toEqual(["2024-02-03", "2024-02-04"]);
  });

  if (!LONG)
    console.warn(
      'skipping "the default grace (10 s) ends it too": it waits the whole default grace; INTERLOPER_RELIABILITY_LONG=1 runs it',
    );
  it.runIf(LONG)("the default grace (10 s) ends it too", async () => {
    const data = await tempDir();
    const child = startCli(["materialize", "events", "-w", String(WINDOW)], data, hungNewest);
    const signalledAt = await signalWhenOnlyTheHungRuns(child, data);
    const result = await ended(child, signalledAt);
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toMatch(/^Abandoned \(still running 10s after SIGTERM\): 2024-02-04$/m);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(10_000);
    expect(Object.keys((await checkStored("csv", data, WINDOW)).counts).sort()).toEqual(["2024-02-01", "2024-02-02", "2024-02-03"]);
  });
});

describe("a server that accepts connections and never answers (as a proxy that stopped forwarding)", () => {
  // A PostgreSQL destination pointed at a listener that takes every connection and says
  // nothing: the connect, and so the write, never ends. Only --timeout ends it.
  let port = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const processes of [[], ["--processes", "2"]]) {
    it(`${processes.length ? "--processes 2" : "in process"}, --timeout 2s: exit 1, the failure names the partition and the destination`, async () => {
      const data = await tempDir();
      const result = await run(["materialize", "events", "-w", String(WINDOW), "--timeout", "2s", ...processes], data, {
        REL_DEST: "postgres",
        REL_PG_PORT: String(port),
        REL_LOG: "1",
      });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(
        /^FAIL .*2024-02-0\d.*asset "rel\.events" for 2024-02-0\d timed out after 2s writing to PostgresDestination/m,
      );
      expect(result.stderr).toMatch(/^Failed: 0 of 4 partitions completed/m);
      expect(result.stderr).toMatch(/materialize events -c \S+ --window 2024-02-01\.\.2024-02-04$/m);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.elapsedMs).toBeLessThan(LIMIT_MS / 2);
      const text = await readFile(join(data, "runs.log"), "utf8");
      const pids = [
        ...new Set(
          text
            .split("\n")
            .filter(Boolean)
            .map((line) => Number(line.split(" ")[2])),
        ),
      ];
      await waitUntil(() => pids.every((pid) => !isAlive(pid)), "every process that ran a partition to be gone", 20_000);
    });
  }
});
