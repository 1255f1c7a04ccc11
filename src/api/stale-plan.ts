// `materialize --stale`: the plan options that rebuild exactly the stale partitions of the
// selected assets, and what rebuilding them makes stale in turn, downstream within the
// selection (a day, then the week and the month that read it), all in one run in dependency
// order: the plan's stages already run upstream assets first.
import type { Asset } from "../asset/asset.js";
import { RecordCache, type Staleness } from "../asset/staleness.js";
import { orderedCounts } from "../destination/row-count.js";
import { ConfigError } from "../errors.js";
import {
  MultiPartitionConfig,
  periodsWithin,
  TimePartitionConfig,
  TimePartitionWindow,
  upstreamWindow,
  type MultiValues,
  type PartitionWindow,
} from "../partitioning/index.js";
import { valuesFor } from "./multi-scope.js";
import { graphStaleness } from "./coverage/stale.js";
import { spanOf } from "./missing.js";
import type { PlanOptions } from "./plan.js";
import type { Project } from "./project.js";
import { resolveScope } from "./scope.js";
import { MATERIALIZABLE, selectAssets } from "./select.js";

/** What `--stale` rebuilds: the plan options, and each asset's partitions with why (for a dry run). */
export interface StaleSelection {
  readonly options: PlanOptions;
  /** By asset's qualified key: the partitions rebuilt and why each is. */
  readonly reasons: ReadonlyMap<string, Staleness>;
}

/**
 * Plan options running only the stale partitions of the selected assets (within the window, or
 * wherever they are stored), the stale unpartitioned assets, and every stored partition of a
 * selected asset that reads one of them; `only` is empty when nothing is stale.
 */
export async function stalePlanOptions(project: Project, options: PlanOptions): Promise<StaleSelection> {
  const assets = selectAssets(project.dag, { select: options.assets ?? [], exclude: options.exclude ?? [], keep: MATERIALIZABLE });
  const scoped = resolveScope(assets, options);
  const records = new RecordCache();
  const reasons = new Map<string, Staleness>();
  // Upstream first (the selection's order), so a partition rebuilt upstream is known when its readers are looked at.
  for (const asset of assets) {
    const window = ownWindow(asset, scoped, options.values);
    if (window === undefined) continue;
    const found = await graphStaleness(asset, project.dag, window, records);
    for (const [key, why] of await rebuiltUpstream(asset, project, reasons, window, records)) (found[key] ??= []).push(why);
    reasons.set(asset.qualifiedKey, orderedCounts(Object.entries(found), asset.partitioning));
  }
  // Only the stale assets run: a partitioned one its stale partitions (`onlyByAsset`), an unpartitioned one whole.
  const rebuilt = assets.filter((asset) => Object.keys(reasons.get(asset.qualifiedKey) ?? {}).length > 0);
  const partitioned = rebuilt.filter((asset) => asset.partitioning);
  const byAsset = new Map(partitioned.map((asset) => [asset.qualifiedKey, new Set(Object.keys(reasons.get(asset.qualifiedKey)!))]));
  // A window is for partitioned assets: given, it is kept; else the span of their stale partitions.
  const window =
    partitioned.length === 0
      ? null
      : (scoped ??
        spanOf(
          partitioned,
          partitioned.map((asset) => rangeOf(reasons.get(asset.qualifiedKey)!)),
        ));
  const { partition: _p, lookback: _l, offset: _o, tz: _t, exclude: _e, window: _w, ...rest } = options;
  return {
    options: {
      ...rest,
      assets: rebuilt.map((a) => a.qualifiedKey),
      // A partition stays one: the plan runs only the assets it names (see partition-scope.ts).
      ...(options.partition !== undefined && window ? { partition: options.partition } : window ? { window: String(window) } : {}),
      ...(rebuilt.length === 0 ? { nothingPicked: true as const } : {}),
      ...(partitioned.length > 0 ? { only: new Set([...byAsset.values()].flatMap((keys) => [...keys])), onlyByAsset: byAsset } : {}),
    },
    reasons,
  };
}

/** The first and last of a set of partition keys. */
function rangeOf(stale: Staleness): { first: string | null; last: string | null } {
  const keys = Object.keys(stale).sort();
  return { first: keys[0] ?? null, last: keys[keys.length - 1] ?? null };
}

/** `--stale` picks the partitions itself: refused beside `--missing`, which picks them too. */
export function checkStaleOptions(options: { readonly stale?: unknown; readonly missing?: unknown }): void {
  if (options.stale && options.missing)
    throw new ConfigError(
      (o) =>
        `${o("stale")} and ${o("missing")} each pick the partitions to run: give one (run the missing ones first, then the stale ones)`,
    );
}

/**
 * The asset's own window inside the one given: a window of time is read by each asset as its
 * periods lying wholly inside it, as the plan runs them. Undefined when none lies inside it
 * (nothing of the asset to look at); null for no window (every stored partition).
 */
function ownWindow(asset: Asset, scoped: PartitionWindow | null, values: MultiValues | undefined): PartitionWindow | null | undefined {
  const config = asset.partitioning;
  if (!scoped || !config) return null;
  if (scoped instanceof TimePartitionWindow && config instanceof TimePartitionConfig) return periodsWithin(scoped, config) ?? undefined;
  // A multi asset's periods inside the range, crossed with the values the plan runs.
  if (scoped instanceof TimePartitionWindow && config instanceof MultiPartitionConfig && config.timeDimension) {
    const within = periodsWithin(scoped, config.timeDimension.config);
    return within ? config.over(within, valuesFor(config, values)) : undefined;
  }
  return scoped instanceof TimePartitionWindow ? undefined : scoped;
}

/** The stored partitions of `asset` (in its window) that read a partition this run rebuilds upstream, each with why. */
async function rebuiltUpstream(
  asset: Asset,
  project: Project,
  rebuilt: ReadonlyMap<string, Staleness>,
  window: PartitionWindow | null,
  records: RecordCache,
): Promise<Array<[string, string]>> {
  const found: Array<[string, string]> = [];
  const edges = project.dag.dependencies(asset).filter((d) => d.asset && Object.keys(rebuilt.get(d.asset.qualifiedKey) ?? {}).length);
  if (edges.length === 0) return found;
  const inWindow = window ? new Set(window.keys) : null;
  const stored = Object.keys(await records.of(asset)).filter((key) => !inWindow || inWindow.has(key));
  for (const key of stored) {
    // Every partition of an asset reads the whole of an unpartitioned upstream (key ""), and an
    // unpartitioned asset every partition of its upstream.
    const own = asset.partitioning?.partition(key).window;
    for (const edge of edges) {
      const upstream = edge.asset!;
      const rebuiltKeys = rebuilt.get(upstream.qualifiedKey)!;
      const read = !upstream.partitioning
        ? [""]
        : own
          ? (upstreamWindow(upstream.partitioning, own, edge.mapping)?.keys ?? [])
          : Object.keys(rebuiltKeys);
      const hit = read.find((k) => Object.hasOwn(rebuiltKeys, k));
      if (hit !== undefined) found.push([key, `${upstream.qualifiedKey}${hit ? ` ${hit}` : ""} is rebuilt first in this run`]);
    }
  }
  return found;
}
