import { hostname } from "node:os";
import type { Project } from "../api/project.js";
import { ConfigError } from "../errors.js";
import type { EventHandler, RunEvents } from "../runner/events.js";
import { RunControl } from "../runner/attempt.js";
import type { ChildProcessOptions } from "../runner/pool/worker-pool.js";
import type { RunContext } from "../runner/context.js";
import { withReconnect } from "./complete-job.js";
import { BackfillPools } from "./job-attempt.js";
import type { QueueConnection } from "./queue-connection.js";
import { ensureTables, type JobData } from "./queue-tables.js";
import type { JobFailure } from "./run-job.js";
import { WorkerLoop } from "./worker-loop.js";

/** How a worker runs. */
export interface WorkerOptions {
  /** Jobs (partitions) at once (default 1). */
  readonly concurrency?: number;
  /** Stop after starting this many jobs (and finishing them). */
  readonly maxJobs?: number;
  /**
   * Exit when, for this many seconds, nothing ran here and the queue held no job to run, to retry
   * or running elsewhere (whose completion could release more): the backfills are settled.
   */
  readonly idleExitSeconds?: number;
  /** Stop fetching; running jobs finish, then the worker returns. */
  readonly signal?: AbortSignal;
  /** Interrupts the running partitions themselves (a second SIGTERM): they fail and are retried. */
  readonly runSignal?: AbortSignal;
  readonly onEvent?: EventHandler;
  readonly events?: RunEvents;
  /** Each job's start and end, for a command to print. */
  readonly onJob?: (event: JobEvent) => void;
  /** A lost server: what the worker is doing about it. */
  readonly onWarning?: (message: string) => void;
  /** A limit per partition (see `RunOptions.timeoutMs`). */
  readonly timeoutMs?: number;
  readonly graceMs?: number;
  /**
   * Run each partition in a child process that loads this config once (the pool of
   * `materialize --processes`), at most `concurrency` of them; unpartitioned jobs run in process.
   */
  readonly childProcess?: ChildProcessOptions;
  /** Assets at once within a partition (default 4). */
  readonly assetConcurrency?: number;
  /** Seconds between polls of an empty queue (default 2). */
  readonly pollSeconds?: number;
  /** How long the worker keeps trying a lost queue server before it exits with an error (default 60 s). */
  readonly reconnectSeconds?: number;
  /** Seconds between looks for jobs whose worker went silent past their expiry (default 60). */
  readonly superviseSeconds?: number;
  /** The session whose runs these are (`session.runtime`): its listeners hear them, its watchdog and workers are theirs. */
  readonly context?: RunContext;
}

/** A job starting or ending in this worker. */
export type JobEvent =
  | { readonly type: "job:started"; readonly job: string; readonly data: JobData; readonly attempt: number }
  | { readonly type: "job:completed"; readonly job: string; readonly data: JobData; readonly released: number }
  | { readonly type: "job:failed"; readonly job: string; readonly data: JobData; readonly failure: JobFailure; readonly final: boolean }
  /** This worker held the job no longer (it was stopped or cut off past the expiry): nothing more of it is written or settled here. */
  | { readonly type: "job:lost"; readonly job: string; readonly data: JobData };

/** What a worker did before it returned. */
export interface WorkerSummary {
  readonly worker: string;
  readonly completed: number;
  readonly failed: number;
  /** Jobs it held no longer when it was about to write or settle them (see `job:lost`). */
  readonly lost: number;
  /** Why it stopped. */
  readonly reason: "stopped" | "max-jobs" | "idle";
}

/** This process as a queue's tables name it. */
export function workerName(): string {
  return `${hostname()}:${process.pid}`;
}

/** Runs jobs of the queue until stopped, `maxJobs` were run, or idle for `idleExitSeconds`. */
export async function runWorker(connection: QueueConnection, project: Project, options: WorkerOptions = {}): Promise<WorkerSummary> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new ConfigError(`concurrency must be an integer of at least 1, got ${concurrency}`);
  if (options.maxJobs !== undefined && (!Number.isInteger(options.maxJobs) || options.maxJobs < 1))
    throw new ConfigError(`max jobs must be an integer of at least 1, got ${options.maxJobs}`);
  const worker = workerName();
  const reconnectMs = (options.reconnectSeconds ?? 60) * 1000;
  const retry = { reconnectMs, ...(options.onWarning ? { onWarning: options.onWarning } : {}), server: connection.server };
  await withReconnect(retry, "prepare the queue", () => ensureTables(connection));
  const control = new RunControl(options.runSignal);
  const pools = new BackfillPools(options, control);
  const loop = new WorkerLoop({ connection, project, options, worker, retry, pools }, concurrency);
  const onAbort = () => loop.wake();
  options.signal?.addEventListener("abort", onAbort);
  let reason: WorkerSummary["reason"];
  try {
    reason = await loop.loop();
    await loop.drain();
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    loop.stop();
    await pools.close();
    control.dispose();
  }
  if (loop.fatal) throw loop.fatal;
  return { worker, ...loop.counts, reason };
}
