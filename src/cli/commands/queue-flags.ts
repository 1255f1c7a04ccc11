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

/**
 * `--queue URL` as a printed hint puts it, runnable as printed: the URL without its password
 * (which would end up in terminals and logs; PGPASSWORD gives it to the driver instead), quoted
 * for a POSIX shell when it needs to be. The note says when the password was left out.
 */
export function queueArgument(url: string): { readonly argument: string; readonly note: string } {
  let shown = url;
  let note = "";
  try {
    const parsed = new URL(url);
    const query = [...parsed.searchParams.keys()].find((k) => /^(password|passwd|pwd)$/i.test(k));
    if (parsed.password || query) {
      parsed.password = "";
      if (query) parsed.searchParams.delete(query);
      shown = parsed.toString();
      note = " (the queue's password is left out: give it in PGPASSWORD)";
    }
  } catch {
    // Not a URL: the command that opened it already refused it.
  }
  return { argument: `--queue ${shellWord(shown)}`, note };
}

/** A hint's config flag: `-c FILE` when the command was given one, else nothing. */
export function configArgument(config: string | undefined): string {
  return config ? ` -c ${shellWord(config)}` : "";
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
