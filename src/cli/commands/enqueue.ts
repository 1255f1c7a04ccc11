import type { Project } from "../../api/session/index.js";
import type { Plan } from "../../api/session/index.js";
import { ConfigError } from "../../errors.js";
import { backfillProgress, enqueuePlan, QueueConnection, type BackfillProgress, type EnqueueResult } from "../../queue/index.js";
import { count } from "../../text/english.js";
import { printable, terminalJson } from "../printable.js";
import { configArgument, queueArgument } from "./queue-flags.js";
import { parseDuration } from "./shard.js";

const err = (line: string) => process.stderr.write(`${printable(line)}\n`);

/** The flags of `materialize --queue`. */
export interface EnqueueFlags {
  readonly retries?: number;
  readonly retryDelay?: string;
  readonly jobExpiry?: string;
  readonly json?: boolean;
  readonly quiet?: boolean;
  readonly processes?: number;
  readonly fullRefresh?: boolean;
  readonly config?: string;
}

/** The flags that only mean something with --queue are refused without it (exit 2), as --yes is without --full-refresh. */
export function checkQueueOnlyFlags(flags: EnqueueFlags, queue: string | undefined): void {
  if (queue !== undefined) return;
  const given = (
    [
      ["--retries", flags.retries],
      ["--retry-delay", flags.retryDelay],
      ["--job-expiry", flags.jobExpiry],
    ] as const
  ).flatMap(([flag, value]) => (value === undefined ? [] : [flag]));
  if (given.length > 0)
    throw new ConfigError(
      `${given.join(", ")} only ${given.length === 1 ? "applies" : "apply"} with --queue (how a queued backfill's jobs retry and expire): add --queue URL, or leave ${given.length === 1 ? "it" : "them"} out`,
    );
}

/**
 * `materialize --queue URL`: enqueues the plan instead of running it. Prints the backfill id on
 * stdout (the JSON object with --json) and what was done on stderr; enqueuing the same backfill
 * while it runs adds nothing and prints the same id, once it is settled enqueues it anew. Exit 1
 * when it is already enqueued and stopped by failed jobs (nothing added, nothing will run).
 */
export async function enqueueCommand(url: string, project: Project, plan: Plan, flags: EnqueueFlags): Promise<number> {
  if (flags.processes) throw new ConfigError("--processes does not apply with --queue: start workers with `interloper worker`");
  if (flags.fullRefresh) throw new ConfigError("--full-refresh cannot be combined with --queue: drop first, then enqueue");
  const connection = await QueueConnection.open({ url });
  try {
    const result = await enqueuePlan(connection, project, plan, {
      ...(flags.retries !== undefined ? { retries: flags.retries } : {}),
      ...(flags.retryDelay !== undefined ? { retryDelaySeconds: seconds(flags.retryDelay, "--retry-delay", true) } : {}),
      ...(flags.jobExpiry !== undefined ? { expireSeconds: seconds(flags.jobExpiry, "--job-expiry", false) } : {}),
    });
    const stopped = result.created ? null : await stoppedBy(connection, result.backfillId);
    if (flags.json) process.stdout.write(`${terminalJson(JSON.stringify({ ...result, queue: connection.server }))}\n`);
    else process.stdout.write(`${result.backfillId}\n`);
    if (!flags.quiet || !result.created) for (const line of enqueuedLines(result, stopped, url, flags, connection.server)) err(line);
    // Already enqueued and stopped by a failure: nothing was added, and nothing will run.
    if (stopped) return 1;
    return 0;
  } finally {
    await connection.close();
  }
}

/** The failed jobs that stop a backfill with nothing left to run, or null when it is under way. */
async function stoppedBy(connection: QueueConnection, id: string): Promise<BackfillProgress | null> {
  const progress = await backfillProgress(connection, id);
  const c = progress.counts;
  return c.queued + c.running + c.waiting === 0 && c.failed > 0 ? progress : null;
}

/** What enqueuing did, with the command to run next (runnable as printed). */
function enqueuedLines(
  result: EnqueueResult,
  stopped: BackfillProgress | null,
  url: string,
  flags: EnqueueFlags,
  server: string,
): string[] {
  const { argument, note } = queueArgument(url);
  const id = result.backfillId;
  if (stopped) {
    const c = stopped.counts;
    return [
      `Backfill ${id} is already enqueued, and stopped: ${count(c.failed, "failed job")}${c.blocked ? ` ${c.failed === 1 ? "blocks" : "block"} ${count(c.blocked, "other")}` : ""}; nothing added`,
      `Fix the cause, then run: interloper backfills ${id} --retry-failed ${argument}${note}`,
      `(or cancel it with: interloper backfills ${id} --cancel ${argument}, and enqueue it again)`,
    ];
  }
  if (!result.created)
    return [
      `Backfill ${id} is already enqueued and under way: nothing added; follow it with: interloper backfills ${id} ${argument}${note}`,
    ];
  const again = result.replaced ? ` again (it had been ${result.replaced}: every job runs again)` : "";
  const waiting = result.ready < result.jobs ? ", the rest waiting for the partitions they read" : "";
  return [
    `Enqueued backfill ${id}${again}: ${count(result.jobs, "job")} on ${server}, ${result.ready === result.jobs ? "all" : result.ready} ready${waiting}; run workers with: interloper worker ${argument}${configArgument(flags.config)}${note}`,
  ];
}

/** A duration flag in whole seconds (pg-boss counts in seconds), at least 1 unless zero is allowed. */
export function seconds(text: string, flag: string, allowZero: boolean): number {
  const s = Math.round(parseDuration(text, flag, { allowZero }) / 1000);
  return allowZero ? s : Math.max(1, s);
}
