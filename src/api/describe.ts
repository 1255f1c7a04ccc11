import type { Asset } from "../asset/asset.js";
import { describeCheck } from "../check/index.js";
import type { DAG } from "../dag/dag.js";

/** An asset as `list` shows it: plain data, safe to print (no connection details). */
export interface AssetDescription {
  readonly key: string;
  readonly source: string | null;
  readonly table: string;
  readonly dataset: string | null;
  readonly description: string | null;
  readonly materializable: boolean;
  readonly tags: readonly string[];
  readonly partitioning: Readonly<Record<string, unknown>> | null;
  readonly destinations: ReadonlyArray<{ readonly key: string; readonly type: string; readonly default: boolean }>;
  readonly dependencies: ReadonlyArray<{
    readonly name: string;
    readonly asset: string | null;
    readonly optional: boolean;
    readonly mapping?: string;
  }>;
  /** Why the asset cannot run (its dependencies that cannot be read); empty when it can. */
  readonly problems: readonly string[];
  readonly schema: ReadonlyArray<{ readonly name: string; readonly type: string; readonly nullable: boolean }> | null;
  /** Its checks, one line each: `unique(order_id)`, `range(amount, min 0) warn`. */
  readonly checks: readonly string[];
  /** The `codeVersion` its writes are recorded with (a change makes them stale); null when it declares none. */
  readonly codeVersion: string | null;
}

/** Describes every asset of a DAG, upstream first. */
export function describeAssets(dag: DAG): AssetDescription[] {
  return dag.assets.map((asset) => describeAsset(dag, asset));
}

function describeAsset(dag: DAG, asset: Asset): AssetDescription {
  return {
    key: asset.qualifiedKey,
    source: asset.source?.key ?? null,
    table: asset.table,
    dataset: asset.dataset,
    description: asset.description,
    materializable: asset.materializable,
    tags: asset.tags,
    partitioning: asset.partitioning ? asset.partitioning.toDefinition() : null,
    destinations: asset.destinations.map((d, i) => ({
      key: asset.destinationKeys[i]!,
      type: d.displayName,
      default: asset.destinationKeys[i] === asset.defaultDestinationKey,
    })),
    dependencies: dag.dependencies(asset).map((d) => ({
      name: d.name,
      asset: d.asset?.qualifiedKey ?? null,
      optional: d.optional,
      ...(d.mapping ? { mapping: d.mapping.describe() } : {}),
    })),
    problems: dag.problems(asset),
    schema: asset.schema ? asset.schema.map((f) => ({ name: f.name, type: f.type, nullable: f.nullable })) : null,
    checks: asset.checks.map(describeCheck),
    codeVersion: asset.definition.codeVersion,
  };
}
