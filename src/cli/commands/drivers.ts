import type { Asset } from "../../asset/asset.js";
import type { AssetGraph } from "../../asset/dependencies.js";
import type { Destination } from "../../destination/destination.js";
import { reasonOf } from "../../destination/unreadable.js";

/**
 * One line per destination whose optional packages (drivers, SDKs, a format's libraries) do not
 * load: each is loaded once, connecting to nothing. A destination shared by several assets is
 * named by the first key it has.
 */
export async function driverProblems(assets: readonly Asset[]): Promise<string[]> {
  const named = new Map<Destination, string>();
  for (const asset of assets) asset.destinations.forEach((d, i) => named.set(d, named.get(d) ?? asset.destinationKeys[i]!));
  const problems: string[] = [];
  for (const [destination, key] of named) {
    try {
      await destination.loadDrivers();
    } catch (error) {
      problems.push(`destination "${key}" (${destination.displayName}): ${reasonOf(error)}`);
    }
  }
  return problems;
}

/** The assets a run of `selected` touches: each one, and the upstream assets it reads. */
export function assetsRead(graph: AssetGraph, selected: readonly Asset[]): Asset[] {
  const touched = new Set<Asset>(selected);
  for (const asset of selected) for (const dependency of graph.dependencies(asset)) if (dependency.asset) touched.add(dependency.asset);
  return [...touched];
}
