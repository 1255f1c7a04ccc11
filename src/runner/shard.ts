/** Shard `index` (1-based) of `count`: one worker's share of a backfill split across machines. */
export interface Shard {
  readonly index: number;
  readonly count: number;
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

/** Whether a shard runs the unpartitioned assets: they run once, in the first shard. */
export function runsUnpartitioned(shard: Shard | undefined): boolean {
  return (shard?.index ?? 1) === 1;
}
