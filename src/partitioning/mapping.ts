import { PartitionError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import type { PartitionConfig } from "./base.js";
import { type PartitionWindow } from "./base.js";
import { ListPartitionConfig } from "./list.js";
import { MultiPartitionConfig } from "./multi.js";
import { MultiPartitionWindow } from "./multi-window.js";
import { multiEdgeProblem, multiUpstreamWindow } from "./multi-mapping.js";
import { TimePartitionConfig, TimePartitionWindow } from "./time.js";
import type { TimeGranularity } from "./granularity.js";

// Which upstream partitions a downstream run reads. Pure: windows in, windows out, UTC fields only.

/** Options of a `TimeWindowMapping`. */
export interface TimeWindowMappingOptions {
  /** Downstream periods to shift by before mapping: -1 reads the previous period's upstream data. */
  readonly offset?: number;
  /**
   * A rolling window: the covered upstream periods extended back by `trailing - 1`, so a
   * partition of the upstream's granularity reads exactly `trailing` periods ending with its own.
   */
  readonly trailing?: number;
}

/**
 * Maps a downstream time window onto the upstream time window it reads. The default (no
 * options) reads the upstream periods that cover the downstream's: a month its days, a day
 * its month, a week the months it overlaps.
 */
export class TimeWindowMapping {
  readonly offset: number;
  readonly trailing: number | null;

  constructor(options: TimeWindowMappingOptions = {}) {
    const { offset = 0, trailing = null } = options ?? {};
    if (!Number.isInteger(offset)) throw new PartitionError(`offset: expected an integer number of periods, got ${describeValue(offset)}`);
    if (trailing !== null && (!Number.isInteger(trailing) || trailing < 1)) {
      throw new PartitionError(`trailing: expected an integer of at least 1, got ${describeValue(trailing)}`);
    }
    this.offset = offset;
    this.trailing = trailing;
    Object.freeze(this);
  }

  /**
   * The upstream window a downstream window reads: each downstream period, shifted by
   * `offset`, covered by upstream periods, then extended back by `trailing - 1` of them; the
   * union over the window is contiguous, so it is returned whole. Clamped to the upstream's
   * start; PartitionError when nothing of the upstream exists that early.
   */
  map(window: TimePartitionWindow, upstream: TimePartitionConfig): TimePartitionWindow {
    const down = window.granularity;
    const up = upstream.granularity;
    const first = down.advance(window.start, this.offset);
    const last = down.advance(window.end, this.offset);
    let start = up.truncate(first);
    const end = up.truncate(lastInstantOf(last, down));
    if (this.trailing !== null) start = up.advance(start, -(this.trailing - 1));
    if (upstream.start && start < upstream.start) {
      if (end < upstream.start) {
        throw new PartitionError(
          `${this.describe()} of ${String(window)}: ${String(new TimePartitionWindow(start, end, up))}, before the upstream's first partition ${up.format(upstream.start)}`,
        );
      }
      start = upstream.start;
    }
    return new TimePartitionWindow(start, end, up);
  }

  /** How the mapping reads, for messages and `list`. */
  describe(): string {
    const parts: string[] = [];
    if (this.offset === -1) parts.push("the previous period");
    else if (this.offset !== 0) parts.push(`the period ${Math.abs(this.offset)} ${this.offset < 0 ? "before" : "after"}`);
    if (this.trailing !== null) parts.push(`the trailing ${this.trailing} periods`);
    return parts.length === 0 ? "the covering periods" : parts.join(", ");
  }

  toString(): string {
    return this.describe();
  }
}

/** The last instant of the period starting at `start`. */
function lastInstantOf(start: Date, granularity: TimeGranularity): Date {
  return new Date(granularity.advance(start, 1).getTime() - 1);
}

/**
 * A rolling window: the `periods` upstream periods ending with the partition's own (for a
 * coarser downstream, the periods it covers and the `periods - 1` before them).
 */
export function trailing(periods: number): TimeWindowMapping {
  return new TimeWindowMapping({ trailing: periods });
}

/** A dependency on the upstream data of the previous period (the previous day, month, ...). */
export function previousPeriod(): TimeWindowMapping {
  return new TimeWindowMapping({ offset: -1 });
}

/** One end of a dependency edge, as messages name it. */
export interface EdgeEnd {
  readonly key: string;
  readonly partitioning: PartitionConfig | null;
}

/**
 * Why an edge cannot be read, or null when it can: a sentence naming both assets and what to
 * do. The downstream reads the upstream through `mapping` (null: the default).
 */
export function edgeProblem(upstream: EdgeEnd, downstream: EdgeEnd, mapping: TimeWindowMapping | null): string | null {
  const up = upstream.partitioning;
  const down = downstream.partitioning;
  const edge = `asset "${downstream.key}" (${describeConfig(down)}) requires "${upstream.key}" (${describeConfig(up)})`;
  if (up instanceof MultiPartitionConfig || down instanceof MultiPartitionConfig)
    return multiEdgeProblem(edge, upstream.key, downstream.key, up, down, mapping);
  if (mapping && !(up instanceof TimePartitionConfig && down instanceof TimePartitionConfig)) {
    return `${edge} with a time mapping (${mapping.describe()}): it applies only when both are partitioned by time; remove it`;
  }
  if (!up) return null;
  if (up instanceof TimePartitionConfig) {
    if (down instanceof TimePartitionConfig) return null;
    if (!down) return `${edge}: an unpartitioned asset cannot choose which periods to read; partition "${downstream.key}" by time too`;
    return `${edge}: time and list partitions do not map onto each other; partition "${downstream.key}" by time, or require "${upstream.key}" from a time-partitioned asset`;
  }
  if (!down)
    return up instanceof ListPartitionConfig
      ? null
      : `${edge}: an unpartitioned asset cannot read every partition of this kind; partition "${downstream.key}" the same way`;
  if (down instanceof TimePartitionConfig) {
    return `${edge}: time and list partitions do not map onto each other; require "${upstream.key}" from an unpartitioned asset (which reads all its values), or partition "${downstream.key}" by the same list`;
  }
  if (!down.compatible(up)) return `${edge}: both must be partitioned the same way (the same values in the same order)`;
  return null;
}

/**
 * The upstream window a downstream run reads, or null for the whole upstream (an unpartitioned
 * upstream). The edge must have no `edgeProblem`.
 */
export function upstreamWindow(
  upstream: PartitionConfig | null,
  window: PartitionWindow | null,
  mapping: TimeWindowMapping | null,
): PartitionWindow | null {
  if (!upstream) return null;
  if (upstream instanceof MultiPartitionConfig || window instanceof MultiPartitionWindow)
    return multiUpstreamWindow(upstream, window, mapping ?? DEFAULT);
  if (upstream instanceof TimePartitionConfig && window instanceof TimePartitionWindow) return (mapping ?? DEFAULT).map(window, upstream);
  if (!window && upstream instanceof ListPartitionConfig) return upstream.all();
  return window;
}

const DEFAULT = new TimeWindowMapping();

function describeConfig(config: PartitionConfig | null): string {
  if (!config) return "unpartitioned";
  if (config instanceof TimePartitionConfig) return `by ${config.granularity.name}`;
  if (config instanceof ListPartitionConfig) return `by list ${config.values.join(",")}`;
  if (config instanceof MultiPartitionConfig) return `by ${config.describe()}`;
  return `by ${config.kind}`;
}

/**
 * The periods of `config` lying wholly inside `range` (by calendar fields, as keys read),
 * from the config's start on: a monthly asset gets the months a range of days covers
 * completely, an hourly one the hours of those days. Null when no whole period fits.
 */
export function periodsWithin(range: TimePartitionWindow, config: TimePartitionConfig): TimePartitionWindow | null {
  const g = config.granularity;
  const rangeEnd = range.granularity.advance(range.end, 1);
  let first = g.truncate(range.start);
  if (first < range.start) first = g.advance(first, 1);
  if (config.start && first < config.start) first = config.start;
  const last = g.advance(g.truncate(rangeEnd), -1);
  return last < first ? null : new TimePartitionWindow(first, last, g);
}

/** The smallest window of `granularity` holding every window given; null for none. */
export function spanning(windows: readonly TimePartitionWindow[], granularity: TimeGranularity): TimePartitionWindow | null {
  if (windows.length === 0) return null;
  const start = Math.min(...windows.map((w) => w.start.getTime()));
  const end = Math.max(...windows.map((w) => w.granularity.advance(w.end, 1).getTime()));
  return new TimePartitionWindow(granularity.truncate(new Date(start)), granularity.truncate(new Date(end - 1)), granularity);
}
