import { ConfigError } from "../../errors.js";

/** The flag that names the queue, shared by materialize, worker and backfills. */
export interface QueueFlags {
  readonly queue?: string;
}

/** The queue URL: --queue, else INTERLOPER_QUEUE_URL, else undefined. */
export function queueUrl(flags: QueueFlags, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return flags.queue ?? (env["INTERLOPER_QUEUE_URL"] || undefined);
}

/** The queue URL a command cannot do without. */
export function requireQueueUrl(flags: QueueFlags, command: string, env: NodeJS.ProcessEnv = process.env): string {
  const url = queueUrl(flags, env);
  if (!url) throw new ConfigError(`${command} needs --queue postgres://user:password@host:5432/database (or INTERLOPER_QUEUE_URL)`);
  return url;
}
