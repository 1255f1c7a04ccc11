import { hostname } from "node:os";
import type PgBoss from "pg-boss";
import type { Project } from "../api/project.js";
import { ConfigError, InterloperError } from "../errors.js";
import type { EventHandler, RunEvents } from "../runner/events.js";
import { reclaimExpired, renewAttempt, returnJobs } from "./boss-internals.js";
import { startHeartbeat } from "./heartbeat.js";
import { completeJob, failJob, withReconnect, type ReconnectOptions } from "./complete-job.js";
import type { QueueConnection } from "./queue-connection.js";
import { ensureTables, type JobData } from "./queue-tables.js";
import { failureOf, failureOfError, jobAssets, runJob, type JobFailure } from "./run-job.js";
import { RunControl } from "../runner/attempt.js";
import { emitter } from "../runner/events.js";
import { defaultRunContext, type RunContext } from "../runner/context.js";
import { WorkerPool, type ChildProcessOptions } from "../runner/pool/worker-pool.js";

// A worker fetches at most as many jobs as it has free slots, so nothing it holds waits
// unstarted; pg-boss's own `work()` is not used: it swallows errors and fails active jobs
// when stopped, where a worker told to stop lets its running partitions finish.

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

type Fetched = PgBoss.JobWithMetadata<JobData>;

/** Runs jobs of the queue until stopped, `maxJobs` were run, or idle for `idleExitSeconds`. */
export async function runWorker(connection: QueueConnection, project: Project, options: WorkerOptions = {}): Promise<WorkerSummary> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new ConfigError(`concurrency must be an integer of at least 1, got ${concurrency}`);
  if (options.maxJobs !== undefined && (!Number.isInteger(options.maxJobs) || options.maxJobs < 1))
    throw new ConfigError(`max jobs must be an integer of at least 1, got ${options.maxJobs}`);
  const worker = workerName();
  const pollMs = (options.pollSeconds ?? 2) * 1000;
  const reconnectMs = (options.reconnectSeconds ?? 60) * 1000;
  const retry = { reconnectMs, ...(options.onWarning ? { onWarning: options.onWarning } : {}), server: connection.server };
  await withReconnect(retry, "prepare the queue", () => ensureTables(connection));
  const running = new Map<string, { promise: Promise<void>; attempt: number; expire: number }>();
  let started = 0;
  let completed = 0;
  let failed = 0;
  let lost = 0;
  const superviseMs = (options.superviseSeconds ?? 60) * 1000;
  let supervisedAt = 0;
  let idleSince = Date.now();
  let wake: () => void = () => undefined;
  let fatal: Error | null = null;

  // One pool per backfill: a pool's processes run partitions of one backfill id.
  const pools = new Map<string, WorkerPool>();
  const control = new RunControl(options.runSignal);
  const runContext = options.context ?? defaultRunContext;
  const poolFor = (backfill: string, childProcess: ChildProcessOptions): WorkerPool => {
    let pool = pools.get(backfill);
    if (!pool) {
      const emit = emitter(options.onEvent, options.events, runContext.listeners);
      const context = {
        backfillId: backfill,
        emit,
        control,
        concurrency: options.assetConcurrency ?? 4,
        failFast: true,
        workers: runContext.workers,
      };
      const limits = {
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
      };
      pools.set(backfill, (pool = new WorkerPool({ ...childProcess, ...limits }, context)));
    }
    return pool;
  };
  const heartbeat = startHeartbeat(connection, () => [...running].map(([id, job]) => ({ id, attempt: job.attempt, expire: job.expire })));
  const run = async (job: Fetched): Promise<void> => {
    const data = job.data;
    options.onJob?.({ type: "job:started", job: job.id, data, attempt: job.retryCount + 1 });
    await connection
      .query(`UPDATE ${connection.schema}.slot SET worker = $3, started_at = now() WHERE backfill_id = $1 AND slot_id = $2`, [
        data.backfill,
        data.slot,
        worker,
      ])
      .catch(() => undefined);
    let failure: JobFailure | null = null;
    // Checked (and renewed) before each write: a worker stopped past its job's expiry, whose job
    // went back to the queue and may have completed elsewhere, must not overwrite that run's rows.
    let held = true;
    const beforeWrite = async () => {
      held &&= await withReconnect(retry, "check its job", () => renewAttempt(connection, job.id, job.retryCount, data.expire));
      if (!held) throw new LostJobError(`the job of ${data.partition ?? "(unpartitioned)"} went back to the queue: nothing written`);
    };
    try {
      // Another project's job is refused here, before a child process is handed it.
      jobAssets(project, data);
      const result =
        options.childProcess && data.partition !== null
          ? await poolFor(data.backfill, options.childProcess).run(data.partition, data.assets, beforeWrite)
          : await runJob(project, data, {
              runId: job.id,
              beforeWrite,
              concurrency: options.assetConcurrency ?? 4,
              ...(options.onEvent ? { onEvent: options.onEvent } : {}),
              ...(options.events ? { events: options.events } : {}),
              ...(options.runSignal ? { signal: options.runSignal } : {}),
              ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
              ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
              context: runContext,
            });
      if (result.status !== "completed") failure = failureOf(result, data.partition);
    } catch (error) {
      if (error instanceof ConfigError) {
        // Another project's job: give it back untouched, and stop.
        await returnJobs(connection, [job.id]).catch(() => undefined);
        fatal ??= error;
        return;
      }
      failure = failureOfError(error, data.partition);
    }
    const outcome = held ? await settle(connection, retry, job, failure) : null;
    if (outcome?.type === "job:completed") completed++;
    else if (outcome?.type === "job:failed") failed++;
    else lost++;
    options.onJob?.(outcome ?? { type: "job:lost", job: job.id, data });
  };

  const stopping = () => options.signal?.aborted === true || fatal !== null;
  const onAbort = () => wake();
  options.signal?.addEventListener("abort", onAbort);
  let reason: WorkerSummary["reason"] = "stopped";
  try {
    while (!stopping()) {
      if (options.maxJobs !== undefined && started >= options.maxJobs) {
        reason = "max-jobs";
        break;
      }
      const free = Math.min(concurrency - running.size, (options.maxJobs ?? Infinity) - started);
      if (Date.now() - supervisedAt >= superviseMs) {
        await withReconnect(retry, "look for expired jobs", () => reclaimExpired(connection));
        supervisedAt = Date.now();
      }
      const jobs = free > 0 ? await withReconnect(retry, "fetch jobs", () => fetchJobs(connection, free)) : [];
      for (const job of jobs) {
        started++;
        const promise = run(job)
          .catch((error: unknown) => void (fatal ??= error as Error))
          .finally(() => {
            running.delete(job.id);
            wake();
          });
        running.set(job.id, { promise, attempt: job.retryCount, expire: job.data.expire });
      }
      if (jobs.length > 0) heartbeat.now();
      if (running.size > 0 || jobs.length > 0) idleSince = Date.now();
      else if (
        options.idleExitSeconds !== undefined &&
        (await withReconnect(retry, "look at the queue", () => pendingJobs(connection))) > 0
      )
        // A job waiting for its retry, or running in another worker (whose children will come): not idle.
        idleSince = Date.now();
      else if (options.idleExitSeconds !== undefined && Date.now() - idleSince >= options.idleExitSeconds * 1000) {
        reason = "idle";
        break;
      }
      if (running.size >= concurrency || jobs.length === 0) await waitFor(pollMs, (w) => (wake = w));
    }
    while (running.size > 0) await Promise.all([...running.values()].map((r) => r.promise));
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    heartbeat.stop();
    await Promise.all([...pools.values()].map((pool) => pool.close()));
    control.dispose();
  }
  if (fatal) throw fatal;
  return { worker, completed, failed, lost, reason };
}

/**
 * Completes or fails this attempt of a job, as the event that says so; null when the attempt
 * holds the job no longer (it expired and went back to the queue: the attempt holding it now
 * settles it).
 */
async function settle(
  connection: QueueConnection,
  retry: ReconnectOptions,
  job: Fetched,
  failure: JobFailure | null,
): Promise<JobEvent | null> {
  const data = job.data;
  if (!failure) {
    const released = await withReconnect(retry, "complete a job", () => completeJob(connection, job.id, job.retryCount, data));
    return released === null ? null : { type: "job:completed", job: job.id, data, released };
  }
  const recorded = await withReconnect(retry, "record a failed job", () => failJob(connection, job.id, job.retryCount, data, failure));
  return recorded ? { type: "job:failed", job: job.id, data, failure, final: job.retryCount >= job.retryLimit } : null;
}

/** A worker that held its job no longer was about to write. */
class LostJobError extends InterloperError {
  override readonly code: string = "LOST_JOB";
}

/** Fetches jobs; pg-boss returns none when the statement fails, so the connection's last error tells. */
async function fetchJobs(connection: QueueConnection, count: number): Promise<Fetched[]> {
  connection.lastError = null;
  const jobs = await connection.boss.fetch<JobData>(connection.queueName, { batchSize: count, includeMetadata: true });
  if (jobs.length === 0 && connection.lastError) throw connection.lastError;
  return jobs;
}

/** Jobs of the queue not yet settled: waiting to start or retry, or running anywhere. */
async function pendingJobs(connection: QueueConnection): Promise<number> {
  connection.lastError = null;
  return connection.boss.getQueueSize(connection.queueName, { before: "completed" });
}

/** Resolves after `ms`, or sooner when the worker is woken. */
function waitFor(ms: number, setWake: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    setWake(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
