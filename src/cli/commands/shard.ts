import { parseShard, type Shard } from "../../api/session/index.js";
import { ConfigError } from "../../errors.js";
import { MAX_TIMER_MS } from "../../runner/limits.js";

/** The flags that pick a shard of a backfill. */
export interface ShardFlags {
  readonly shard?: string;
  readonly shardIndexEnv?: string;
  readonly shardCount?: number;
}

/**
 * The shard a worker runs: `--shard i/n` (1-based), or `--shard-index-env VAR --shard-count n`
 * where VAR holds a 0-based index, as Kubernetes (JOB_COMPLETION_INDEX) and AWS Batch
 * (AWS_BATCH_JOB_ARRAY_INDEX) number their workers; 1 is added to it.
 */
export function shardFromFlags(flags: ShardFlags, env: NodeJS.ProcessEnv = process.env): Shard | undefined {
  if (flags.shard !== undefined) {
    if (flags.shardIndexEnv !== undefined || flags.shardCount !== undefined)
      throw new ConfigError("--shard cannot be combined with --shard-index-env or --shard-count");
    return parseShard(flags.shard);
  }
  if (flags.shardIndexEnv === undefined) {
    if (flags.shardCount !== undefined) throw new ConfigError("--shard-count only applies with --shard-index-env");
    return undefined;
  }
  if (flags.shardCount === undefined) throw new ConfigError("--shard-index-env needs --shard-count <n>");
  const raw = env[flags.shardIndexEnv];
  if (raw === undefined || !/^\d+$/.test(raw.trim())) {
    throw new ConfigError(
      `--shard-index-env ${flags.shardIndexEnv}: expected the variable to hold a 0-based worker index, got ${raw === undefined ? "nothing (it is not set)" : `"${raw}"`}`,
    );
  }
  return parseShard(`${Number(raw) + 1}/${flags.shardCount}`);
}

/** "30s", "5m", "1h", "250ms", or a number of seconds, in milliseconds; `flag` names it in errors. */
export function parseDuration(text: string, flag = "--timeout", options: { allowZero?: boolean } = {}): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  const unit = match ? { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"] : 0;
  const ms = match ? Math.round(Number(match[1]) * unit) : NaN;
  const least = options.allowZero ? 0 : 1;
  if (!(ms >= least && ms <= MAX_TIMER_MS)) {
    throw new ConfigError(
      `${flag} "${text}" is not a duration${options.allowZero ? "" : " above 0"} of at most 24 days: expected e.g. 90s, 5m, 1h or 250ms`,
    );
  }
  return ms;
}
