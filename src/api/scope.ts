import type { Asset } from "../asset/asset.js";
import { ConfigError, PartitionError } from "../errors.js";
import { calendarDateIn } from "../partitioning/dates.js";
import { checkValues, multiOverTime, multiScope, valuesFor } from "./multi-scope.js";
import {
  ListPartitionConfig,
  MultiPartitionConfig,
  timeConfigOf,
  type MultiValues,
  TimeGranularity,
  TimePartitionConfig,
  TimePartitionWindow,
  TimeWindowMapping,
  type PartitionWindow,
} from "../partitioning/index.js";

/** How a command names the partitions it works on. */
export interface ScopeOptions {
  /** One partition key (any time key shape, or a list value). */
  readonly partition?: string;
  /** `start..end`, both inclusive; a single key is a window of one. */
  readonly window?: string;
  /**
   * The trailing window of this many partitions, ending with the last complete period: the
   * period in progress is left to finish, as coverage leaves it (see `includeCurrent`).
   */
  readonly lookback?: number;
  /** Periods back from the current one the lookback ends (default 1: the last complete one). */
  readonly offset?: number;
  /** With `lookback`: count the period in progress too (an offset of 0). */
  readonly includeCurrent?: boolean;
  /** IANA zone for lookback's calendar. */
  readonly tz?: string;
  /** The instant lookback counts back from (default: now). */
  readonly now?: Date;
  /**
   * Narrows the list dimensions of multi-partitioned assets: `{ region: ["eu", "us"] }` runs (or
   * reads) only those values of a window; a dimension not named keeps all its values.
   */
  readonly values?: MultiValues;
}

/**
 * The window the options name for the selected assets, or null when they name none. Keys are
 * read by the partitioning of the selected partitioned assets.
 */
export function resolveScope(assets: readonly Asset[], options: ScopeOptions): PartitionWindow | null {
  const given = (["partition", "window", "lookback"] as const).filter((name) => options[name] !== undefined);
  if (given.length > 1)
    throw new ConfigError((o) => `${o(given[0]!)} and ${o(given[1]!)} cannot be used together: name the partitions one way`);
  if (options.tz !== undefined) calendarDateIn(new Date(0), options.tz);
  if ((options.offset !== undefined || options.tz !== undefined) && options.lookback === undefined) {
    throw new ConfigError((o) => `${o(options.offset !== undefined ? "offset" : "tz")} only applies with ${o("lookback")}`);
  }
  checkValues(assets, options.values);
  if (given.length === 0) return null;
  const partitioned = assets.filter((a) => a.partitioning);
  if (partitioned.length === 0) {
    const names = assets.map((a) => a.qualifiedKey).join(", ");
    throw new ConfigError(
      (o) => `${o(given[0]!)} was given, but ${names || "the selection"} ${assets.length === 1 ? "is" : "are"} not partitioned`,
    );
  }
  // A project may mix time and list partitionings: the text says which it names.
  const timed =
    partitioned.find((a) => a.partitioning instanceof TimePartitionConfig) ?? partitioned.find((a) => timeConfigOf(a.partitioning));
  if (options.lookback !== undefined) return lookbackWindow(timed ?? partitioned[0]!, options);
  // Not a range end here: `includeCurrent` is a lookback's only (a command gives it other meanings, and checks them).
  // Not trimmed: a list value may hold spaces (" ", "x "); time keys are trimmed where they are parsed.
  const text = (options.partition ?? options.window)!;
  if (options.partition !== undefined && text.includes(".."))
    throw new ConfigError((o) => `${o("partition")} takes one key, got "${text}"; use ${o("window")} for a range`);
  const multi = partitioned.find((a) => a.partitioning instanceof MultiPartitionConfig)?.partitioning as MultiPartitionConfig | undefined;
  const own = multi ? multiScope(multi, text, options.partition !== undefined, options.values) : null;
  if (own) return own;
  const listed = partitioned.find((a) => a.partitioning instanceof ListPartitionConfig)?.partitioning as ListPartitionConfig | undefined;
  if (listed && (!timed || !namesTime(text))) {
    const [first, last = first] = text.split("..") as [string, string?];
    return listed.window(first, last);
  }
  return TimePartitionWindow.parse(text);
}

/**
 * Whether a window's text is made of time keys: each end has a time key's shape. A window of
 * such keys that cannot be read (reversed, an impossible date) is still one of time, so that its
 * error says what is wrong with it rather than that it is no list value.
 */
function namesTime(text: string): boolean {
  const parts = text.replace("...", "..").split("..");
  if (parts.length > 2) return false;
  return parts.every((part) => {
    try {
      TimeGranularity.fromKey(part.trim());
      return true;
    } catch {
      return false;
    }
  });
}

function lookbackWindow(asset: Asset, options: ScopeOptions): PartitionWindow {
  if (options.includeCurrent && options.offset !== undefined)
    throw new ConfigError(
      (o) => `${o("includeCurrent")} and ${o("offset")} cannot be used together: ${o("offset")} already says where the lookback ends`,
    );
  // A multi asset counts back in its time dimension's periods (every value of each).
  const config = timeConfigOf(asset.partitioning);
  if (!config)
    throw new ConfigError(
      (o) =>
        `${o("lookback")} needs a time-partitioned asset; "${asset.qualifiedKey}" is partitioned by ${asset.partitioning instanceof MultiPartitionConfig ? "lists only" : "a list"}`,
    );
  const window = TimePartitionWindow.lookback({
    now: options.now ?? new Date(),
    lookback: options.lookback!,
    offset: options.offset ?? (options.includeCurrent ? 0 : 1),
    granularity: config.granularity,
    start: config.start,
    timeZone: options.tz ?? "UTC",
  });
  if (!window)
    throw new PartitionError(
      (o) => `${o("lookback")} ${options.lookback} leaves no partition on or after the start of "${asset.qualifiedKey}"`,
    );
  return window;
}

/**
 * The window a command's window text names for one asset of a project: a range of time gives
 * a time-partitioned asset the periods of its own granularity that cover it (a month for some
 * of its days), and a list-partitioned asset all its values (null); otherwise as
 * `resolveScope` reads it. A multi-partitioned asset gets its periods covering the range crossed
 * with its values (`values` narrows them), and no window (null) without a time dimension.
 */
export function assetWindow(asset: Asset, text: string, values?: MultiValues): PartitionWindow | null {
  const config = asset.partitioning;
  if (config && namesTime(text)) {
    if (config instanceof ListPartitionConfig) return null;
    if (config instanceof TimePartitionConfig) {
      const range = TimePartitionWindow.parse(text);
      return range.granularity === config.granularity ? range : new TimeWindowMapping().map(range, config);
    }
    if (config instanceof MultiPartitionConfig) return multiOverTime(config, TimePartitionWindow.parse(text), values);
  }
  // Only its own share of `values`: the others name dimensions of other assets.
  const own = config instanceof MultiPartitionConfig && values ? valuesFor(config, values) : undefined;
  return resolveScope([asset], { window: text, ...(own ? { values: own } : {}) });
}
