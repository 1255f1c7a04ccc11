import { AssetError } from "../errors.js";
import { describeKind } from "../text/describe-value.js";
import { representation, RowsTable, TableData } from "../representation/index.js";
import { conform, type FieldSpec } from "../schema/index.js";
import type { Asset } from "./asset.js";

/** Conformed data, its effective schema, and what conform had to say. */
export interface Conformed {
  readonly data: unknown;
  readonly schema: readonly FieldSpec[] | null;
  readonly rows: number | null;
  readonly warnings: readonly string[];
}

/**
 * Puts an asset's output in its effective schema, keeping the shape it came in (rows stay rows,
 * columns stay columns). Non-tabular data passes through under `auto` and is refused otherwise.
 */
export function conformData(asset: Asset, data: unknown): Conformed {
  const table = TableData.from(data);
  if (!table) {
    if (asset.strategy === "auto") return { data, schema: null, rows: null, warnings: [] };
    throw new AssetError(
      `asset "${asset.qualifiedKey}" returned non-tabular data (${describeKind(data)}), which strategy "${asset.strategy}" cannot conform; return rows or use strategy "auto"`,
    );
  }
  const result = conform(table.rows, { strategy: asset.strategy, schema: asset.schema, assetKey: asset.qualifiedKey });
  const rows = new RowsTable(result.rows);
  const shaped = table.kind === "rows" ? rows.data : representation(table.kind).fromTable(rows).data;
  return { data: shaped, schema: result.schema, rows: result.rows.length, warnings: result.warnings };
}
