import type PgBoss from "pg-boss";
import type { Project } from "../api/project.js";
import { ConfigError, InterloperError } from "../errors.js";
import type { RunControl } from "../runner/attempt.js";
import { emitter } from "../runner/events.js";
import { defaultRunContext } from "../runner/context.js";
import { WorkerPool, type ChildProcessOptions } from "../runner/pool/worker-pool.js";
import { renewAttempt, returnJobs } from "./boss-internals.js";
import { completeJob, failJob, withReconnect, type ReconnectOptions } from "./complete-job.js";
import type { QueueConnection } from "./queue-connection.js";
import type { JobData } from "./queue-tables.js";
import { failureOf, failureOfError, jobAssets, runJob, type JobFailure } from "./run-job.js";
import type { JobEvent, WorkerOptions } from "./worker.js";

// One attempt of a worker at one job it fetched: its slot marked with the worker, its partition
// run (in process, or in a child process of the backfill's pool), the job settled.

/** A job as pg-boss hands it to a worker. */
export type Fetched = PgBoss.JobWithMetadata<JobData>;

/** What an attempt needs of its worker. */
export interface AttemptContext {
  readonly connection: QueueConnection;
  readonly project: Project;
  readonly options: WorkerOptions;
  /** host:pid of the worker. */
  readonly worker: string;
  readonly retry: ReconnectOptions;
  readonly pools: BackfillPools;
}

/**
 * Runs a job and settles it: the event that says how it ended (`job:lost` when the worker held
 * it no longer). Throws the ConfigError of another project's job, given back to the queue
 * untouched: the worker stops.
 */
export async function attemptJob(context: AttemptContext, job: Fetched): Promise<JobEvent> {
  const { connection, options, retry } = context;
  const data = job.data;
  options.onJob?.({ type: "job:started", job: job.id, data, attempt: job.retryCount + 1 });
  await connection
    .query(`UPDATE ${connection.schema}.slot SET worker = $3, started_at = now() WHERE backfill_id = $1 AND slot_id = $2`, [
      data.backfill,
      data.slot,
      context.worker,
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
    jobAssets(context.project, data);
    const result = await runPartition(context, job, beforeWrite);
    if (result.status !== "completed") failure = failureOf(result, data.partition);
  } catch (error) {
    if (error instanceof ConfigError) {
      // Another project's job: give it back untouched, and stop.
      await returnJobs(connection, [job.id]).catch(() => undefined);
      throw error;
    }
    failure = failureOfError(error, data.partition);
  }
  const outcome = held ? await settle(connection, retry, job, failure) : null;
  return outcome ?? { type: "job:lost", job: job.id, data };
}

/** Runs the job's partition: in a child process of its backfill's pool when the worker has one, in process otherwise. */
function runPartition(context: AttemptContext, job: Fetched, beforeWrite: () => Promise<void>) {
  const { options } = context;
  const data = job.data;
  if (options.childProcess && data.partition !== null) {
    return context.pools.of(data.backfill, options.childProcess).run(data.partition, data.assets, beforeWrite);
  }
  return runJob(context.project, data, {
    runId: job.id,
    beforeWrite,
    concurrency: options.assetConcurrency ?? 4,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(options.runSignal ? { signal: options.runSignal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    ...(options.context ? { context: options.context } : {}),
  });
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

/** One pool of child processes per backfill: a pool's processes run partitions of one backfill id. */
export class BackfillPools {
  readonly #pools = new Map<string, WorkerPool>();

  constructor(
    private readonly options: WorkerOptions,
    private readonly control: RunControl,
  ) {}

  /** The backfill's pool, started on first use. */
  of(backfill: string, childProcess: ChildProcessOptions): WorkerPool {
    let pool = this.#pools.get(backfill);
    if (!pool) {
      const { options } = this;
      // The session's: its listeners hear the pool's events, it kills the pool's workers at once when asked.
      const { listeners, workers } = options.context ?? defaultRunContext;
      const emit = emitter(options.onEvent, options.events, listeners);
      const context = {
        backfillId: backfill,
        emit,
        control: this.control,
        concurrency: options.assetConcurrency ?? 4,
        failFast: true,
        workers,
      };
      const limits = {
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
      };
      this.#pools.set(backfill, (pool = new WorkerPool({ ...childProcess, ...limits }, context)));
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((pool) => pool.close()));
  }
}
