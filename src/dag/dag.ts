import { Asset } from "../asset/asset.js";
import { isAssetDefinition, type AssetDefinition } from "../asset/definition.js";
import { resolveDependencies, type AssetGraph, type Dependency } from "../asset/dependencies.js";
import type { Destination } from "../destination/destination.js";
import { CircularDependencyError, ConfigError, DAGError } from "../errors.js";
import type { Partition, PartitionWindow } from "../partitioning/index.js";
import type { RunResult } from "../runner/run-result.js";
import { materializeDag, type RunOptions } from "../runner/run.js";
import { Source, type SourceDefinition } from "../source/source.js";

/** What a DAG is built from. */
export type DAGMember = Source | SourceDefinition | Asset | AssetDefinition;

export type { Dependency };

/** A validated graph of assets, in dependency order. */
export class DAG implements AssetGraph {
  /** Every asset, upstream before downstream. */
  readonly assets: readonly Asset[];
  private readonly byKey: ReadonlyMap<string, Asset>;
  private readonly edges: ReadonlyMap<string, readonly Dependency[]>;

  constructor(...members: DAGMember[]) {
    const byKey = new Map<string, Asset>();
    for (const asset of members.flatMap(assetsOf)) {
      if (byKey.has(asset.qualifiedKey)) throw new DAGError(`the DAG holds the asset "${asset.qualifiedKey}" twice`);
      byKey.set(asset.qualifiedKey, asset);
    }
    this.byKey = byKey;
    checkDestinations([...byKey.values()]);
    const edges = new Map<string, readonly Dependency[]>();
    const all = [...byKey.values()];
    for (const asset of all) edges.set(asset.qualifiedKey, resolveDependencies(asset, all, "the DAG"));
    this.edges = edges;
    this.assets = Object.freeze(topologicalOrder([...byKey.values()], edges));
    Object.freeze(this);
  }

  /** Why an asset's dependencies cannot be read (its invalid edges); empty when they can. */
  problems(asset: Asset): string[] {
    return this.dependencies(asset).flatMap((d) => (d.problem ? [d.problem] : []));
  }

  /**
   * Throws ConfigError when an asset a run or plan selects has an invalid edge: the problems
   * are recorded when the DAG is built so that `list` and unrelated assets still work.
   */
  checkEdges(assets: readonly Asset[]): void {
    const problems = assets.flatMap((asset) => this.problems(asset));
    if (problems.length > 0) throw new ConfigError(problems.join("; "));
  }

  /** The asset with a qualified key (`shop.orders`), or a bare key that only one asset has. */
  find(key: string): Asset | undefined {
    const exact = this.byKey.get(key);
    if (exact) return exact;
    const matches = this.assets.filter((a) => a.key === key);
    if (matches.length > 1) {
      throw new DAGError(`"${key}" is ambiguous: it names ${matches.map((a) => a.qualifiedKey).join(", ")}; use the qualified key`);
    }
    return matches[0];
  }

  /** Runs every materializable asset (or `options.assets`) over one window and writes the results. */
  materialize(partitionOrWindow?: PartitionWindow | Partition | null, options: RunOptions = {}): Promise<RunResult> {
    return materializeDag(this, partitionOrWindow, options);
  }

  /** The dependencies of an asset of this DAG. */
  dependencies(asset: Asset): readonly Dependency[] {
    return this.edges.get(asset.qualifiedKey) ?? [];
  }

  /** The upstream asset a dependency names (undefined when an optional one is absent). */
  resolve(asset: Asset, name: string): Asset | undefined {
    return this.dependencies(asset).find((d) => d.name === name)?.asset;
  }

  /** The assets that depend on an asset, directly or not. */
  downstreamOf(asset: Asset): Asset[] {
    const found = new Set<string>([asset.qualifiedKey]);
    for (const candidate of this.assets) {
      if (this.dependencies(candidate).some((d) => d.asset && found.has(d.asset.qualifiedKey))) found.add(candidate.qualifiedKey);
    }
    found.delete(asset.qualifiedKey);
    return this.assets.filter((a) => found.has(a.qualifiedKey));
  }
}

function assetsOf(member: DAGMember): Asset[] {
  if (member instanceof Source) return Object.values(member.assets);
  if (member instanceof Asset) return [member];
  if (typeof member === "function" && (member as SourceDefinition).kind === "source-definition") return Object.values(member().assets);
  if (isAssetDefinition(member)) return [new Asset(member, null)];
  throw new DAGError(`a DAG is built from sources and assets, got ${member === null ? "null" : typeof member}`);
}

/** Upstream first; a cycle is reported in order, starting and ending at the same asset. */
function topologicalOrder(assets: Asset[], edges: ReadonlyMap<string, readonly Dependency[]>): Asset[] {
  const order: Asset[] = [];
  const state = new Map<string, "visiting" | "done">();
  const path: string[] = [];
  const visit = (asset: Asset) => {
    const key = asset.qualifiedKey;
    if (state.get(key) === "done") return;
    if (state.get(key) === "visiting") throw new CircularDependencyError([...path.slice(path.indexOf(key)), key]);
    state.set(key, "visiting");
    path.push(key);
    for (const dep of edges.get(key) ?? []) if (dep.asset) visit(dep.asset);
    path.pop();
    state.set(key, "done");
    order.push(asset);
  };
  for (const asset of assets) visit(asset);
  return order;
}

/** Lets each destination refuse the assets bound to it that it could not keep apart. */
function checkDestinations(assets: readonly Asset[]): void {
  const bound = new Map<Destination, Asset[]>();
  for (const asset of assets) {
    for (const destination of new Set(asset.destinations)) {
      if (destination.checkAssets) bound.set(destination, [...(bound.get(destination) ?? []), asset]);
    }
  }
  for (const [destination, owners] of bound) destination.checkAssets!(owners.map((asset) => asset.ref));
}
