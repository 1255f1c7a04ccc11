import { randomUUID } from "node:crypto";
import { AssetError, DestinationWriteError, InterloperError, SchemaError } from "../errors.js";
import type { Partition, PartitionWindow } from "../partitioning/index.js";
import { mergeInferred, type FieldSpec } from "../schema/index.js";
import type { RunMetadata } from "../destination/index.js";
import type { Asset } from "./asset.js";
import { underWriteLock } from "./asset-lock.js";
import { askBeforeWrite, writeAll } from "./write-all.js";
import { ExecutionChecks } from "./run-checks.js";
import { assetWindowOf } from "./asset-window.js";
import { resolveWithinSource, type Dependency } from "./dependencies.js";
import { writeStream } from "../destination/stream/write-stream.js";
import { collectRows, isRowStream, type RowStream } from "../representation/index.js";
import { conformData } from "./conform-data.js";
import { conformStream } from "./conform-stream.js";
import { deliverTo, errorInfo, type AssetEvent, type LogLevel } from "./events.js";
import { ExecutionContext } from "./execution-context.js";
import { readDependencies } from "./read-dependencies.js";
import { provenanceDraft } from "./provenance-draft.js";

/** How one asset execution is wired into its run. */
export interface ExecuteOptions {
  readonly runId: string;
  readonly backfillId?: string;
  /** Whether to write the data to every destination (materialize) or only return it (run). */
  readonly write: boolean;
  readonly emit: (event: AssetEvent) => void;
  /** A declared dependency, resolved: its upstream asset (undefined when an optional one is absent), mapping and edge check. */
  readonly resolve: (asset: Asset, name: string) => Dependency;
  /** Schemas inferred earlier in the run, so upstream reads come back typed. */
  readonly schemas: Map<string, readonly FieldSpec[] | null>;
  readonly signal?: AbortSignal;
  /**
   * Aborted once the runner gave up on this execution (a timeout, the grace after an
   * interrupt): no destination write starts after that, so a late result is never stored.
   */
  readonly abandoned?: AbortSignal;
  /**
   * Awaited before each destination write; a rejection fails the asset with nothing written.
   * A queue worker checks there that it still holds its job (see queue/worker.ts).
   */
  readonly beforeWrite?: () => Promise<void>;
}

/** The fields every event of one execution shares. */
export interface EventScope {
  readonly runId: string;
  readonly backfillId?: string;
  readonly partition?: string;
  readonly asset: string;
}

/** What an execution produced. */
export interface Execution {
  readonly data: unknown;
  readonly schema: readonly FieldSpec[] | null;
  readonly rows: number | null;
  /** Destination keys that now hold this run's data, and those whose write failed. */
  readonly written: readonly string[];
  readonly failedDestinations: readonly string[];
}

/** Runs one asset over a window: read dependencies, run, conform, write to every destination. */
export async function executeAsset(
  asset: Asset,
  partitionOrWindow: PartitionWindow | Partition | null,
  partial: Partial<ExecuteOptions>,
): Promise<Execution> {
  const options = withDefaults(partial);
  const window = assetWindowOf(asset, partitionOrWindow);
  const base: EventScope = {
    runId: options.runId,
    ...(options.backfillId ? { backfillId: options.backfillId } : {}),
    ...(window ? { partition: String(window) } : {}),
    asset: asset.qualifiedKey,
  };
  const now = () => new Date().toISOString();
  const log = (level: LogLevel, message: string) => options.emit({ ...base, type: "log", time: now(), level, message });

  const startedAt = now();
  const { values: dependencies, reads } = await readDependencies(asset, window, options, base);
  // Checks run on what is about to be written: not for `run()`, which writes nothing.
  const checks = options.write && asset.checks.length > 0 ? new ExecutionChecks(asset, window, { emit: options.emit, base }) : null;
  const draft = provenanceDraft(asset, window, reads, startedAt);
  const metadata: RunMetadata = {
    runId: options.runId,
    ...(options.backfillId ? { backfillId: options.backfillId } : {}),
    provenance: checks ? { ...draft, checks: (partition) => checks.resultsOf(partition) } : draft,
  };
  const context = new ExecutionContext({
    asset,
    window,
    runId: options.runId,
    backfillId: options.backfillId,
    log,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  let output: unknown;
  try {
    output = asset.definition.run(context, dependencies);
    // Rows returned as they are go on to conform and to the destination in the same turn: an
    // await here would let the other partitions in flight run their assets first, and all
    // their rows would be alive at once.
    if (isThenable(output)) output = await output;
  } catch (error) {
    if (error instanceof InterloperError) throw error;
    throw new AssetError(
      `asset "${asset.qualifiedKey}" failed${window ? ` for ${String(window)}` : ""}: ${(error as Error)?.message ?? String(error)}`,
      { cause: error },
    );
  }
  if (isRowStream(output)) return writeStreamed(asset, window, output, options, base, metadata, log, checks);
  const conformed = conformData(asset, output);
  for (const warning of conformed.warnings) log("warn", warning);
  remember(options, asset, conformed.schema);
  if (!options.write) return { ...conformed, written: [], failedDestinations: [] };
  return writeAll(asset, window, conformed, options, base, metadata, checks);
}

/**
 * A streamed output: conformed batch by batch and written as it arrives when the asset has one
 * destination; with several, or for `run()`, it is collected first (a stream is read once).
 */
async function writeStreamed(
  asset: Asset,
  window: PartitionWindow | null,
  output: RowStream,
  options: ExecuteOptions,
  base: EventScope,
  metadata: RunMetadata,
  log: (level: LogLevel, message: string) => void,
  checks: ExecutionChecks | null,
): Promise<Execution> {
  const stream = await conformStream(asset, output);
  const batches = options.abandoned ? untilAbandoned(stream.batches, options.abandoned) : stream.batches;
  remember(options, asset, stream.schema);
  if (!options.write || asset.destinations.length !== 1) {
    const rows = await collectRows(batches);
    for (const warning of stream.warnings) log("warn", warning);
    if (!options.write) return { data: rows, schema: stream.schema, rows: rows.length, written: [], failedDestinations: [] };
    return writeAll(asset, window, { data: rows, schema: stream.schema, rows: rows.length, warnings: [] }, options, base, metadata, checks);
  }
  const name = asset.destinationKeys[0]!;
  const started = Date.now();
  const now = () => new Date().toISOString();
  options.abandoned?.throwIfAborted();
  if (options.beforeWrite) await askBeforeWrite(options.beforeWrite, options.abandoned);
  options.emit({ ...base, type: "destination:write:started", time: now(), destination: name });
  try {
    await underWriteLock(asset, window, () =>
      writeStream(
        asset.destinations[0]!,
        asset.ioContext(window, stream.schema, metadata, log),
        checks ? checks.through(batches, options.abandoned) : batches,
      ),
    );
  } catch (error) {
    // A failed error check ended the stream before it did: each destination discarded what it staged.
    if (checks?.failure) throw checks.failure;
    // Data that contradicts its schema is the asset's failure, as with an array; nothing was replaced.
    if (error instanceof SchemaError) throw error;
    options.emit({ ...base, type: "destination:write:failed", time: now(), destination: name, error: errorInfo(error) });
    throw new DestinationWriteError(
      `asset "${asset.qualifiedKey}": writing to ${name} failed: ${(error as Error)?.message ?? String(error)}`,
      { cause: error, written: [], failedDestinations: [name] },
    );
  }
  // A stream's inferred schema may have widened while rows arrived: downstream reads get the final one.
  remember(options, asset, [...stream.schema]);
  for (const warning of stream.warnings) log("warn", warning);
  options.emit({
    ...base,
    type: "destination:write:completed",
    time: now(),
    destination: name,
    rows: stream.rows(),
    durationMs: Date.now() - started,
  });
  return { data: null, schema: stream.schema, rows: stream.rows(), written: [name], failedDestinations: [] };
}

/**
 * Keeps the schema of an asset's data for the downstream reads of this run: merged with the
 * one its other partitions were inferred with, so a window of them reads back whole.
 */
function remember(options: ExecuteOptions, asset: Asset, schema: readonly FieldSpec[] | null): void {
  options.schemas.set(asset.qualifiedKey, asset.schema ? schema : mergeInferred(options.schemas.get(asset.qualifiedKey), schema));
}

function withDefaults(partial: Partial<ExecuteOptions>): ExecuteOptions {
  return {
    runId: partial.runId ?? randomUUID(),
    write: partial.write ?? false,
    emit: partial.emit ?? deliverTo<AssetEvent>(),
    resolve: partial.resolve ?? resolveWithinSource,
    schemas: partial.schemas ?? new Map(),
    ...(partial.backfillId ? { backfillId: partial.backfillId } : {}),
    ...(partial.signal ? { signal: partial.signal } : {}),
    ...(partial.abandoned ? { abandoned: partial.abandoned } : {}),
    ...(partial.beforeWrite ? { beforeWrite: partial.beforeWrite } : {}),
  };
}

/**
 * A stream's batches, ending in an error once the execution is abandoned: the destination's
 * writer then discards what it had (an atomic write never replaces the partition).
 */
async function* untilAbandoned<T>(batches: AsyncIterable<T>, abandoned: AbortSignal): AsyncGenerator<T> {
  for await (const batch of batches) {
    abandoned.throwIfAborted();
    yield batch;
  }
  abandoned.throwIfAborted();
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}
