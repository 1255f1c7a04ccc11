// What a run covers, checked before anything executes: the selected assets (with their edges)
// and the window every one of them must be able to serve.
import type { Asset } from "../asset/asset.js";
import type { AssetGraph } from "../asset/dependencies.js";
import { ConfigError, PartitionError } from "../errors.js";
import { Partition, type PartitionWindow } from "../partitioning/index.js";

/** The assets a run covers: the selection, or every materializable asset; ConfigError when one has an invalid edge. */
export function selectAssets(dag: AssetGraph, selection?: readonly (string | Asset)[]): Asset[] {
  const assets = chosenAssets(dag, selection);
  dag.checkEdges(assets);
  return assets;
}

function chosenAssets(dag: AssetGraph, selection?: readonly (string | Asset)[]): Asset[] {
  if (!selection) return dag.assets.filter((a) => a.materializable);
  const chosen = new Set<string>();
  for (const item of selection) {
    const asset = typeof item === "string" ? dag.find(item) : item;
    if (!asset || !dag.assets.includes(asset))
      throw new ConfigError(`no asset "${typeof item === "string" ? item : item.qualifiedKey}" in the DAG`);
    if (!asset.materializable) throw new ConfigError(`asset "${asset.qualifiedKey}" is not materializable`);
    chosen.add(asset.qualifiedKey);
  }
  return dag.assets.filter((a) => chosen.has(a.qualifiedKey));
}

/**
 * Checks a run's window against every selected asset before anything executes, listing every
 * asset that cannot serve it in one PartitionError. Returns the window (null when none is given).
 */
export function checkRunWindow(
  assets: readonly Asset[],
  partitionOrWindow: PartitionWindow | Partition | null | undefined,
): PartitionWindow | null {
  const window = partitionOrWindow instanceof Partition ? partitionOrWindow.window : (partitionOrWindow ?? null);
  const problems: string[] = [];
  for (const asset of assets) {
    if (!asset.partitioning) continue;
    if (!window) {
      problems.push(`asset "${asset.qualifiedKey}" is partitioned by "${asset.partitioning.column}" but no partition or window was given`);
      continue;
    }
    const problem = problemOf(asset, window);
    if (problem) problems.push(problem);
  }
  refuse(problems);
  return window;
}

/**
 * Checks a backfill's partitions (those it runs of `window`) against every partitioned asset
 * before anything executes, as `checkRunWindow` checks a run's window: every asset that cannot
 * serve one of them is listed, each once, and named by the window it was given, not by the
 * first of its partitions that fails.
 */
export function checkBackfillPartitions(assets: readonly Asset[], window: PartitionWindow, partitions: readonly Partition[]): void {
  const problems: string[] = [];
  for (const asset of assets) {
    if (!asset.partitioning) continue;
    const failing = partitions.find((p) => problemOf(asset, p.window, false) !== null);
    // The whole window as the run was asked, read back whatever one run may cover.
    if (failing) problems.push(problemOf(asset, window, true) ?? problemOf(asset, failing.window, false)!);
  }
  refuse(problems);
}

/** Why an asset cannot serve a window, or null. */
function problemOf(asset: Asset, window: PartitionWindow, allowWindow?: boolean): string | null {
  try {
    asset.partitioning!.check(window, asset.qualifiedKey, allowWindow);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

function refuse(problems: readonly string[]): void {
  if (problems.length === 1) throw new PartitionError(problems[0]!);
  if (problems.length > 1) throw new PartitionError(`${problems.length} assets cannot run this window: ${problems.join("; ")}`);
}
