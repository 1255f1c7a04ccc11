import type { Asset } from "../asset/asset.js";
import { assetWindowOf } from "../asset/asset-window.js";
import type { Destination } from "../destination/destination.js";
import { ConfigError } from "../errors.js";
import { TableData } from "../representation/index.js";
import { findAsset, type Project } from "./project.js";
import { resolveScope, type ScopeOptions } from "./scope.js";
import { multiOverTime } from "./multi-scope.js";
import { MultiPartitionConfig, TimePartitionWindow } from "../partitioning/index.js";

/** What `readAsset` returns: rows typed by the effective schema, or a non-tabular value. */
export interface ReadResult {
  readonly asset: string;
  readonly window: string | null;
  /** The destination read: its key in the asset's destinations. */
  readonly destination: string;
  /** The rows, or null when the stored value is not a table. */
  readonly rows: Record<string, unknown>[] | null;
  readonly columns: string[];
  readonly value: unknown;
  /** Rows in storage before any limit. */
  readonly total: number;
}

/** Reads an asset back from its first destination, or from the one `destination` names. */
export async function readAsset(
  project: Project,
  key: string,
  options: ScopeOptions & { limit?: number; destination?: string } = {},
): Promise<ReadResult> {
  const asset = findAsset(project, key);
  const scoped = resolveScope([asset], options);
  // A range of time (or one period) read from a multi-partitioned asset: its every value, or those `values` names.
  const window =
    asset.partitioning instanceof MultiPartitionConfig && scoped instanceof TimePartitionWindow
      ? multiOverTime(asset.partitioning, scoped, options.values)
      : scoped;
  const [name, destination] =
    options.destination === undefined
      ? [asset.destinationKeys[0] ?? "", asset.requireDestination("read")]
      : [options.destination, namedDestination(asset, options.destination)];
  const checked = assetWindowOf(asset, window, true);
  const value = await destination.read(asset.ioContext(checked));
  const table = TableData.from(value);
  const rows = table ? table.rows : null;
  const limit = options.limit ?? 0;
  return {
    asset: asset.qualifiedKey,
    window: window ? String(window) : null,
    destination: name,
    rows: rows && limit > 0 ? rows.slice(0, limit) : rows,
    columns: table ? table.columns() : [],
    value,
    total: table ? table.length : 1,
  };
}

/** The destination of `asset` that `name` keys, or ConfigError listing the names it has. */
function namedDestination(asset: Asset, name: string): Destination {
  const index = asset.destinationKeys.indexOf(name);
  if (index >= 0) return asset.destinations[index]!;
  throw new ConfigError(
    (o) =>
      `${o("destination")} "${name}": asset "${asset.qualifiedKey}" has no such destination (expected one of: ${asset.destinationKeys.join(", ") || "none"})`,
  );
}
