// The expected range of an asset's partitions: where a time partitioning starts and ends (its
// start, its upstreams' or its first stored partition; now, --until, the window) and which keys
// coverage expects in it.
import type { Asset } from "../../asset/asset.js";
import { ConfigError } from "../../errors.js";
import { currentPeriod } from "../../partitioning/current-period.js";
import { ListPartitionConfig, TimeGranularity, TimePartitionConfig } from "../../partitioning/index.js";
import type { CoverageScope } from "./compute.js";

/** Where the expected range of a time partitioning ends, and the period under way. */
export interface Horizon {
  readonly last: Date;
  readonly current: Date;
}

export function horizonOf(asset: Asset, config: TimePartitionConfig, scope: CoverageScope): Horizon {
  const g = config.granularity;
  const current = currentPeriod(g, scope.now ?? new Date(), scope.timeZone ?? "UTC");
  if (scope.window) {
    const flag = scope.until !== undefined ? "--until" : scope.includeCurrent ? "--include-current" : null;
    if (flag)
      throw new ConfigError(`${flag} cannot be used with a window (--partition or --window): the window already says which partitions`);
    return { last: current, current };
  }
  if (scope.until !== undefined && scope.includeCurrent)
    throw new ConfigError("--until and --include-current cannot be used together: --until already ends the range");
  if (scope.until !== undefined) {
    const until = untilOf(asset, g, scope.until);
    return { last: until > current ? current : until, current };
  }
  return { last: scope.includeCurrent ? current : g.advance(current, -1), current };
}

/**
 * The last period of `g` an `--until` key ends the range with: the key itself when it is one of
 * `g`; for a key of another granularity (a project mixing hours, days and months takes one
 * `--until`), the last period of `g` that ends by the end of the key's period.
 */
function untilOf(asset: Asset, g: TimeGranularity, key: string): Date {
  if (isKeyOf(g, key)) return g.parse(key);
  const own = typeof key === "string" ? TimeGranularity.all.find((k) => isKeyOf(k, key)) : undefined;
  if (!own) {
    const example = g.format(new Date(Date.UTC(2026, 4, 20, 13)));
    throw new ConfigError(
      `--until ${JSON.stringify(key)}: expected a time key (a day such as 2026-05-20, an hour such as 2026-05-20T13, a month...); asset "${asset.qualifiedKey}" is partitioned by ${g.name} (${example})`,
    );
  }
  const end = own.advance(own.parse(key), 1);
  return g.advance(g.truncate(end), -1);
}

/** The expected partition keys of an asset, in order. */
export function expectedKeys(asset: Asset, counts: Readonly<Record<string, number>>, scope: CoverageScope): string[] {
  const config = asset.partitioning;
  if (config instanceof ListPartitionConfig) {
    return scope.window ? scope.window.keys : [...config.values];
  }
  if (!(config instanceof TimePartitionConfig))
    throw new ConfigError(`asset "${asset.qualifiedKey}" is not partitioned: it has no coverage`);
  return timeExpected(config, Object.keys(counts), scope, horizonOf(asset, config, scope));
}

export function timeExpected(config: TimePartitionConfig, stored: Iterable<string>, scope: CoverageScope, horizon: Horizon): string[] {
  const g = config.granularity;
  if (scope.window) {
    // A window narrows the expected range, never widens it: nothing before start, nothing after now.
    const begins = config.start ?? scope.start ?? null;
    const floor = begins ? g.format(begins) : null;
    const ceiling = g.format(horizon.last);
    return scope.window.keys.filter((k) => (!floor || k >= floor) && k <= ceiling);
  }
  let first = config.start ?? scope.start ?? null;
  if (!first) {
    const found = [...stored].filter((k) => isKeyOf(g, k)).sort();
    if (found.length === 0) return [];
    first = g.parse(found[0]!);
  }
  if (first > horizon.last) return [];
  const keys: string[] = [];
  for (const start of g.periodRange(first, horizon.last)) keys.push(g.format(start));
  return keys;
}

function isKeyOf(g: TimeGranularity, key: string): boolean {
  try {
    g.parse(key);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stored keys that are neither expected nor unexpected: everything outside a window, and the
 * periods after the end of the range up to the current one (data of those may exist).
 */
export function outOfScope(
  config: TimePartitionConfig | ListPartitionConfig,
  scope: CoverageScope,
  horizon: Horizon | null,
): (key: string) => boolean {
  if (scope.window) return () => true;
  if (!horizon || !(config instanceof TimePartitionConfig)) return () => false;
  const g = config.granularity;
  const [after, upTo] = [g.format(horizon.last), g.format(horizon.current)];
  return (key) => key > after && key <= upTo && isKeyOf(g, key);
}
