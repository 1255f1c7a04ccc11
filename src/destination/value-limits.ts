import { ConfigError } from "../errors.js";
import { ListPartitionConfig, MultiPartitionConfig, type PartitionConfig } from "../partitioning/index.js";
import type { AssetRef } from "./io-context.js";
import { PROVENANCE_FOLDER } from "./store/object-metadata.js";

// List values are checked for what every destination refuses (`/`, `=`, `..`: src/partitioning/
// list.ts) when their config is built. What only some destinations cannot store (a value too long
// for a folder name, an object name, a key column) each destination states in its `checkAssets`
// through `refuseUnstorableValues`, which the DAG calls when a config is loaded: such a value is
// refused then, naming it, rather than failing its first write (ENAMETOOLONG, "Data too long").

/** Why a destination cannot store `value` of `column` as a partition of `asset`, or null when it can. */
export type ValueRefusal = (asset: AssetRef, column: string, value: string) => string | null;

/** A folder or file name holds at most this many bytes (NAME_MAX on Linux and macOS file systems). */
export const NAME_MAX_BYTES = 255;

/** The UTF-8 bytes of a text. */
export const bytesOf = (text: string): number => Buffer.byteLength(text, "utf8");

/** Each declared list value of a partitioning with its column: one list's, or each list dimension's of a multi. */
export function* listValues(partitioning: PartitionConfig | null): Generator<readonly [column: string, value: string]> {
  if (partitioning instanceof ListPartitionConfig) for (const value of partitioning.values) yield [partitioning.column, value];
  if (partitioning instanceof MultiPartitionConfig)
    for (const d of partitioning.listDimensions) for (const value of d.config.values) yield [d.column, value];
}

/**
 * Throws a ConfigError naming the asset, the value and the destination for the first declared
 * list value of `assets` that `refusal` says `owner` cannot store.
 */
export function refuseUnstorableValues(assets: readonly AssetRef[], owner: string, refusal: ValueRefusal): void {
  for (const asset of assets) {
    for (const [column, value] of listValues(asset.partitioning)) {
      const why = refusal(asset, column, value);
      if (why !== null)
        throw new ConfigError(
          `asset "${asset.key}": list value ${shownValue(value)} of "${column}" cannot be stored in ${owner}: ${why}; declare a shorter value`,
        );
    }
  }
}

/** The refusal of a store that keeps each partition in a `{column}={value}` folder (files, the local object store). */
export const folderNameRefusal: ValueRefusal = (_asset, column, value) => {
  const bytes = bytesOf(`${column}=${value}`);
  return bytes > NAME_MAX_BYTES
    ? `its folder name "${column}=…" takes ${bytes} bytes, and a folder name holds at most ${NAME_MAX_BYTES}`
    : null;
};

/** A value for a message: whole when short, else its start and its length. */
function shownValue(value: string): string {
  const chars = [...value];
  return chars.length <= 40 ? JSON.stringify(value) : `${JSON.stringify(`${chars.slice(0, 32).join("")}…`)} (${chars.length} characters)`;
}

/** An object name in S3 and GCS holds at most this many bytes. */
export const OBJECT_NAME_MAX_BYTES = 1024;
// What a partition's longest object name holds besides its table prefix and folders: its history
// records' `.materializations/` and `history/` and their file name (`{stamp}-{id}.json`, under 80).
const RECORD_NAME_BYTES = `${PROVENANCE_FOLDER}/history/`.length + 80;
// The longest time key: an hour's ("2026-01-05T13").
const TIME_KEY_BYTES = 13;

/**
 * The refusal of a bucket store, whose object names hold 1024 bytes: the longest name a partition
 * of the value takes (its history records'), other list dimensions at their longest values.
 */
export function objectNameRefusal(tablePrefixOf: (asset: AssetRef) => string): ValueRefusal {
  return (asset, column, value) => {
    const partitioning = asset.partitioning;
    const dimensions = partitioning instanceof MultiPartitionConfig ? partitioning.dimensions.map((d) => d.config) : [partitioning!];
    let folders = 0;
    for (const d of dimensions) {
      const longest =
        d.column === column ? bytesOf(value) : d instanceof ListPartitionConfig ? Math.max(...d.values.map(bytesOf)) : TIME_KEY_BYTES;
      folders += bytesOf(`${d.column}=/`) + longest;
    }
    const bytes = bytesOf(tablePrefixOf(asset)) + folders + RECORD_NAME_BYTES;
    return bytes > OBJECT_NAME_MAX_BYTES
      ? `the names of its objects take up to ${bytes} bytes, and an object name holds at most ${OBJECT_NAME_MAX_BYTES}`
      : null;
  };
}
