// How the process pool reads a worker's end: what the worker said of its run stands over how it
// exited; a worker lives for many partitions and a crashed one is replaced. The workers here are
// small scripts speaking the pool's IPC protocol in place of the library's worker entry
// (workerPath), to produce exits a real worker produces only in races (a stop that arrives as it
// finishes; a crash on the way out).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DestinationWriteError } from "../../src/errors.js";
import { RunControl } from "../../src/runner/attempt.js";
import type { InterloperEvent } from "../../src/runner/events.js";
import { WorkerPool } from "../../src/runner/pool/worker-pool.js";
import { WorkerProcesses } from "../../src/runner/pool/processes.js";
import { makeTempDir } from "../contract/temp-dir.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => ({ path: dir, remove } = await makeTempDir("interloper-worker-pool-")));
afterEach(() => remove());

/**
 * A stand-in worker: says ready, then for each task runs `onTask` (JavaScript with `task`,
 * `event(fields)` sending an event of the task's run, and `result(fields)` sending its result,
 * each returning a promise of the send).
 */
async function worker(onTask: string, name = "worker.mjs"): Promise<string> {
  const path = join(dir, name);
  await writeFile(
    path,
    `const send = (message) => new Promise((resolve) => process.send(message, undefined, undefined, resolve));
process.on("message", async (task) => {
  if (task.kind === "shutdown") return process.exit(0);
  if (task.kind !== "task") return;
  const runId = "r" + process.pid;
  const event = (fields) => send({ kind: "event", event: { runId, backfillId: task.backfillId, partition: task.partition, time: "2026-01-07T00:00:01.000Z", ...fields } });
  const result = (fields) => send({ kind: "result", exiting: false, result: { runId, status: "completed", executionTime: 6, partitionOrWindow: task.partition, runError: null, assetExecutions: {}, ...fields } });
  ${onTask}
});
send({ kind: "ready" });
`,
  );
  return path;
}

const ORDERS = "shop.orders";
const completedExecution = {
  asset: ORDERS,
  status: "completed",
  startTime: "2026-01-07T00:00:00.995Z",
  endTime: "2026-01-07T00:00:01.000Z",
  error: null,
  rows: 3,
  written: ["csv"],
  failedDestinations: [],
};
const completedRun = `
  await event({ type: "run:started", assets: ["${ORDERS}"] });
  await event({ type: "asset:completed", asset: "${ORDERS}", rows: 3, durationMs: 5 });
  await event({ type: "run:completed", durationMs: 6, completed: ["${ORDERS}"], failed: [], canceled: [] });`;

/** A pool over `workerPath`, collecting the types of the events it re-emits. */
function pool(workerPath: string, options: { timeoutMs?: number } = {}) {
  const events: InterloperEvent[] = [];
  const control = new RunControl();
  const workers = new WorkerPool(
    { configPath: "unused", cwd: dir, workerPath, ...options },
    { backfillId: "b1", emit: (e) => events.push(e), control, concurrency: 4, failFast: true, workers: new WorkerProcesses() },
  );
  return { workers, events, types: () => events.map((e) => e.type) };
}

describe("WorkerPool: a worker's end", () => {
  it.each([
    ["replies and stays", `${completedRun}\n  await result({ assetExecutions: { "${ORDERS}": ${JSON.stringify(completedExecution)} } });`],
    [
      "replies, then exits 143 (asked to stop as it finished)",
      `${completedRun}\n  await result({ assetExecutions: { "${ORDERS}": ${JSON.stringify(completedExecution)} } });\n  process.exit(143);`,
    ],
    ["says its run completed, then crashes before replying (exit 70)", `${completedRun}\n  process.exit(70);`],
  ])("a worker whose run completed and which %s completed the partition", async (_what, onTask) => {
    const { workers, types } = pool(await worker(onTask));
    const result = await workers.run("2026-01-07", [ORDERS]);
    await workers.close();
    expect(result.status).toBe("completed");
    expect(result.assetExecutions[ORDERS]!.rows).toBe(3);
    expect(types()).toEqual(["run:started", "asset:completed", "run:completed"]);
  });

  it("a worker that exits 143 before its run completed did not complete the partition, and the error holds its stderr", async () => {
    const { workers, types } = pool(
      await worker(
        `await event({ type: "run:started", assets: ["${ORDERS}"] });\n  process.stderr.write("stand-in: stopping\\n", () => process.exit(143));`,
      ),
    );
    const result = await workers.run("2026-01-07", [ORDERS]);
    await workers.close();
    expect(result.status).toBe("failed");
    expect(result.assetExecutions[ORDERS]!.error?.message).toBe(
      "the process running partition 2026-01-07 exited with code 143: stand-in: stopping",
    );
    expect(types()).toEqual(["run:started", "asset:failed", "run:failed"]);
  });

  it("a worker that reported its run failed and exits 143 keeps its own errors, each event once", async () => {
    const message = `asset "${ORDERS}" for 2026-01-07 timed out after 2s writing to CSVDestination`;
    const { workers, types } = pool(
      await worker(`await event({ type: "run:started", assets: ["${ORDERS}"] });
  await event({ type: "asset:failed", asset: "${ORDERS}", error: { name: "AssetError", message: ${JSON.stringify(message)} }, durationMs: 2000 });
  await event({ type: "run:failed", durationMs: 2001, completed: [], failed: ["${ORDERS}"], canceled: [] });
  process.exit(143);`),
    );
    const result = await workers.run("2026-01-07", [ORDERS]);
    await workers.close();
    expect(result.status).toBe("failed");
    expect(result.assetExecutions[ORDERS]!.error?.message).toBe(message);
    expect(result.assetExecutions[ORDERS]!.error?.name).toBe("AssetError");
    expect(types()).toEqual(["run:started", "asset:failed", "run:failed"]);
  });

  it("a worker stopped by the parent's timeout that reports its run canceled failed, with the limit in the error", async () => {
    // On SIGTERM it says it abandoned the asset, as a run does once its grace is over.
    const { workers, types } = pool(
      await worker(`process.on("SIGTERM", async () => {
    await event({ type: "asset:canceled", asset: "${ORDERS}", reason: "abandoned: still running 0ms after SIGTERM", durationMs: 300 });
    await event({ type: "run:canceled", durationMs: 300, completed: [], failed: [], canceled: ["${ORDERS}"] });
    process.exit(143);
  });
  await event({ type: "run:started", assets: ["${ORDERS}"] });
  await event({ type: "asset:started", asset: "${ORDERS}" });
  setInterval(() => undefined, 1000);`),
      // The limit counts from the task's hand-over to the started worker.
      { timeoutMs: 3000 },
    );
    const result = await workers.run("2026-01-07", [ORDERS]);
    await workers.close();
    expect(result.status).toBe("failed");
    expect(result.assetExecutions[ORDERS]!.error?.message).toBe(
      "the process running partition 2026-01-07 timed out after 3s and was stopped",
    );
    expect(types()).toEqual(["run:started", "asset:started", "asset:canceled", "asset:failed", "run:failed"]);
  });
});

describe("WorkerPool: workers for many partitions", () => {
  it("one worker runs partition after partition; a crashed one is replaced and fails only its partition", async () => {
    const { workers } = pool(
      await worker(`if (task.partition === "2026-01-02") process.exit(7);
  ${completedRun}
  await result({ assetExecutions: { "${ORDERS}": ${JSON.stringify(completedExecution)} } });`),
    );
    const results = [];
    for (const key of ["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"]) results.push(await workers.run(key, [ORDERS]));
    await workers.close();
    expect(results.map((r) => r.status)).toEqual(["completed", "completed", "failed", "completed"]);
    expect(results[2]!.error?.message).toBe("the process running partition 2026-01-02 exited with code 7");
    // The run ids carry the worker's pid: the same worker for the first two, another after the crash.
    const [first, second, , last] = results.map((r) => r.runId);
    expect(second).toBe(first);
    expect(last).not.toBe(first);
  });

  it("the result comes back typed: a DestinationWriteError with the destinations that hold the data, dates as dates", async () => {
    const failed = {
      ...completedExecution,
      status: "failed",
      rows: null,
      written: ["main"],
      failedDestinations: ["mirror"],
      error: {
        name: "DestinationWriteError",
        message: "writing to mirror failed",
        stack: "DestinationWriteError: writing to mirror failed\n    at the worker",
        written: ["main"],
        failedDestinations: ["mirror"],
      },
    };
    const { workers } = pool(
      await worker(`await result({ status: "failed", assetExecutions: { "${ORDERS}": ${JSON.stringify(failed)} } });`),
    );
    const result = await workers.run("2026-01-07", [ORDERS]);
    await workers.close();
    const execution = result.assetExecutions[ORDERS]!;
    expect(result.status).toBe("failed");
    expect([execution.written, execution.failedDestinations]).toEqual([["main"], ["mirror"]]);
    expect(execution.error).toBeInstanceOf(DestinationWriteError);
    expect((execution.error as DestinationWriteError).written).toEqual(["main"]);
    expect(execution.error?.stack).toContain("at the worker");
    expect(execution.startTime).toEqual(new Date("2026-01-07T00:00:00.995Z"));
  });
});
