import type { Project } from "../../api/project.js";
import type { Plan } from "../../api/plan.js";
import { ConfigError } from "../../errors.js";
import { enqueuePlan, QueueConnection } from "../../queue/index.js";
import { count } from "../../text/english.js";
import { printable, terminalJson } from "../printable.js";
import { parseDuration } from "./shard.js";

/** The flags of `materialize --queue`. */
export interface EnqueueFlags {
  readonly retries?: number;
  readonly retryDelay?: string;
  readonly jobExpiry?: string;
  readonly json?: boolean;
  readonly quiet?: boolean;
  readonly processes?: number;
  readonly fullRefresh?: boolean;
}

/**
 * `materialize --queue URL`: enqueues the plan instead of running it. Prints the backfill id on
 * stdout (the JSON object with --json) and what was done on stderr; enqueuing the same backfill
 * again adds nothing and prints the same id. Returns the exit code.
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
    if (flags.json) process.stdout.write(`${terminalJson(JSON.stringify({ ...result, queue: connection.server }))}\n`);
    else process.stdout.write(`${result.backfillId}\n`);
    if (!flags.quiet || !result.created) {
      const line = result.created
        ? `Enqueued backfill ${result.backfillId}: ${count(result.jobs, "job")} on ${connection.server}, ${result.ready === result.jobs ? "all" : result.ready} ready${result.ready < result.jobs ? ", the rest waiting for the partitions they read" : ""}; run \`interloper worker\` to work on it`
        : `Backfill ${result.backfillId} is already enqueued: nothing added`;
      process.stderr.write(`${printable(line)}\n`);
    }
    return 0;
  } finally {
    await connection.close();
  }
}

/** A duration flag in whole seconds (pg-boss counts in seconds), at least 1 unless zero is allowed. */
export function seconds(text: string, flag: string, allowZero: boolean): number {
  const s = Math.round(parseDuration(text, flag, { allowZero }) / 1000);
  return allowZero ? s : Math.max(1, s);
}
