import { TimePartitionConfig } from "../../partitioning/index.js";
import type { IOContext } from "../io-context.js";

/** Object names after `startAfter` and before `before` (both excluded), in the order a bucket lists them. */
export interface NameRange {
  readonly startAfter: string;
  readonly before: string;
}

/**
 * The names a time window's partitions take under a table, `{column}={first}/...` to
 * `{column}={last}/...`; null unless the asset has one time partitioning (whose keys sort as they
 * run, as a listing does) and the context a window.
 */
export function windowRange(context: IOContext, tablePrefix: string): NameRange | null {
  const { window } = context;
  const partitioning = context.asset.partitioning;
  if (!(partitioning instanceof TimePartitionConfig) || !window || window.keys.length === 0) return null;
  const folder = `${tablePrefix}${partitioning.column}=`;
  // "0" follows "/": every name in the last partition's folder sorts before it.
  return { startAfter: `${folder}${window.keys[0]!}`, before: `${folder}${window.keys.at(-1)!}0` };
}
