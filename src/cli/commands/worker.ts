import { ConfigError } from "../../errors.js";
import { QueueConnection, QueueServerError, runWorker, workerName, type JobEvent } from "../../queue/index.js";
import { eventToJson } from "../../runner/events.js";
import type { GlobalOptions } from "../main.js";
import { printable, terminalJson } from "../printable.js";
import { guardEscapedErrors } from "../process-guards.js";
import { requireQueueUrl, type QueueFlags } from "./queue-flags.js";
import { parseDuration } from "./shard.js";
import { openCommandSession } from "../command-session.js";
import { driverProblems } from "./drivers.js";

/** Flags of `interloper worker`. */
export interface WorkerFlags extends GlobalOptions, QueueFlags {
  readonly concurrency?: number;
  readonly processes?: number;
  readonly maxJobs?: number;
  readonly idleExit?: number;
  readonly timeout?: string;
  readonly grace?: string;
  readonly poll?: string;
  readonly superviseEvery?: string;
  readonly reconnect?: string;
  readonly json?: boolean;
}

const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
const err = (line: string) => process.stderr.write(`${printable(line)}\n`);

/**
 * `interloper worker`: runs jobs of the queue until stopped, idle (--idle-exit) or done
 * (--max-jobs). The first SIGINT or SIGTERM stops fetching and lets running partitions
 * finish; a second interrupts them (their jobs fail and retry); a third exits at once.
 * Exit 0 when it stopped as asked, 1 when the queue server stayed away, 2 for bad input.
 */
export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const unguard = guardEscapedErrors(flags.verbose);
  try {
    return await workerGuarded(flags);
  } catch (error) {
    if (!(error instanceof QueueServerError)) throw error;
    err(`interloper: ${error.message}`);
    return 1;
  } finally {
    unguard();
  }
}

async function workerGuarded(flags: WorkerFlags): Promise<number> {
  const url = requireQueueUrl(flags, "interloper worker");
  const timeoutMs = flags.timeout !== undefined ? parseDuration(flags.timeout, "--timeout") : undefined;
  const graceMs = flags.grace !== undefined ? parseDuration(flags.grace, "--grace", { allowZero: true }) : undefined;
  const pollMs = flags.poll !== undefined ? parseDuration(flags.poll, "--poll") : 2000;
  const superviseMs = flags.superviseEvery !== undefined ? parseDuration(flags.superviseEvery, "--supervise-every") : 60_000;
  const reconnectMs = flags.reconnect !== undefined ? parseDuration(flags.reconnect, "--reconnect", { allowZero: true }) : 60_000;
  if (flags.processes && flags.concurrency && flags.processes !== flags.concurrency)
    throw new ConfigError("--processes sets how many partitions run at once: leave out --concurrency");
  const session = await openCommandSession(flags);
  const project = session.project;
  if (flags.processes && !project.filepath) throw new ConfigError("--processes needs a config file that worker processes can load");
  // A worker takes jobs of any asset: a driver missing here would fail each of them in turn.
  const missingDrivers = await driverProblems(project.dag.assets);
  if (missingDrivers.length > 0) {
    for (const line of missingDrivers) err(`interloper: ${line}`);
    return 2;
  }
  const connection = await QueueConnection.open(
    { url },
    // The worker sends the jobs of silent workers back itself, every --supervise-every and at
    // once; pg-boss's maintenance (which would retry them only after a failure's backoff, and
    // archives settled jobs) runs five times less often, so the worker's look comes first.
    { supervise: true, maintenanceIntervalSeconds: Math.max(1, Math.round((5 * superviseMs) / 1000)) },
  );
  const stop = new AbortController();
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 143);
    if (stop.signal.aborted) {
      err(`${signal} received again: interrupting the running partitions (their jobs go back to the queue)`);
      interrupt.abort(new DOMException(signal, "AbortError"));
      return;
    }
    err(`${signal} received: finishing the running partitions, fetching no more (again: interrupt them)`);
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    if (!flags.quiet && !flags.json) err(`Worker ${workerName()} on ${connection.server}: waiting for jobs`);
    const summary = await runWorker(connection, project, {
      ...(flags.concurrency || flags.processes ? { concurrency: flags.processes ?? flags.concurrency } : {}),
      ...(flags.processes && project.filepath ? { childProcess: { configPath: project.filepath, cwd: process.cwd() } } : {}),
      ...(flags.maxJobs ? { maxJobs: flags.maxJobs } : {}),
      ...(flags.idleExit !== undefined ? { idleExitSeconds: flags.idleExit } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(graceMs !== undefined ? { graceMs } : {}),
      pollSeconds: pollMs / 1000,
      reconnectSeconds: reconnectMs / 1000,
      superviseSeconds: superviseMs / 1000,
      signal: stop.signal,
      runSignal: interrupt.signal,
      ...(flags.json ? { onEvent: (event) => out(terminalJson(eventToJson(event))) } : {}),
      onJob: (event) => (flags.json ? out(terminalJson(JSON.stringify(jobJson(event)))) : flags.quiet ? undefined : err(jobLine(event))),
      onWarning: (message) => err(`interloper: ${message}`),
      context: session.runtime,
    });
    const why = { stopped: "stopped", "max-jobs": "ran --max-jobs jobs", idle: "the queue stayed empty" }[summary.reason];
    if (!flags.json)
      err(
        `Worker ${summary.worker} done (${why}): ${summary.completed} completed, ${summary.failed} failed${summary.lost ? `, ${summary.lost} given up (see above)` : ""}`,
      );
    return 0;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await connection.close();
  }
}

/** One line per job start and end: "completed 2026-01-05 shop.orders, shop.enriched (released 1)". */
export function jobLine(event: JobEvent): string {
  const what = `${event.data.partition ?? "(unpartitioned)"} ${event.data.assets.join(", ")}`;
  switch (event.type) {
    case "job:started":
      return `started ${what}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}`;
    case "job:completed":
      return `completed ${what}${event.released > 0 ? ` (released ${event.released} waiting job${event.released === 1 ? "" : "s"})` : ""}`;
    case "job:failed":
      return `failed ${what}: ${event.failure.message}${event.final ? " (no retry left)" : " (will retry)"}`;
    case "job:lost":
      return `gave up ${what}: this worker was stopped or cut off past the job expiry and its job went back to the queue; nothing more of it is written here, the attempt holding it now settles it`;
  }
}

function jobJson(event: JobEvent): object {
  const { data, ...rest } = event;
  return { ...rest, backfillId: data.backfill, partition: data.partition, assets: data.assets, time: new Date().toISOString() };
}
