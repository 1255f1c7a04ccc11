import { lockOf } from "../asset/asset-lock.js";
import type { DropTarget } from "../destination/index.js";
import { ConfigError } from "../errors.js";
import { materializePlan, type MaterializeOptions, type MaterializeOutcome } from "./materialize.js";
import { planMaterialize, type Plan } from "./plan.js";
import type { Project } from "./project.js";
import { refreshScope } from "./refresh-scope.js";

/** What one destination of one selected asset would drop in a full refresh. */
export interface FullRefreshTarget extends DropTarget {
  /** The asset's qualified key. */
  readonly asset: string;
  /** The destination's name on the asset. */
  readonly destinationKey: string;
  /** The destination's display name. */
  readonly destination: string;
}

/** What `fullRefresh` did: what it dropped, then the materialize of the window. */
export interface FullRefreshOutcome extends MaterializeOutcome {
  readonly dropped: readonly FullRefreshTarget[];
}

/**
 * A full refresh rebuilds whole assets: a window narrowed to some of its partitions (`only`,
 * as `--missing` computes them, or a shard of a backfill) would drop every partition and
 * rebuild a few.
 */
export function checkFullRefreshOptions(options: { readonly only?: unknown; readonly shard?: unknown }): void {
  if (options.only)
    throw new ConfigError((o) => `${o("fullRefresh")} drops whole assets and rebuilds the window: it cannot be combined with ${o("only")}`);
  if (options.shard)
    throw new ConfigError(
      (o) =>
        `${o("fullRefresh")} drops whole assets and rebuilds the window: it cannot be combined with ${o("shard")} (every shard would drop what the others wrote)`,
    );
}

/**
 * What a full refresh of the plan's assets would drop: one target per destination of each
 * selected asset (upstream assets the plan only reads are not in it). Every destination is
 * checked first: one that cannot drop is a ConfigError naming it and the hook to implement.
 */
export async function fullRefreshTargets(plan: Plan): Promise<FullRefreshTarget[]> {
  for (const asset of plan.assets) {
    asset.destinations.forEach((destination, i) => {
      const missing = destination.missingDropHook();
      if (missing !== null) {
        throw new ConfigError(
          (o) =>
            `destination "${asset.destinationKeys[i]}" (${destination.displayName}) of asset "${asset.qualifiedKey}" cannot drop data for ${o("fullRefresh")}: implement ${missing}`,
        );
      }
    });
  }
  const targets: FullRefreshTarget[] = [];
  for (const asset of plan.assets) {
    for (const [i, destination] of asset.destinations.entries()) {
      const drop = await destination.describeDrop(asset.ioContext(null, null));
      targets.push({ asset: asset.qualifiedKey, destinationKey: asset.destinationKeys[i]!, destination: destination.displayName, ...drop });
    }
  }
  return targets;
}

/**
 * Drops everything each destination holds of each of the plan's assets, one after another, each
 * asset under its exclusive lock (see AssetLock): writes of it under way end first, new ones wait
 * for the drop; when they do not end in time, an InterloperError names the writer and nothing is
 * dropped.
 */
export async function dropPlannedAssets(plan: Plan): Promise<void> {
  // Every asset's lock is taken before anything is dropped: a refusal drops nothing at all.
  const dropAll = async () => {
    for (const asset of plan.assets) {
      for (const destination of asset.destinations) await destination.dropAsset!(asset.ioContext(null, null));
    }
  };
  await plan.assets.reduceRight<() => Promise<void>>((inner, asset) => () => lockOf(asset).dropping(inner), dropAll)();
}

/**
 * `materialize` from scratch: each destination of the selected assets drops what it holds of
 * them (a folder, a table, a prefix of objects), then the window is rebuilt, with every stored
 * partition outside it (see `refreshScope`): nothing dropped is left unbuilt. The way out of a
 * schema change. Nothing is dropped when the plan is refused or a destination cannot drop.
 */
export async function fullRefresh(project: Project, options: MaterializeOptions = {}): Promise<FullRefreshOutcome> {
  checkFullRefreshOptions(options);
  const plan = planMaterialize(project, options);
  const dropped = await fullRefreshTargets(plan);
  const scope = await refreshScope(plan, options);
  // Planned before the drop: a rebuild that cannot be planned drops nothing.
  const rebuild = scope.widenedFrom ? planMaterialize(project, scope.options) : plan;
  await dropPlannedAssets(plan);
  return { ...(await materializePlan(project, rebuild, options)), dropped };
}
