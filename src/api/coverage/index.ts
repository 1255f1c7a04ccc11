import type { Asset } from "../../asset/asset.js";
import type { AssetGraph } from "../../asset/dependencies.js";
import { effectiveStart } from "../../asset/effective-start.js";
import { ConfigError } from "../../errors.js";
import { MultiPartitionConfig, timeConfigOf, type MultiValues } from "../../partitioning/index.js";
import type { Project } from "../project.js";
import { partitioned, selectAssets, type Selection } from "../select.js";
import { assetWindow } from "../scope.js";
import { checkValues, valuesFor as valuesOf } from "../multi-scope.js";
import { coverageByCombination } from "./combinations.js";
import { computeCoverage, type Coverage } from "./compute.js";
import { destinationCounts, type DestinationCounts } from "./destinations.js";
import { graphStaleness, markStale } from "./stale.js";
import { RecordCache } from "../../asset/staleness.js";
import { canWarn, failedWarnings, markWarnings } from "./warnings.js";

export {
  computeCoverage,
  expectedKeys,
  SUSPICIOUS_MIN_PARTITIONS,
  SUSPICIOUS_RATIO,
  type Coverage,
  type CoverageScope,
  type PartitionCoverage,
  type PartitionStatus,
} from "./compute.js";
export { destinationCounts, type DestinationCounts, type DestinationCoverage } from "./destinations.js";
export type { CoverageDimension } from "./multi.js";
export { multiKeyOf, type CoverageCombination } from "./combinations.js";

/** Options of `coverage`. */
export interface CoverageOptions {
  /** Narrows the expected partitions: "start..end" or one key. */
  readonly window?: string;
  /** The current instant (default: the clock). */
  readonly now?: Date;
  /** Without a window: the expected range of a time partitioning ends at this key, inclusive. */
  readonly until?: string;
  /** Without a window: the expected range ends with the current period, not the one before it. */
  readonly includeCurrent?: boolean;
  /** IANA zone whose calendar decides the current day, week, month...; default "UTC". */
  readonly timeZone?: string;
  /** Of multi-partitioned assets: only these values of their list dimensions, by name (`{ region: ["eu"] }`). */
  readonly values?: MultiValues;
  /**
   * A multi-partitioned asset with a time dimension comes as one time coverage per combination
   * of its list values (`shop.stock[eu]`, each with `combination`), as pictures draw it; by
   * default it comes whole, each partition with its `keys`.
   */
  readonly byCombination?: boolean;
}

/**
 * Coverage of one asset, from the row counts of every destination (one count each, in
 * parallel): a partition any of them lacks is missing. Given the asset's graph, an asset with
 * no `start` is expected from its upstreams' first period (see effectiveStart).
 */
export async function assetCoverage(
  asset: Asset,
  options: CoverageOptions = {},
  graph?: AssetGraph,
  records: RecordCache = new RecordCache(),
): Promise<Coverage> {
  if (!asset.partitioning) throw new ConfigError(`asset "${asset.qualifiedKey}" is not partitioned: coverage needs a partitioned asset`);
  return coverageFromCounts(asset, await countedFor(asset, records, options), options, graph, records);
}

/**
 * An asset's counts in every destination, only the window's partitions at least when `scope` has
 * one (an object store then lists no more); the records its first destination gave with them kept
 * in `records`, as the window's or as all of them. An asset whose records another asset of the
 * coverage reads (its upstream) is counted whole, its records coming with the counts: narrowed,
 * they would be read again beyond the window, each object's twice.
 */
async function countedFor(
  asset: Asset,
  records: RecordCache,
  scope: Pick<CoverageOptions, "window" | "values">,
): Promise<DestinationCounts[]> {
  const window = scope.window !== undefined ? assetWindow(asset, scope.window, scope.values) : null;
  const counts = await destinationCounts(asset, window);
  const given = counts[0]?.records;
  if (given && window) records.seedWindow(asset, window, given);
  else if (given) records.seed(asset, given);
  return counts;
}

/** Coverage from counts, the stale partitions marked when the graph is given. */
async function coverageFromCounts(
  asset: Asset,
  counts: DestinationCounts[],
  options: CoverageOptions,
  graph: AssetGraph | undefined,
  records: RecordCache,
): Promise<Coverage> {
  const window = options.window !== undefined ? assetWindow(asset, options.window, options.values) : null;
  const stale = graph ? await graphStaleness(asset, graph, window, records) : null;
  const { window: _w, values, byCombination: _b, ...rest } = options;
  // With its graph, an asset that declares no start is expected from its upstreams' first period.
  const start = graph ? (effectiveStart(graph, asset)?.start ?? null) : null;
  const computed = computeCoverage(asset, counts, { window, ...rest, start, ...(values ? { values: valuesFor(asset, values) } : {}) });
  const marked = stale ? markStale(computed, stale) : computed;
  return canWarn(asset) ? markWarnings(marked, await failedWarnings(asset, records, window)) : marked;
}

/**
 * Coverage of the partitioned assets a selection names (one selector as a string, e.g. an asset
 * key), or of every partitioned asset when none is given; upstream first.
 */
export async function coverage(
  project: Project,
  selection?: string | Pick<Selection, "select" | "exclude">,
  options: CoverageOptions = {},
): Promise<Coverage[]> {
  const { select = [], exclude = [] } = typeof selection === "string" ? { select: [selection] } : (selection ?? {});
  const assets = selectAssets(project.dag, { select, exclude, keep: partitioned("coverage") });
  checkRangeEnd(assets, options);
  checkValues(assets, options.values);
  // Every asset is counted first, its records kept when counting gives them, so that marking the
  // stale partitions reads again only what counting did not give (an upstream not selected, a
  // destination without them); each asset's records are read once, whatever number read them.
  const records = new RecordCache();
  const upstreams = new Set(
    assets.flatMap((asset) => project.dag.dependencies(asset).flatMap((d) => (d.asset ? [d.asset.qualifiedKey] : []))),
  );
  const counts = await Promise.all(assets.map((asset) => countedFor(asset, records, upstreams.has(asset.qualifiedKey) ? {} : options)));
  const results = await Promise.all(assets.map((asset, i) => coverageFromCounts(asset, counts[i]!, options, project.dag, records)));
  if (!options.byCombination) return results;
  const inProgress = options.window === undefined && options.until === undefined && !options.includeCurrent;
  return results.flatMap((c, i) => coverageByCombination(c, counts[i]!, { inProgress }));
}

/** `until` and `includeCurrent` end a range of time: refused when no asset has one. */
export function checkRangeEnd(assets: readonly Asset[], options: Pick<CoverageOptions, "until" | "includeCurrent">): void {
  const flag = options.until !== undefined ? "--until" : options.includeCurrent ? "--include-current" : null;
  if (!flag || assets.length === 0 || assets.some((a) => timeConfigOf(a.partitioning))) return;
  const names = assets.map((a) => `"${a.qualifiedKey}"`).join(", ");
  throw new ConfigError(
    `${flag} applies to time-partitioned assets; ${names} ${assets.length === 1 ? "is" : "are"} ${assets.every((a) => a.partitioning) ? "partitioned by a list" : "not partitioned by time"}`,
  );
}

/** The values of `values` that name list dimensions of a multi-partitioned asset (none for the other kinds). */
function valuesFor(asset: Asset, values: MultiValues): MultiValues {
  return asset.partitioning instanceof MultiPartitionConfig ? valuesOf(asset.partitioning, values) : {};
}
