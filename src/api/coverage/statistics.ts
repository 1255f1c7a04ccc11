// What coverage sums up over a run of partitions: the spread of their rows, and the runs of keys
// in one state. Shared by the coverage of an asset and of each combination of a multi asset.
import type { Coverage, PartitionCoverage } from "./compute.js";
import type { KeyStatus } from "./destinations.js";
import { combinationOf, type CoverageDimension } from "./multi.js";

/**
 * A materialized partition is suspicious when it holds less than this share of the median
 * count, once there are at least SUSPICIOUS_MIN_PARTITIONS to take a median of: a cheap signal
 * of a partial load (an API that timed out, a file cut short).
 */
export const SUSPICIOUS_RATIO = 0.1;
export const SUSPICIOUS_MIN_PARTITIONS = 5;

/**
 * The spread of the materialized partitions' rows (`counted`, sorted here in place) and those
 * far below its median, once there are enough to take a median of.
 */
export function rowStats(
  counted: number[],
  partitions: readonly PartitionCoverage[],
): Pick<Coverage, "minRows" | "medianRows" | "maxRows" | "suspicious"> {
  counted.sort((a, b) => a - b);
  const median = counted.length
    ? counted.length % 2
      ? counted[(counted.length - 1) / 2]!
      : (counted[counted.length / 2 - 1]! + counted[counted.length / 2]!) / 2
    : null;
  const suspicious =
    median !== null && counted.length >= SUSPICIOUS_MIN_PARTITIONS
      ? partitions.filter((p) => p.status === "materialized" && p.rows! < median * SUSPICIOUS_RATIO)
      : [];
  return { minRows: counted[0] ?? null, medianRows: median, maxRows: counted[counted.length - 1] ?? null, suspicious };
}

/**
 * Consecutive runs of a status, as "first..last" (or the key alone); unexpected keys end the
 * scan. With a multi partitioning's dimensions, a run stays within one combination of values.
 */
export function ranges(statuses: readonly KeyStatus[], status: string, dimensions: readonly CoverageDimension[] | null = null): string[] {
  const out: string[] = [];
  let start: string | null = null;
  let previous: string | null = null;
  for (const { key, status: s } of statuses) {
    if (s === "unexpected") break;
    if (start !== null && dimensions && combinationOf(key, dimensions) !== combinationOf(previous!, dimensions)) {
      out.push(start === previous ? start : `${start}..${previous}`);
      start = null;
    }
    if (s === status) {
      start ??= key;
      previous = key;
    } else if (start !== null) {
      out.push(start === previous ? start : `${start}..${previous}`);
      start = null;
    }
  }
  if (start !== null) out.push(start === previous ? start : `${start}..${previous}`);
  return out;
}
