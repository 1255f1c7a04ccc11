// `interloper verify`: an asset's checks run again over what is stored, partition by partition,
// in each of its destinations (or the one named); nothing is written. For CI after a backfill,
// or after data was changed outside interloper.
import type { Asset } from "../asset/asset.js";
import { describeCheck, previousCounts, verifyChecks, type CheckVerdict } from "../check/index.js";
import type { Destination } from "../destination/index.js";
import { ConfigError, DataNotFoundError, SchemaError, UnreadableDataError } from "../errors.js";
import type { MultiValues, Partition } from "../partitioning/index.js";
import { TableData, type Row } from "../representation/index.js";
import { mergeInferred, reconcileRows, type FieldSpec } from "../schema/index.js";
import type { Project } from "./project.js";
import { assetWindow, resolveScope } from "./scope.js";
import { selectAssets } from "./select.js";

/** The verdicts of one stored partition (null: an unpartitioned asset). */
export interface VerifiedPartition {
  readonly partition: string | null;
  /** Every check's verdict; none when the partition could not be read. */
  readonly verdicts: readonly CheckVerdict[];
  /** Why the stored data cannot be read (the file and the reader's reason); absent when it was read. Fails `verify`. */
  readonly unreadable?: string;
}

/**
 * What `verify` found of one asset in one destination: its checks as `list` says them (none:
 * nothing to verify), and each stored partition's verdicts.
 */
export interface AssetVerification {
  readonly asset: string;
  /** The destination read, by its key among the asset's destinations; null for an asset without any. */
  readonly destination: string | null;
  readonly checks: readonly string[];
  readonly partitions: readonly VerifiedPartition[];
}

/** Where to verify: a window (`start..end`) or one partition key; every stored partition when neither is given. */
export interface VerifyOptions {
  readonly window?: string;
  readonly partition?: string;
  /** Only these values of a multi asset's list dimensions (`{ region: ["eu"] }`); a dimension not named keeps all its values. */
  readonly values?: MultiValues;
  /** Only this destination (its key, as `list` shows it); every destination of each asset when absent. */
  readonly destination?: string;
}

/**
 * Runs the checks of each selected asset (every one when none is) over its stored partitions
 * in each destination, upstream first: one entry per asset and destination. The scope is read
 * for the whole selection first, so a bad key is refused whether or not an asset has checks.
 */
export async function verifyAssets(
  project: Project,
  selection: { readonly select: readonly string[]; readonly exclude: readonly string[] },
  options: VerifyOptions = {},
): Promise<AssetVerification[]> {
  const assets = selectAssets(project.dag, selection);
  resolveScope(assets, {
    ...(options.window !== undefined ? { window: options.window } : {}),
    ...(options.partition !== undefined ? { partition: options.partition } : {}),
    ...(options.values ? { values: options.values } : {}),
  });
  const named = options.destination;
  if (named !== undefined && !assets.some((a) => a.destinationKeys.includes(named))) {
    const have = [...new Set(assets.flatMap((a) => a.destinationKeys))];
    throw new ConfigError(
      (o) => `${o("destination")} "${named}": no selected asset has such a destination (expected one of: ${have.join(", ") || "none"})`,
    );
  }
  const scope = options.window ?? options.partition;
  const out: AssetVerification[] = [];
  for (const asset of assets) {
    const window = scope === undefined ? undefined : (assetWindow(asset, scope, options.values)?.partitions ?? []);
    const checks = asset.checks.map(describeCheck);
    const keys = named === undefined ? asset.destinationKeys : asset.destinationKeys.filter((key) => key === named);
    if (checks.length === 0 || keys.length === 0) {
      if (named === undefined || keys.length > 0)
        out.push({ asset: asset.qualifiedKey, destination: keys[0] ?? null, checks, partitions: [] });
      continue;
    }
    for (const key of keys) {
      const destination = asset.destinations[asset.destinationKeys.indexOf(key)]!;
      const partitions = await verifyIn(asset, destination, window);
      out.push({ asset: asset.qualifiedKey, destination: key, checks, partitions });
    }
  }
  return out;
}

/** The verdicts of every stored partition of `asset` in `destination` (those of `window` when given), one partition read at a time. */
async function verifyIn(asset: Asset, destination: Destination, window: readonly Partition[] | undefined): Promise<VerifiedPartition[]> {
  const context = asset.ioContext(null);
  const { counts, unreadable } = asset.partitioning ? await destination.partitionCounts(context) : { counts: {}, unreadable: {} };
  // rowCountChange compares with what this destination stores before each partition.
  const target = {
    qualifiedKey: asset.qualifiedKey,
    checks: asset.checks,
    schema: asset.schema,
    previousRowCounts: async (partition: string, n: number) => previousCounts(counts, partition, n),
  };
  const schemaOf = await writtenSchemas(asset, destination);
  const out: VerifiedPartition[] = [];
  // Memory holds one partition's rows at a time, never the window's.
  for (const partition of storedPartitions(asset, new Set([...Object.keys(counts), ...Object.keys(unreadable)]), window)) {
    const read = await storedRows(asset, destination, partition, await schemaOf(partition));
    if (read === null) continue;
    const key = partition?.key ?? null;
    if ("unreadable" in read) out.push({ partition: key, verdicts: [], unreadable: read.unreadable });
    else out.push({ partition: key, verdicts: await verifyChecks(target, partition, read.rows) });
  }
  return out;
}

/**
 * The schema each partition's write inferred, for an asset without a declared one: kept in the
 * partition's record, read once for every partition. A partition whose data was changed
 * outside interloper (its current record left out) takes its last write's from its history,
 * else the schemas of the asset's other writes merged (no wall clock decides between them).
 * Null when no record has one (written before records kept it, or to a destination keeping
 * none): the data is checked as it reads.
 */
async function writtenSchemas(
  asset: Asset,
  destination: Destination,
): Promise<(partition: Partition | null) => Promise<readonly FieldSpec[] | null>> {
  if (asset.schema !== null || !destination.materializations) return async () => null;
  const context = asset.ioContext(null);
  const current = await destination.materializations(context);
  // The asset's schema across its stored partitions, as a run merges them (integer beside number is number).
  const merged = Object.values(current).reduce<readonly FieldSpec[] | null>(
    (all, record) => mergeInferred(all, record.schema ?? null) ?? all,
    null,
  );
  return async (partition) => {
    const record = current[partition?.key ?? ""];
    if (record) return record.schema ?? null;
    const [last] = destination.materializationHistory ? await destination.materializationHistory(context, { partition, limit: 1 }) : [];
    return last?.schema ?? merged;
  };
}

/**
 * The stored partitions (those counted and those that could not be read) within `window` in
 * its order, or every one, sorted by key; [null] for an unpartitioned asset.
 */
function storedPartitions(asset: Asset, stored: ReadonlySet<string>, window: readonly Partition[] | undefined): Array<Partition | null> {
  const config = asset.partitioning;
  if (!config) return [null];
  if (window !== undefined) return window.filter((p) => stored.has(p.key));
  // Every stored key this partitioning reads (a key it refuses is no partition of it).
  return [...stored].sort().flatMap((key) => {
    try {
      return [config.partition(key)];
    } catch {
      return [];
    }
  });
}

/**
 * A stored partition's rows, read as the asset reads them (by its declared schema, if any),
 * then, for an asset without one, the columns they hold typed as its write inferred them
 * (`written`): a column the data lacks stays absent, for the checks to find. Null when nothing
 * is stored (an unpartitioned asset never written); the reason when the data cannot be read,
 * or not as that schema says.
 */
async function storedRows(
  asset: Asset,
  destination: Destination,
  partition: Partition | null,
  written: readonly FieldSpec[] | null,
): Promise<{ rows: readonly Row[] } | { unreadable: string } | null> {
  try {
    const rows = TableData.from(await destination.read(asset.ioContext(partition, asset.schema)))?.rows ?? [];
    if (!written) return { rows };
    const held = written.filter((spec) => rows.some((row) => Object.hasOwn(row, spec.name)));
    return { rows: reconcileRows(rows, held, { assetKey: asset.qualifiedKey }) };
  } catch (error) {
    if (error instanceof DataNotFoundError) return null;
    if (error instanceof UnreadableDataError || error instanceof SchemaError) return { unreadable: error.message.split("\n")[0]! };
    throw error;
  }
}
