// `interloper verify`: an asset's checks run again over what is stored, partition by partition,
// read from its first destination; nothing is written. For CI after a backfill, or after data
// was changed outside interloper.
import type { Asset } from "../asset/asset.js";
import { describeCheck, verifyChecks, type CheckVerdict } from "../check/index.js";
import { ConfigError, DataNotFoundError } from "../errors.js";
import type { Partition } from "../partitioning/index.js";
import { TableData, type Row } from "../representation/index.js";
import type { Project } from "./project.js";
import { assetWindow } from "./scope.js";
import { selectAssets } from "./select.js";

/** The verdicts of one stored partition (null: an unpartitioned asset). */
export interface VerifiedPartition {
  readonly partition: string | null;
  readonly verdicts: readonly CheckVerdict[];
}

/** What `verify` found of one asset: its checks as `list` says them (none: nothing to verify), and each stored partition's verdicts. */
export interface AssetVerification {
  readonly asset: string;
  readonly checks: readonly string[];
  readonly partitions: readonly VerifiedPartition[];
}

/** Where to verify: a window (`start..end`) or one partition key; every stored partition when neither is given. */
export interface VerifyOptions {
  readonly window?: string;
  readonly partition?: string;
}

/** Runs the checks of each selected asset (every one when none is) over its stored partitions, upstream first. */
export async function verifyAssets(
  project: Project,
  selection: { readonly select: readonly string[]; readonly exclude: readonly string[] },
  options: VerifyOptions = {},
): Promise<AssetVerification[]> {
  if (options.window !== undefined && options.partition !== undefined)
    throw new ConfigError((o) => `${o("partition")} and ${o("window")} cannot be used together: name the partitions one way`);
  const assets = selectAssets(project.dag, selection);
  const out: AssetVerification[] = [];
  for (const asset of assets) out.push(await verifyAsset(asset, options.window ?? options.partition));
  return out;
}

async function verifyAsset(asset: Asset, scope: string | undefined): Promise<AssetVerification> {
  const checks = asset.checks.map(describeCheck);
  if (checks.length === 0) return { asset: asset.qualifiedKey, checks, partitions: [] };
  const partitions: VerifiedPartition[] = [];
  // One partition read at a time: memory holds one partition's rows, never the window's.
  for (const partition of await storedPartitions(asset, scope)) {
    const rows = await storedRows(asset, partition);
    if (rows === null) continue;
    partitions.push({ partition: partition?.key ?? null, verdicts: await verifyChecks(asset, partition, rows) });
  }
  return { asset: asset.qualifiedKey, checks, partitions };
}

/** The stored partitions of the scope in the window's order (without one, every stored key, sorted); [null] for an unpartitioned asset. */
async function storedPartitions(asset: Asset, scope: string | undefined): Promise<Array<Partition | null>> {
  const config = asset.partitioning;
  if (!config) return [null];
  const stored = new Set(Object.keys(await asset.partitionRowCounts()));
  if (scope !== undefined) return (assetWindow(asset, scope)?.partitions ?? []).filter((p) => stored.has(p.key));
  // Without a window: every stored key this partitioning reads (a key it refuses is no partition of it).
  return [...stored].sort().flatMap((key) => {
    try {
      return [config.partition(key)];
    } catch {
      return [];
    }
  });
}

/** A stored partition's rows, as its first destination reads them back; null when nothing is stored (an unpartitioned asset never written). */
async function storedRows(asset: Asset, partition: Partition | null): Promise<readonly Row[] | null> {
  try {
    const value = await asset.read(partition);
    return TableData.from(value)?.rows ?? [];
  } catch (error) {
    if (error instanceof DataNotFoundError) return null;
    throw error;
  }
}
