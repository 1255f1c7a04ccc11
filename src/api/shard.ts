import { ConfigError } from "../errors.js";

/** Shard `index` (1-based) of `count`. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Parses "i/n" (1-based), or throws ConfigError. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const [index, count] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!match || count < 1 || index < 1 || index > count) {
    throw new ConfigError(`--shard "${text}" is not a shard: expected i/n with 1 <= i <= n, e.g. 1/4`);
  }
  return { index, count };
}

/**
 * The partitions of a shard: every n-th partition of the whole window in dispatch order, so
 * each shard starts on recent data and shares are balanced. Assignment depends only on the
 * window and the order, never on what is missing, so shards that evaluate `--missing` at
 * different times still never overlap nor leave a partition to nobody.
 */
export function shardOf<T>(partitions: readonly T[], shard: Shard | undefined): T[] {
  return shard ? partitions.filter((_, i) => i % shard.count === shard.index - 1) : [...partitions];
}
