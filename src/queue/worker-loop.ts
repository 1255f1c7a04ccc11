import { reclaimExpired } from "./boss-internals.js";
import { withReconnect } from "./complete-job.js";
import { startHeartbeat } from "./heartbeat.js";
import { attemptJob, type AttemptContext, type Fetched } from "./job-attempt.js";
import type { QueueConnection } from "./queue-connection.js";
import type { JobData } from "./queue-tables.js";
import type { WorkerSummary } from "./worker.js";

// A worker fetches at most as many jobs as it has free slots, so nothing it holds waits
// unstarted; pg-boss's own `work()` is not used: it swallows errors and fails active jobs
// when stopped, where a worker told to stop lets its running partitions finish.

/** A job this worker runs. */
interface RunningJob {
  readonly promise: Promise<void>;
  readonly attempt: number;
  readonly expire: number;
}

/**
 * The jobs a worker runs, and its polling of the queue for more: it fetches while it has room,
 * looks for expired jobs now and then, and says when it has been idle long enough to exit.
 */
export class WorkerLoop {
  readonly #running = new Map<string, RunningJob>();
  readonly #heartbeat: { now(): void; stop(): void };
  #started = 0;
  #supervisedAt = 0;
  #idleSince = Date.now();
  #wake: () => void = () => undefined;
  /** Jobs completed, failed, and lost (held no longer when about to write or settle). */
  readonly counts = { completed: 0, failed: 0, lost: 0 };
  /** What stops the worker with an error: another project's job, or a lost queue server. */
  fatal: Error | null = null;

  constructor(
    private readonly context: AttemptContext,
    private readonly concurrency: number,
  ) {
    const running = this.#running;
    this.#heartbeat = startHeartbeat(context.connection, () =>
      [...running].map(([id, job]) => ({ id, attempt: job.attempt, expire: job.expire })),
    );
  }

  /** Ends the current wait for a job to end or for the next poll. */
  wake(): void {
    this.#wake();
  }

  /** Runs jobs until stopped (`signal`, or a fatal error), `maxJobs` were started, or idle; says which. */
  async loop(): Promise<WorkerSummary["reason"]> {
    const { options, connection, retry } = this.context;
    const pollMs = (options.pollSeconds ?? 2) * 1000;
    while (options.signal?.aborted !== true && this.fatal === null) {
      if (options.maxJobs !== undefined && this.#started >= options.maxJobs) return "max-jobs";
      const free = Math.min(this.concurrency - this.#running.size, (options.maxJobs ?? Infinity) - this.#started);
      if (Date.now() - this.#supervisedAt >= (options.superviseSeconds ?? 60) * 1000) {
        await withReconnect(retry, "look for expired jobs", () => reclaimExpired(connection));
        this.#supervisedAt = Date.now();
      }
      const jobs = free > 0 ? await withReconnect(retry, "fetch jobs", () => fetchJobs(connection, free)) : [];
      for (const job of jobs) this.#start(job);
      if (jobs.length > 0) this.#heartbeat.now();
      if (await this.#idleLongEnough(jobs.length)) return "idle";
      if (this.#running.size >= this.concurrency || jobs.length === 0) await waitFor(pollMs, (wake) => (this.#wake = wake));
    }
    return "stopped";
  }

  /** Waits for the running jobs to end. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((job) => job.promise));
  }

  stop(): void {
    this.#heartbeat.stop();
  }

  #start(job: Fetched): void {
    this.#started++;
    const promise = attemptJob(this.context, job)
      .then((outcome) => {
        if (outcome.type === "job:completed") this.counts.completed++;
        else if (outcome.type === "job:failed") this.counts.failed++;
        else this.counts.lost++;
        this.context.options.onJob?.(outcome);
      })
      .catch((error: unknown) => void (this.fatal ??= error as Error))
      .finally(() => {
        this.#running.delete(job.id);
        this.#wake();
      });
    this.#running.set(job.id, { promise, attempt: job.retryCount, expire: job.data.expire });
  }

  /** Whether nothing ran here, and the queue held nothing pending, for `idleExitSeconds`. */
  async #idleLongEnough(fetched: number): Promise<boolean> {
    const { options, connection, retry } = this.context;
    if (this.#running.size > 0 || fetched > 0) this.#idleSince = Date.now();
    else if (options.idleExitSeconds !== undefined && (await withReconnect(retry, "look at the queue", () => pendingJobs(connection))) > 0)
      // A job waiting for its retry, or running in another worker (whose children will come): not idle.
      this.#idleSince = Date.now();
    else if (options.idleExitSeconds !== undefined && Date.now() - this.#idleSince >= options.idleExitSeconds * 1000) return true;
    return false;
  }
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
