import { ConfigError, SchemaError } from "../errors.js";
import { TableData } from "../representation/index.js";
import { reconcileRows } from "../schema/index.js";
import { describeValue } from "../text/describe-value.js";
import type { Asset } from "./asset.js";
import { isAssetDefinition, type AssetTarget, type DependencySpec } from "./definition.js";
import type { Dependency } from "./dependencies.js";

/** A dependency read as rows: what `il.Upstream.rows` declares. */
export type RowsDependency<T extends AssetTarget> = DependencySpec<T> & { readonly as: "rows" };

/**
 * How an asset reads an upstream one. Reads are native (a destination hands back its own table
 * type, a database backend's `select` may give columns); a consumer indifferent to the
 * destination declares the dependency with `il.Upstream.rows(orders)` (or
 * `il.Upstream.rows({ asset: orders, mapping })`) and receives rows, whatever the destination.
 */
export const Upstream = Object.freeze({
  rows<T extends AssetTarget>(target: T | DependencySpec<T>): RowsDependency<T> {
    const spec: DependencySpec<T> =
      typeof target === "object" && target !== null && !isAssetDefinition(target) ? target : { asset: target as T };
    if (spec.as !== undefined && spec.as !== "rows") {
      throw new ConfigError(`il.Upstream.rows: as must be "rows", got ${describeValue(spec.as)}`);
    }
    return Object.freeze({ ...spec, as: "rows" as const });
  },
});

/**
 * The value a dependency delivers: the destination's own when it is tabular in rows, or when
 * neither the upstream asset declares a schema nor the dependency asks for rows; otherwise its
 * rows (restored to the declared schema), since the asset's type promises rows. A dependency
 * asking for rows of data that is no table is a SchemaError naming both assets.
 */
export function delivered(reader: Asset, upstream: Asset, dependency: Dependency, value: unknown): unknown {
  if (!upstream.schema && !dependency.rows) return value;
  const table = TableData.from(value);
  if (!table) {
    if (!dependency.rows) return value;
    throw new SchemaError(
      `asset "${reader.qualifiedKey}" reads "${upstream.qualifiedKey}" as rows (il.Upstream.rows), but its destination gave ${describeValue(value)}, which is no table`,
    );
  }
  if (table.kind === "rows") return table.data;
  return upstream.schema ? reconcileRows(table.rows, upstream.schema, { assetKey: upstream.qualifiedKey, typed: true }) : table.rows;
}
