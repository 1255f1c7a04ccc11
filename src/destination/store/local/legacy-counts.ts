import type { BigIntStats } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { fileIdentity } from "./file-identity.js";
import { parseCount } from "./ledger.js";

// The records of a file's row count (or metadata) that older versions kept instead of the
// ledger: still read, for the very file they name (`file`: see file-identity.ts), and carried
// into the ledger the first time a table is counted. Each is read only for a file the ledger
// has no current line for.

/**
 * A row count as the file destinations of older versions recorded it, beside each data file
 * (`.data.csv.rows.json`) and in a per-table index (`.data.csv.{column}.rows-index.json`).
 */
export interface LegacyCount {
  readonly rows: number;
  readonly file: string;
}

/**
 * The sidecar older object stores kept beside an object (`.data.parquet.meta.json`), with the
 * object's metadata.
 */
interface LegacySidecar {
  readonly metadata: Record<string, string>;
  readonly file: string;
}

function isLegacyCount(value: unknown): value is LegacyCount {
  const record = value as LegacyCount | null | undefined;
  return (
    typeof record === "object" &&
    record !== null &&
    Number.isSafeInteger(record.rows) &&
    record.rows >= 0 &&
    typeof record.file === "string"
  );
}

/**
 * An older version's per-table index of counts, by partition key, in an object without a
 * prototype (keys are list values, `__proto__` included).
 */
export async function readLegacyIndex(table: string, fileName: string, column: string): Promise<Record<string, LegacyCount>> {
  const index: Record<string, LegacyCount> = Object.create(null);
  try {
    const parsed = JSON.parse(await readFile(join(table, `.${fileName}.${column}.rows-index.json`), "utf8")) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) Object.assign(index, parsed);
  } catch {
    // None (a table this version wrote), or cut short: sidecars, then recounts.
  }
  return index;
}

/**
 * The count an older version recorded for the file at `path` whose identity is `file`: its
 * entry in the table's index, its count sidecar, or the `row_count` of its metadata sidecar;
 * null when none names this very file.
 */
export async function legacyCount(path: string, file: string, indexed: LegacyCount | undefined): Promise<number | null> {
  if (isLegacyCount(indexed) && indexed.file === file) return indexed.rows;
  const fileName = path.slice(path.lastIndexOf(sep) + 1);
  try {
    const record = JSON.parse(await readFile(join(dirname(path), `.${fileName}.rows.json`), "utf8")) as unknown;
    if (isLegacyCount(record) && record.file === file) return record.rows;
  } catch {
    // None, or cut short: the metadata sidecar, then a recount.
  }
  return parseCount((await readSidecar(path, file))["row_count"]);
}

/** An older object store's sidecar's metadata when it describes this very file; none otherwise. */
export function legacyMetadata(path: string, info: BigIntStats): Promise<Record<string, string>> {
  return readSidecar(path, fileIdentity(info));
}

async function readSidecar(path: string, file: string): Promise<Record<string, string>> {
  const at = path.lastIndexOf(sep);
  try {
    const sidecar = JSON.parse(await readFile(`${path.slice(0, at + 1)}.${path.slice(at + 1)}.meta.json`, "utf8")) as LegacySidecar;
    return sidecar.file === file && typeof sidecar.metadata === "object" && sidecar.metadata !== null ? sidecar.metadata : {};
  } catch {
    return {};
  }
}
