// The one place a declared dependency is resolved to an upstream asset: among a DAG's assets
// when the asset runs in a DAG, among its own source's assets when it runs alone.
import { DAGError, DependencyNotFoundError } from "../errors.js";
import { edgeProblem, type TimeWindowMapping } from "../partitioning/index.js";
import { closest } from "../suggest.js";
import type { Asset } from "./asset.js";
import { dependencyAsset, dependencyMapping, dependencyWantsRows, type DependencyTarget } from "./definition.js";

/** One resolved dependency edge. */
export interface Dependency {
  /** The `run` argument name. */
  readonly name: string;
  readonly optional: boolean;
  /** The upstream asset, or undefined for an optional dependency absent from the DAG. */
  readonly asset: Asset | undefined;
  /** The declared mapping of partitions, or null for the default (the covering periods). */
  readonly mapping: TimeWindowMapping | null;
  /** Why the upstream cannot be read across this edge, or null; raised when a run selects the asset. */
  readonly problem: string | null;
  /** Whether the data is delivered as rows whatever the destination's native table (`il.Upstream.rows`). */
  readonly rows?: boolean;
}

/** What a run needs of a graph of assets; a DAG is one. */
export interface AssetGraph {
  /** Every asset, upstream before downstream. */
  readonly assets: readonly Asset[];
  /** The asset with a qualified key, or a bare key that only one asset has. */
  find(key: string): Asset | undefined;
  dependencies(asset: Asset): readonly Dependency[];
  /** Throws ConfigError when a selected asset has an edge that cannot be read. */
  checkEdges(assets: readonly Asset[]): void;
}

/** Where dependencies are looked for, as a missing one's message says it: "the DAG". */
export type Scope = string;

/** Every declared dependency of an asset, resolved among `candidates`. */
export function resolveDependencies(asset: Asset, candidates: readonly Asset[], scope: Scope): Dependency[] {
  const names = [...Object.keys(asset.definition.requires), ...Object.keys(asset.definition.optionalRequires)];
  return names.map((name) => resolveDependency(asset, name, candidates, scope));
}

/**
 * The dependency `name` of an asset, resolved among `candidates`: a key names an asset of the
 * same source unless qualified (`shop.orders`); a definition names the candidate built from it,
 * preferring one of the same source. A required one that is not found is a
 * DependencyNotFoundError saying it is not in `scope`.
 */
export function resolveDependency(asset: Asset, name: string, candidates: readonly Asset[], scope: Scope): Dependency {
  const optional = !(name in asset.definition.requires);
  const entry: DependencyTarget | undefined = asset.definition.requires[name] ?? asset.definition.optionalRequires[name];
  if (entry === undefined) throw new DependencyNotFoundError(`asset "${asset.qualifiedKey}" declares no dependency "${name}"`);
  const target = dependencyAsset(entry);
  const upstream = lookup(asset, target, candidates);
  if (!upstream && !optional) {
    const label = typeof target === "string" ? target : target.key;
    throw new DependencyNotFoundError(
      `asset "${asset.qualifiedKey}" requires "${label}" (as ${name}), which is not in ${scope}${suggestion(asset, label, candidates)}`,
    );
  }
  const mapping = dependencyMapping(entry);
  const problem = upstream
    ? edgeProblem(
        { key: upstream.qualifiedKey, partitioning: upstream.partitioning },
        { key: asset.qualifiedKey, partitioning: asset.partitioning },
        mapping,
      )
    : null;
  return Object.freeze({ name, optional, asset: upstream, mapping, problem, ...(dependencyWantsRows(entry) ? { rows: true } : {}) });
}

/** `: did you mean "orders"?` for a key that nearly names a candidate (bare within the asset's source), else "". */
function suggestion(asset: Asset, label: string, candidates: readonly Asset[]): string {
  const names = candidates
    .filter((candidate) => candidate !== asset)
    .flatMap((c) => (c.source?.key === asset.source?.key ? [c.key, c.qualifiedKey] : [c.qualifiedKey]));
  const found = closest(label, names);
  return found ? `: did you mean "${found}"?` : "";
}

function lookup(asset: Asset, target: DependencyTarget, candidates: readonly Asset[]): Asset | undefined {
  if (typeof target === "string") {
    const key = target.includes(".") || !asset.source ? target : `${asset.source.key}.${target}`;
    return candidates.find((candidate) => candidate.qualifiedKey === key);
  }
  const built = candidates.filter((candidate) => candidate.definition === target);
  const sameSource = built.find((candidate) => candidate.source?.key === asset.source?.key);
  if (sameSource) return sameSource;
  if (built.length > 1) {
    throw new DAGError(
      `asset "${asset.qualifiedKey}" depends on a definition held by ${built.map((a) => a.qualifiedKey).join(", ")}; name one by key`,
    );
  }
  return built[0];
}

/** Outside a DAG, a dependency resolves among the assets of the asset's own source. */
export function resolveWithinSource(asset: Asset, name: string): Dependency {
  const siblings = Object.values(asset.source?.assets() ?? {});
  return resolveDependency(asset, name, siblings, "its source; run it in a DAG holding that asset");
}
