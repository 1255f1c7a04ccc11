import { TableData } from "../representation/index.js";
import { findAsset, type Project } from "./project.js";
import { resolveScope, type ScopeOptions } from "./scope.js";

/** What `readAsset` returns: rows typed by the effective schema, or a non-tabular value. */
export interface ReadResult {
  readonly asset: string;
  readonly window: string | null;
  /** The rows, or null when the stored value is not a table. */
  readonly rows: Record<string, unknown>[] | null;
  readonly columns: string[];
  readonly value: unknown;
  /** Rows in storage before any limit. */
  readonly total: number;
}

/** Reads an asset back from its first destination. */
export async function readAsset(project: Project, key: string, options: ScopeOptions & { limit?: number } = {}): Promise<ReadResult> {
  const asset = findAsset(project, key);
  const window = resolveScope([asset], options);
  const value = await asset.read(window);
  const table = TableData.from(value);
  const rows = table ? table.rows : null;
  const limit = options.limit ?? 0;
  return {
    asset: asset.qualifiedKey,
    window: window ? String(window) : null,
    rows: rows && limit > 0 ? rows.slice(0, limit) : rows,
    columns: table ? table.columns() : [],
    value,
    total: table ? table.length : 1,
  };
}
