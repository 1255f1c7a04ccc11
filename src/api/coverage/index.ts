import type { Asset } from "../../asset/asset.js";
import { ConfigError } from "../../errors.js";
import type { Project } from "../project.js";
import { partitioned, selectAssets, type Selection } from "../select.js";
import { resolveScope } from "../scope.js";
import { computeCoverage, type Coverage } from "./compute.js";

export { computeCoverage, expectedKeys, SUSPICIOUS_MIN_PARTITIONS, SUSPICIOUS_RATIO, type Coverage, type CoverageScope, type PartitionCoverage, type PartitionStatus } from "./compute.js";

/** Options of `coverage`. */
export interface CoverageOptions {
  /** Narrows the expected partitions: "start..end" or one key. */
  readonly window?: string;
  readonly now?: Date;
}

/** Coverage of one asset, from its first destination's row counts. */
export async function assetCoverage(asset: Asset, options: CoverageOptions = {}): Promise<Coverage> {
  if (!asset.partitioning) throw new ConfigError(`asset "${asset.qualifiedKey}" is not partitioned: coverage needs a partitioned asset`);
  const window = options.window !== undefined ? resolveScope([asset], { window: options.window }) : null;
  const counts = await asset.partitionRowCounts();
  return computeCoverage(asset, counts, { window, ...(options.now ? { now: options.now } : {}) });
}

/**
 * Coverage of the partitioned assets a selection names (one selector as a string, e.g. an asset
 * key), or of every partitioned asset when none is given; upstream first.
 */
export async function coverage(project: Project, selection?: string | Pick<Selection, "select" | "exclude">, options: CoverageOptions = {}): Promise<Coverage[]> {
  const { select = [], exclude = [] } = typeof selection === "string" ? { select: [selection] } : (selection ?? {});
  const assets = selectAssets(project.dag, { select, exclude, keep: partitioned("coverage") });
  return Promise.all(assets.map((asset) => assetCoverage(asset, options)));
}
