// W1's backfill run through the work queue (issue 23, item 7): 365 daily partitions of the
// bench's orders (bench/fixtures/pool.config.mjs, to CSVDestination in a temporary folder) with
// 1, 2 and 4 worker processes (`node bin/interloper worker --concurrency 1`), each row against
// the same backfill in one process at the same concurrency (`node bin/interloper materialize
// --window ... --concurrency n`). What the queue costs a job is the row's note:
// (queue time - baseline time) / 365.
//
// What is timed: for the queue, `interloper materialize --window ... --queue URL` (a process that
// loads the config and enqueues 365 jobs) and then the already-running workers until the last job
// completes (counted from their "completed" lines); for the baseline, the one materialize
// process. Both therefore include one CLI start and one config load. The workers are started in
// `setup` and have connected before the clock starts (a Deployment's workers are running when a
// backfill is enqueued); they poll an empty queue every 200 ms (--poll), so up to 200 ms of the
// queue's time is that first wait. They are stopped with SIGTERM in `teardown`. Peak RSS is the
// bench child's alone: the workers' memory is not in it.
//
// Each run has its own queue schema (?schema=il_bench_q_<pid>), dropped in `teardown`.
// BENCH_QUEUE_ROWS changes the rows per partition (default 10,000, as W1). Info rows: the issue
// sets no target, and on a 2-core machine 4 workers measure contention as much as the queue.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { PG_CONNECTION, postgresReachable } from "./shared/postgres-server.js";

const DAYS = 365;
const WINDOW = "2025-01-01..2025-12-31";
const ROWS = Number(process.env["BENCH_QUEUE_ROWS"] ?? 10_000);
const WORKER_COUNTS = [1, 2, 4] as const;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "interloper");
const CONFIG = join(ROOT, "bench", "fixtures", "pool.config.mjs");
const READY_MS = 60_000;
const DONE_MS = 15 * 60_000;
const SCHEMA = `il_bench_q_${process.pid}`;
const QUEUE = `postgres://${PG_CONNECTION.user}@${PG_CONNECTION.host}:${PG_CONNECTION.port}/${PG_CONNECTION.database}?schema=${SCHEMA}`;

interface Options {
  readonly role?: "run" | "baseline";
}

interface Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr: string;
}

let folder: string | undefined;
let workers: Worker[] = [];
/** "completed" lines of the workers since the clock started, and who waits for the count. */
let completed = 0;
let onCompleted: (() => void) | undefined;
let onFailed: ((error: Error) => void) | undefined;

function env(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== "INTERLOPER_QUEUE_URL") out[name] = value;
  return { ...out, CI: "1", NO_COLOR: "1", BENCH_DIR: join(folder!, "data"), BENCH_ROWS: String(ROWS) };
}

/** Runs the CLI to its end; throws with its stderr unless it exits 0. Returns its stdout. */
function cli(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, "-c", CONFIG], { cwd: folder!, env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`interloper ${args[0]} exited ${code}: ${stderr.trim()}`)),
    );
  });
}

/** Starts a worker (kept in `workers`) and resolves once it has connected to the queue and waits for jobs. */
function startWorker(): Promise<Worker> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "worker", "--queue", QUEUE, "--concurrency", "1", "--poll", "200ms", "-c", CONFIG], {
      cwd: folder!,
      env: env(),
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    const worker: Worker = { child, exited, stderr: "" };
    workers.push(worker);
    // A worker that neither connects nor exits must fail the row, not hang the suite.
    const late = setTimeout(
      () => reject(new Error(`a worker (pid ${child.pid}) was not waiting for jobs after ${READY_MS / 1000} s: ${worker.stderr.trim()}`)),
      READY_MS,
    );
    void exited.then((code) => {
      reject(new Error(`a worker exited ${code} before it was ready: ${worker.stderr.trim()}`));
      onFailed?.(new Error(`a worker exited ${code} mid-backfill: ${worker.stderr.trim().slice(-500)}`));
    });
    createInterface({ input: child.stderr! }).on("line", (line) => {
      if (worker.stderr.length < 20_000) worker.stderr += `${line}\n`;
      if (line.includes("waiting for jobs")) {
        clearTimeout(late);
        resolve(worker);
      } else if (line.startsWith("completed ")) {
        if (++completed === DAYS) onCompleted?.();
      } else if (line.startsWith("failed ")) onFailed?.(new Error(`a job failed: ${line}`));
    });
  });
}

/** SIGTERM to the workers (they finish what runs and exit 0), SIGKILL after a minute. */
async function stopWorkers(): Promise<void> {
  onFailed = undefined;
  for (const worker of workers) worker.child.kill("SIGTERM");
  const killer = setTimeout(() => workers.forEach((w) => w.child.kill("SIGKILL")), 60_000);
  await Promise.all(workers.map((w) => w.exited));
  clearTimeout(killer);
  workers = [];
}

async function dropQueueSchemas(): Promise<void> {
  const client = new pg.Client(PG_CONNECTION);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE; DROP SCHEMA IF EXISTS "${SCHEMA}_boss" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Enqueues the year and waits until the running workers have completed its 365 jobs. */
async function viaQueue(count: number): Promise<Record<string, number>> {
  completed = 0;
  let stuck: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve, reject) => {
    onCompleted = resolve;
    onFailed = reject;
    stuck = setTimeout(() => reject(new Error(`${completed} of ${DAYS} jobs completed after ${DONE_MS / 60_000} min`)), DONE_MS);
  });
  done.catch(() => undefined); // awaited below; a failure before then is not unhandled
  try {
    const id = (await cli(["materialize", "--window", WINDOW, "--queue", QUEUE])).trim();
    if (!/^[0-9a-f-]{36}$/.test(id)) throw new Error(`materialize --queue printed ${JSON.stringify(id)}, not a backfill id`);
    await done;
    return { workers: count, jobs: DAYS, rows: DAYS * ROWS };
  } catch (error) {
    // teardown does not follow a failed run: stop the workers here so the process can exit.
    await stopWorkers();
    throw error;
  } finally {
    clearTimeout(stuck);
  }
}

/** The same backfill in one process, at the same concurrency. */
async function inOneProcess(count: number): Promise<Record<string, number>> {
  await cli(["materialize", "--window", WINDOW, "--concurrency", String(count)]);
  return { concurrency: count, partitions: DAYS, rows: DAYS * ROWS };
}

async function pgBossAvailable(): Promise<true | string> {
  try {
    createRequire(import.meta.url).resolve("pg-boss");
    return await postgresReachable();
  } catch {
    return "pg-boss is not installed (npm install pg-boss)";
  }
}

export const workloads = WORKER_COUNTS.map((count) => ({
  name: `queue-${count}`,
  title: `W1 through the work queue: ${DAYS} daily partitions x ${ROWS.toLocaleString("en")} rows to CSVDestination, enqueued and run by ${count} worker process${count === 1 ? "" : "es"} (--concurrency 1 each), from enqueue to the last job completed (baseline: interloper materialize --window --concurrency ${count}, one process)`,
  // Jobs a run: the runner notes (time - baseline) / count, what the queue adds a job.
  count: DAYS,
  available: pgBossAvailable,
  async setup(options: Options = {}): Promise<void> {
    folder = mkdtempSync(join(tmpdir(), "il-bench-queue-"));
    if (options.role !== "baseline") {
      await dropQueueSchemas();
      try {
        await Promise.all(Array.from({ length: count }, startWorker));
      } catch (error) {
        await stopWorkers();
        throw error;
      }
    }
  },
  run: () => viaQueue(count),
  baseline: () => inOneProcess(count),
  async teardown(): Promise<void> {
    await stopWorkers();
    if (folder) {
      await dropQueueSchemas().catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    }
  },
}));
