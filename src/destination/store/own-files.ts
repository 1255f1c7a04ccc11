import type { DropTarget } from "../destination.js";
import type { MaybePromise } from "../../maybe-promise.js";

/** Which files under a table an asset owns: its data files, and the bookkeeping kept beside them. */
export interface Ownership {
  /** Whether a file name is one of the asset's data files. */
  isData(file: string): boolean;
  /** Whether a file name is the asset's (its data files, and any bookkeeping the listing shows). */
  isOwn(file: string): boolean;
}

/**
 * The data files of any format, `data.{ext}`: a changed format still has its files found. A
 * store's listing shows no bookkeeping (the local backend deletes a file's with it).
 */
export const ANY_DATA_FILE: Ownership = {
  isData: (file) => file.startsWith("data."),
  isOwn: (file) => file.startsWith("data."),
};

/** What of a table is an asset's own: the files to delete, and what a drop would say. */
export interface OwnFiles {
  /** Their names, as the listing gave them. */
  readonly names: readonly string[];
  /** The partition folders (`{column}={key}`, or nested ones of a multi partition) holding a data file. */
  readonly partitions: number;
  /** Whether the asset has anything there: a file of its own at the table's level, or a partition. */
  readonly exists: boolean;
}

/**
 * The asset's own files among the names under `tablePrefix` (the one rule every file store drops
 * by). Another asset's files may share the prefix (an asset `shop` without dataset beside the
 * dataset `shop`), so only a file of its own at the table's level, or below it in folders each
 * named `{column}={key}` (one level, or one per dimension of a multi partitioning:
 * `date=2026-01-05/region=eu/`), is the asset's: a partition column renamed since still has its
 * folders found. Anything else in a partition folder (a `.DS_Store`, a README) stays, and a
 * folder without a data file is no partition.
 */
export async function ownFiles(listing: Iterable<string> | AsyncIterable<string>, tablePrefix: string, owns: Ownership): Promise<OwnFiles> {
  const names: string[] = [];
  const folders = new Set<string>();
  let atTable = false;
  for await (const name of listing) {
    if (!name.startsWith(tablePrefix)) continue;
    const parts = name.slice(tablePrefix.length).split("/");
    const file = parts[parts.length - 1]!;
    const folder = parts.slice(0, -1);
    if (!folder.every((part) => part.includes("=")) || !owns.isOwn(file)) continue;
    names.push(name);
    if (parts.length === 1) atTable = true;
    else if (owns.isData(file)) folders.add(folder.join("/"));
  }
  return { names, partitions: folders.size, exists: atTable || folders.size > 0 };
}

/**
 * Deletes the asset's own files through the backend, in batches that bound a request's size
 * (S3 takes at most 1000 keys per DeleteObjects).
 */
export async function dropOwnFiles(own: OwnFiles, remove: (names: readonly string[]) => MaybePromise<void>): Promise<void> {
  for (let start = 0; start < own.names.length; start += 1000) await remove(own.names.slice(start, start + 1000));
}

/** What dropping `own` removes, for `describeDrop`: `what` names the place. */
export function dropTarget(what: string, own: OwnFiles, partitioned: boolean): DropTarget {
  return { what, partitions: partitioned ? own.partitions : null, exists: own.exists };
}
