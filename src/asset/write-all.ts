// Writing an execution's conformed table to every destination, after its checks passed.
import { AssetError, DestinationWriteError } from "../errors.js";
import type { PartitionWindow } from "../partitioning/index.js";
import type { RunMetadata } from "../destination/index.js";
import type { Asset } from "./asset.js";
import { underWriteLock } from "./asset-lock.js";
import type { Conformed } from "./conform-data.js";
import { errorInfo, type LogLevel } from "./events.js";
import type { EventScope, Execution, ExecuteOptions } from "./execute.js";
import type { ExecutionChecks } from "./run-checks.js";
import { subject } from "../text/english.js";

/** Writes conformed data to every destination; the error of a failure says which ones hold it. */
export async function writeAll(
  asset: Asset,
  window: PartitionWindow | null,
  conformed: Conformed,
  options: ExecuteOptions,
  base: EventScope,
  metadata: RunMetadata,
  checks: ExecutionChecks | null,
): Promise<Execution> {
  const now = () => new Date().toISOString();
  const log = (level: LogLevel, message: string) => options.emit({ ...base, type: "log", time: now(), level, message });
  if (asset.destinations.length === 0) {
    throw new AssetError(`asset "${asset.qualifiedKey}" has no destination to write to: set destinations on the asset or its source`);
  }
  // Every check is judged before anything is written: a failed error check leaves each
  // destination as it was (and throws here).
  if (checks) {
    checks.addData(conformed.data);
    const settled = checks.settle();
    if (settled) await settled;
  }
  // Destinations report through the run's events: a warning of one is a `log` event of the asset.
  const io = asset.ioContext(window, conformed.schema, metadata, log);
  // The last destination is handed the data rather than given it while it is still held here:
  // V8 keeps an async function's variables alive across await, and a destination done with the
  // rows before its I/O (CSVDestination, once they are encoded) would otherwise keep every
  // partition in flight alive until its write completes.
  const handed = [conformed.data];
  const { schema, rows } = conformed;
  conformed = { data: null, schema, rows, warnings: [] };
  const written: string[] = [];
  const failed: Array<[string, unknown]> = [];
  // With several destinations, one that cannot take this data (a column whose type changed)
  // refuses it before any writes: none is left holding new data the others lack. (Alone, a
  // destination's own write refuses it.)
  for (const [index, destination] of asset.destinations.length > 1 ? asset.destinations.entries() : []) {
    await destination.checkWrite(io).catch((error: unknown) => failed.push([asset.destinationKeys[index]!, error]));
  }
  if (failed.length > 0) throw writeError(asset, failed, written);
  // Every destination gets the data even when an earlier one failed, so the result can say
  // exactly which destinations hold the new data. Under the asset's lock (see asset-lock.ts).
  // The function given to it never names `conformed`: a parameter a closure captures keeps its
  // first value (the rows) in the suspended frame, whatever is assigned to it since.
  await underWriteLock(asset, window, async () => {
    for (const [index, destination] of asset.destinations.entries()) {
      options.abandoned?.throwIfAborted();
      if (options.beforeWrite) await askBeforeWrite(options.beforeWrite, options.abandoned);
      const name = asset.destinationKeys[index]!;
      const started = Date.now();
      options.emit({ ...base, type: "destination:write:started", time: now(), destination: name });
      try {
        await destination.write(io, index === asset.destinations.length - 1 ? handed.pop() : handed[0]);
        written.push(name);
        options.emit({
          ...base,
          type: "destination:write:completed",
          time: now(),
          destination: name,
          rows,
          durationMs: Date.now() - started,
        });
      } catch (error) {
        failed.push([name, error]);
        options.emit({ ...base, type: "destination:write:failed", time: now(), destination: name, error: errorInfo(error) });
      }
    }
  });
  if (failed.length > 0) throw writeError(asset, failed, written);
  return { ...conformed, written, failedDestinations: [] };
}

/** The failure of a write to some destinations: which failed (the first one's reason), and which hold the new data. */
function writeError(asset: Asset, failed: ReadonlyArray<[string, unknown]>, written: readonly string[]): DestinationWriteError {
  const [name, first] = failed[0]!;
  const held = written.length > 0 ? `; ${subject(written, "holds", "hold")} the new data` : "";
  return new DestinationWriteError(
    `asset "${asset.qualifiedKey}": writing to ${failed.map(([n]) => n).join(", ")} failed (${name}: ${(first as Error)?.message ?? String(first)})${held}`,
    { cause: first, written: [...written], failedDestinations: failed.map(([n]) => n) },
  );
}

/**
 * The caller's check before a write; the run may have given up on the execution meanwhile. Only
 * awaited when there is a check: rows go on to the destination in the turn they were returned.
 */
export async function askBeforeWrite(beforeWrite: () => Promise<void>, abandoned: AbortSignal | undefined): Promise<void> {
  await beforeWrite();
  abandoned?.throwIfAborted();
}
