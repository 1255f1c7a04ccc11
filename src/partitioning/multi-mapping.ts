import type { PartitionConfig, PartitionWindow } from "./base.js";
import { ListPartitionConfig } from "./list.js";
import type { TimeWindowMapping } from "./mapping.js";
import { MultiPartitionConfig, type ListDimension } from "./multi.js";
import { MultiPartitionWindow } from "./multi-window.js";
import { TimePartitionConfig, TimePartitionWindow } from "./time.js";

// The edges with a multi partitioning at one end. A multi partition is a period crossed with
// list values: the time part maps as time edges do (through the mapping), and each value reads
// its own value, so every accepted edge is one of time, one of lists, or both side by side.

/** The time partitioning of a config: itself, or a multi partitioning's time dimension; null for none. */
export function timeConfigOf(config: PartitionConfig | null): TimePartitionConfig | null {
  if (config instanceof TimePartitionConfig) return config;
  if (config instanceof MultiPartitionConfig) return config.timeDimension?.config ?? null;
  return null;
}

/**
 * The list dimension of a multi partitioning that a list upstream feeds: the one with the same
 * values (in the same order), or among several such, the one on the upstream's column; null
 * when there is none or the choice is ambiguous.
 */
export function listDimensionFor(down: MultiPartitionConfig, up: ListPartitionConfig): ListDimension | null {
  const same = down.listDimensions.filter((d) => d.config.compatible(up));
  if (same.length <= 1) return same[0] ?? null;
  return same.find((d) => d.column === up.column) ?? null;
}

/**
 * Why an edge with a multi partitioning at one end cannot be read, or null when it can; the
 * sentence starts with `edge` (naming both assets). Not called for edges without one.
 */
export function multiEdgeProblem(
  edge: string,
  upKey: string,
  downKey: string,
  up: PartitionConfig | null,
  down: PartitionConfig | null,
  mapping: TimeWindowMapping | null,
): string | null {
  const upTime = timeConfigOf(up);
  const downTime = timeConfigOf(down);
  const timeless = (key: string) => `"${key}" has no time dimension`;
  if (mapping && !(upTime && downTime)) {
    return `${edge} with a time mapping (${mapping.describe()}): it applies only when both have a time dimension; remove it`;
  }
  if (up instanceof MultiPartitionConfig) {
    if (!down)
      return upTime
        ? `${edge}: an unpartitioned asset cannot choose which periods to read; partition "${downKey}" by time, or by the same dimensions`
        : null;
    if (down instanceof ListPartitionConfig || (down instanceof MultiPartitionConfig && !up.sameLists(down))) {
      return `${edge}: a multi partition reads only its own values of the same list dimensions (${describeLists(up)}); partition "${downKey}" by the same lists (with or without time), or by time alone to read every value of a period`;
    }
    if (down instanceof TimePartitionConfig && !upTime)
      return `${edge}: ${timeless(upKey)}, so a period cannot choose what to read; require it from an unpartitioned asset or one partitioned by the same lists`;
    if (down instanceof MultiPartitionConfig && upTime && !downTime)
      return `${edge}: ${timeless(downKey)}, so it cannot choose which periods to read; give "${downKey}" the time dimension too`;
    if (!(down instanceof TimePartitionConfig) && !(down instanceof MultiPartitionConfig))
      return `${edge}: a multi partitioning maps only onto time or multi partitionings`;
    return null;
  }
  // The downstream is multi.
  const multi = down as MultiPartitionConfig;
  if (up instanceof TimePartitionConfig && !downTime)
    return `${edge}: ${timeless(downKey)}, so it cannot choose which periods to read; give "${downKey}" a time dimension`;
  if (up instanceof ListPartitionConfig && !listDimensionFor(multi, up)) {
    return `${edge}: a list upstream needs one list dimension of "${downKey}" with the same values (${up.values.join(", ")}) to read its own value from; ${describeLists(multi)} has ${multi.listDimensions.some((d) => d.config.compatible(up)) ? "several: name one by the upstream's column" : "none"}`;
  }
  if (up && !(up instanceof TimePartitionConfig) && !(up instanceof ListPartitionConfig))
    return `${edge}: a multi partitioning reads only time, list, multi or unpartitioned upstreams`;
  return null;
}

function describeLists(config: MultiPartitionConfig): string {
  return config.listDimensions.map((d) => `${d.name}: ${d.config.values.join(", ")}`).join("; ") || "no lists";
}

/**
 * The upstream window a run over `window` reads across an edge with a multi partitioning at one
 * end (no edge problem): the time part through `mapping`, each list its own values.
 */
export function multiUpstreamWindow(
  upstream: PartitionConfig,
  window: PartitionWindow | null,
  mapping: TimeWindowMapping,
): PartitionWindow | null {
  const time = window instanceof TimePartitionWindow ? window : window instanceof MultiPartitionWindow ? window.time : null;
  const upTime = timeConfigOf(upstream);
  const mapped = upTime && time ? mapping.map(time, upTime) : null;
  if (upstream instanceof MultiPartitionConfig) {
    const values = window instanceof MultiPartitionWindow ? window.values : {};
    return upTime ? upstream.over(mapped, values) : upstream.all(values);
  }
  if (upstream instanceof TimePartitionConfig) return mapped;
  if (upstream instanceof ListPartitionConfig && window instanceof MultiPartitionWindow) {
    // A list window is a run of declared values: a run of several values (allowWindow) that
    // skips one reads the span from the first to the last; a run of one reads its own value.
    const values = window.values[listDimensionFor(window.config, upstream)!.name]!;
    return upstream.window(values[0]!, values[values.length - 1]!);
  }
  return window;
}
