import {
  ListPartitionConfig,
  MultiPartitionConfig,
  timeConfigOf,
  periodsWithin,
  spanning,
  TimeGranularity,
  TimePartitionConfig,
  TimePartitionWindow,
  type PartitionWindow,
} from "../partitioning/index.js";
import { assetCoverage, checkRangeEnd, type Coverage, type CoverageOptions } from "./coverage/index.js";
import type { Asset } from "../asset/asset.js";
import type { Project } from "./project.js";
import { both, MATERIALIZABLE, partitioned, selectAssets } from "./select.js";
import { resolveScope } from "./scope.js";
import { valuesFor } from "./multi-scope.js";
import type { PlanOptions } from "./plan.js";

/** Options of `missingPlanOptions` (on the command line, `--missing`). */
export interface MissingOptions {
  /** Also re-run partitions that were written with 0 rows. */
  readonly includeEmpty?: boolean;
  /** The current instant (default: the plan options' `now`, else the clock). */
  readonly now?: Date;
  /** With no window: the range ends at this key, inclusive (see CoverageOptions.until). */
  readonly until?: string;
  /** With no window: the range includes the current period, which is otherwise left to finish. */
  readonly includeCurrent?: boolean;
  /** IANA zone whose calendar decides the current period; default "UTC". */
  readonly timeZone?: string;
}

/** The coverage `--missing` reads: of each selected partitioned asset, over its own part of the scope. */
export interface MissingCoverage {
  /** The selected assets, materializable and partitioned. */
  readonly assets: readonly Asset[];
  /** The window given (or made by a lookback), or null for each asset's whole expected range. */
  readonly scoped: PartitionWindow | null;
  /** The assets the scope gives partitions to, and the coverage of each, in the same order. */
  readonly covered: readonly Asset[];
  readonly coverages: readonly Coverage[];
}

/**
 * The coverage of the selected partitioned assets within the given window or else the whole
 * expected range, which ends before the current period unless told otherwise.
 */
export async function missingCoverage(project: Project, options: PlanOptions, missing: MissingOptions = {}): Promise<MissingCoverage> {
  const assets = selectAssets(project.dag, {
    select: options.assets ?? [],
    exclude: options.exclude ?? [],
    keep: both(
      MATERIALIZABLE,
      partitioned((o) => o("only")),
    ),
  });
  const scoped = resolveScope(assets, options);
  checkRangeEnd(assets, missing);
  const now = missing.now ?? options.now;
  const coverageOptions: CoverageOptions = {
    ...(scoped ? { window: String(scoped) } : {}),
    ...(now ? { now } : {}),
    ...(missing.until !== undefined ? { until: missing.until } : {}),
    // With a lookback, the window already counts the period in progress or not.
    ...(missing.includeCurrent && options.lookback === undefined ? { includeCurrent: true } : {}),
    ...(missing.timeZone !== undefined ? { timeZone: missing.timeZone } : {}),
  };
  const own = ownCoverageOptions(assets, scoped, coverageOptions, options);
  const covered = [...own.keys()];
  // Settle every count before failing, so nothing is still running when the command reports.
  const settled = await Promise.allSettled(covered.map((asset) => assetCoverage(asset, own.get(asset)!, project.dag)));
  const failure = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failure) throw failure.reason;
  const coverages = settled.map((r) => (r as PromiseFulfilledResult<Coverage>).value);
  return { assets, scoped, covered, coverages };
}

/**
 * A window of time is read by each asset as the periods of its own that lie wholly inside it
 * (as the staged plan runs them); a list asset, which such a window does not name, is left to
 * the plan, which skips it with a line.
 */
function ownCoverageOptions(
  assets: readonly Asset[],
  scoped: PartitionWindow | null,
  coverageOptions: CoverageOptions,
  options: PlanOptions,
): Map<Asset, CoverageOptions> {
  const own = new Map<Asset, CoverageOptions>();
  for (const asset of assets) {
    const config = asset.partitioning;
    if (!(scoped instanceof TimePartitionWindow)) own.set(asset, coverageOptions);
    else if (config instanceof TimePartitionConfig) {
      const within = periodsWithin(scoped, config);
      if (within) own.set(asset, { ...coverageOptions, window: String(within) });
    } else if (config instanceof MultiPartitionConfig && config.timeDimension) {
      // Its periods inside the range, crossed with the values the plan runs.
      const within = periodsWithin(scoped, config.timeDimension.config);
      if (within) own.set(asset, { ...coverageOptions, window: String(config.over(within, valuesFor(config, options.values))) });
    }
  }
  return own;
}

/**
 * Plan options that run only the partitions coverage reports missing or unreadable (and empty, if asked) for
 * any selected partitioned asset (see missingCoverage). `only` is empty when nothing is missing.
 */
export async function missingPlanOptions(project: Project, options: PlanOptions, missing: MissingOptions = {}): Promise<PlanOptions> {
  const { assets, scoped, covered, coverages } = await missingCoverage(project, options, missing);
  const wanted = new Set<string>();
  const byAsset = new Map<string, Set<string>>();
  coverages.forEach((c, i) => {
    const keys = new Set(
      c.partitions
        .filter((p) => p.status === "missing" || p.status === "unreadable" || (missing.includeEmpty && p.status === "empty"))
        .map((p) => p.key),
    );
    byAsset.set(covered[i]!.qualifiedKey, keys);
    for (const key of keys) wanted.add(key);
  });
  const window = scoped ?? spanOf(covered, coverages);
  const { partition: _p, lookback: _l, offset: _o, tz: _t, exclude: _e, ...rest } = options;
  // Unpartitioned assets have no partitions to be missing: `--missing` leaves them out. The
  // selection is resolved here: the plan gets its assets by qualified key.
  return {
    ...rest,
    assets: assets.map((a) => a.qualifiedKey),
    // A partition stays one: the plan runs only the assets it names (see partition-scope.ts).
    ...(options.partition !== undefined ? { partition: options.partition } : window ? { window: String(window) } : {}),
    only: wanted,
    onlyByAsset: byAsset,
  };
}

/**
 * The smallest window holding every expected range: of time, in the finest granularity among
 * the assets (each asset then runs its own periods inside it); else a list's values.
 */
export function spanOf(
  assets: readonly Asset[],
  coverages: ReadonlyArray<{ first: string | null; last: string | null }>,
): PartitionWindow | null {
  const ranges: TimePartitionWindow[] = [];
  assets.forEach((asset, i) => {
    const { first, last } = coverages[i]!;
    const time = timeConfigOf(asset.partitioning);
    if (!time || !first || !last) return;
    // A multi asset's first and last keys are its first combination's first period and its last one's last.
    const at = asset.partitioning instanceof MultiPartitionConfig ? asset.partitioning.dimensions.findIndex((d) => d.kind === "time") : -1;
    const part = (key: string) => (at < 0 ? key : key.split("|")[at]!);
    ranges.push(time.window(part(first), part(last)));
  });
  if (ranges.length > 0) {
    const finest = TimeGranularity.all.find((g) => ranges.some((r) => r.granularity === g))!;
    return spanning(ranges, finest);
  }
  const listed = assets.find((a) => a.partitioning instanceof ListPartitionConfig);
  return listed && coverages.some((c) => c.first) ? (listed.partitioning as ListPartitionConfig).all() : null;
}
