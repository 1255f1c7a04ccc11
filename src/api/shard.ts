import { ConfigError } from "../errors.js";
import type { Shard } from "../runner/shard.js";

export { shardOf, type Shard } from "../runner/shard.js";

/** Parses "i/n" (1-based), or throws ConfigError. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const [index, count] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!match || count < 1 || index < 1 || index > count) {
    throw new ConfigError((o) => `${o("shard")} "${text}" is not a shard: expected i/n with 1 <= i <= n, e.g. 1/4`);
  }
  return { index, count };
}
