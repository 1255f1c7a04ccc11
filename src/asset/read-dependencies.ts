// Reading what an asset execution requires: each dependency's upstream window through its
// mapping, read from the upstream's first destination, with the read events of the run.
import { ConfigError, DataNotFoundError, DependencyNotFoundError, PartitionError } from "../errors.js";
import { upstreamWindow, type PartitionWindow } from "../partitioning/index.js";
import { rowCountOf } from "../destination/row-count.js";
import type { Asset } from "./asset.js";
import type { Dependency } from "./dependencies.js";
import { errorInfo, type LogLevel } from "./events.js";
import type { EventScope, ExecuteOptions } from "./execute.js";
import { delivered } from "./upstream.js";
import { recordsOf, type UpstreamRecords } from "./provenance-draft.js";

/** The values of an asset's dependencies, and the upstream records their reads began from. */
export interface DependencyValues {
  /** By parameter name (undefined for an absent optional one). */
  readonly values: Record<string, unknown>;
  readonly reads: readonly UpstreamRecords[];
}

/**
 * The values of an asset's declared dependencies, each read from its upstream's first destination,
 * with the records of what was read (see provenance-draft.ts), looked up just before each read.
 */
export async function readDependencies(
  asset: Asset,
  window: PartitionWindow | null,
  options: ExecuteOptions,
  base: EventScope,
): Promise<DependencyValues> {
  const values: Record<string, unknown> = {};
  const reads: UpstreamRecords[] = [];
  const declared = [...Object.keys(asset.definition.requires), ...Object.keys(asset.definition.optionalRequires)];
  for (const name of declared) {
    const dependency = options.resolve(asset, name);
    const upstream = dependency.asset;
    if (!upstream) {
      if (dependency.optional) {
        values[name] = undefined;
        continue;
      }
      throw new DependencyNotFoundError(`asset "${asset.qualifiedKey}" requires "${name}", which is not available`);
    }
    const destination = upstream.requireDestination("read from");
    const name0 = upstream.destinationKeys[0]!;
    const scope = upstreamScope(asset, upstream, dependency, window);
    const schema = upstream.schema ?? options.schemas.get(upstream.qualifiedKey) ?? null;
    const started = Date.now();
    const event = { ...base, asset: asset.qualifiedKey, destination: `${upstream.qualifiedKey}@${name0}` };
    options.emit({ ...event, type: "destination:read:started", time: new Date().toISOString() });
    try {
      const metadata = { runId: options.runId, ...(options.backfillId ? { backfillId: options.backfillId } : {}) };
      const log = (level: LogLevel, message: string) =>
        options.emit({ ...base, type: "log", time: new Date().toISOString(), level, message });
      const context = upstream.ioContext(scope, schema, metadata, log);
      reads.push({ upstream, dependency, records: await recordsOf(destination, context) });
      values[name] = delivered(asset, upstream, dependency, await destination.read(context));
    } catch (error) {
      options.emit({ ...event, type: "destination:read:failed", time: new Date().toISOString(), error: errorInfo(error) });
      // Say which upstream lacks data: the destination only knows its own asset.
      if (error instanceof DataNotFoundError) {
        throw new DataNotFoundError(
          `asset "${asset.qualifiedKey}" needs "${upstream.qualifiedKey}"${scope ? ` for ${String(scope)}` : ""}, which was not materialized: ${error.message}`,
          { cause: error },
        );
      }
      throw error;
    }
    options.emit({
      ...event,
      type: "destination:read:completed",
      time: new Date().toISOString(),
      rows: rowCountOf(values[name]),
      durationMs: Date.now() - started,
    });
  }
  return { values, reads };
}

/** The upstream window this run reads through the dependency's mapping; ConfigError for an edge that cannot be read. */
function upstreamScope(asset: Asset, upstream: Asset, dependency: Dependency, window: PartitionWindow | null): PartitionWindow | null {
  if (dependency.problem) throw new ConfigError(dependency.problem);
  try {
    return upstreamWindow(upstream.partitioning, window, dependency.mapping);
  } catch (error) {
    if (!(error instanceof PartitionError)) throw error;
    throw new PartitionError(
      `asset "${asset.qualifiedKey}" cannot read "${upstream.qualifiedKey}" (as ${dependency.name}): ${error.message}`,
      { cause: error },
    );
  }
}
