// Filling a destination from another that holds the data (`materialize --missing --from`): each
// partition one destination of an asset lacks is read from the named one and written with the
// record it has there, kept as it is. Nothing runs, so no source is pulled again, and what read
// the partition stays fresh: its record names the same write in every destination.
import type { Asset } from "../asset/asset.js";
import { underWriteLock } from "../asset/asset-lock.js";
import { conformData } from "../asset/conform-data.js";
import { recordsOf } from "../asset/provenance-draft.js";
import type { Destination, RunMetadata } from "../destination/index.js";
import type { Materialization } from "../destination/provenance/materialization.js";
import { ConfigError } from "../errors.js";
import { packageVersion } from "../package-root.js";
import { missingCoverage, type MissingOptions } from "./missing.js";
import type { PlanOptions } from "./plan.js";
import type { Project } from "./project.js";

/** One partition to copy: where it is missing. */
export interface PartitionCopy {
  /** The asset's qualified key. */
  readonly asset: string;
  readonly partition: string;
  /** The destinations that lack it, by their keys on the asset. */
  readonly to: readonly string[];
}

/** A missing partition the copy leaves as it is, and why (the source lacks it too, or holds it without a record). */
export interface UncopiedPartition {
  readonly asset: string;
  readonly partition: string;
  readonly reason: string;
}

/** What a copy does, before anything is written. */
export interface CopyPlan {
  /** The destination copied from, by its key on the assets. */
  readonly from: string;
  readonly copies: readonly PartitionCopy[];
  readonly uncopied: readonly UncopiedPartition[];
}

/** One partition copied, as `runCopy` reports it. */
export interface CopiedPartition extends PartitionCopy {
  /** Rows written to each destination; null for a value that is not a table. */
  readonly rows: number | null;
}

/**
 * The partitions coverage reports missing from some destination of each selected asset but held
 * by `from`, within the window or else the whole expected range (as `--missing` reads it).
 * ConfigError when a selected asset has no destination named `from`.
 */
export async function planCopy(project: Project, options: PlanOptions, missing: MissingOptions, from: string): Promise<CopyPlan> {
  const { assets, covered, coverages } = await missingCoverage(project, options, missing);
  const without = assets.filter((asset) => !asset.destinationKeys.includes(from));
  if (without.length > 0) {
    const asset = without[0]!;
    throw new ConfigError(
      `--from "${from}": asset "${asset.qualifiedKey}" has no such destination (expected one of: ${asset.destinationKeys.join(", ") || "none"})${without.length > 1 ? `, nor ${without.length - 1} other selected asset(s)` : ""}: select the assets that have it`,
    );
  }
  const copies: PartitionCopy[] = [];
  const uncopied: UncopiedPartition[] = [];
  for (const [index, coverage] of coverages.entries()) {
    const asset = covered[index]!;
    const source = sourceOf(asset, from);
    const lacking = coverage.partitions.filter((p) => p.status === "missing");
    const records = lacking.length > 0 ? await recordsOf(source, asset.ioContext(null)) : {};
    for (const { key, missingIn } of lacking) {
      const to = missingIn ?? asset.destinationKeys;
      const reason = to.includes(from)
        ? `${from} lacks it too`
        : records[key] === undefined
          ? `${from} holds it without a record of how it was made: rebuild it to know its provenance`
          : null;
      if (reason) uncopied.push({ asset: asset.qualifiedKey, partition: key, reason });
      else copies.push({ asset: asset.qualifiedKey, partition: key, to });
    }
  }
  return { from, copies, uncopied };
}

/**
 * Copies each partition of the plan, one after the other, each under its asset's write lock:
 * read from the plan's source in the asset's schema, written to each destination lacking it
 * with the source's record. A failure stops the copy; what was copied before it stays.
 */
export async function runCopy(project: Project, plan: CopyPlan, onCopied?: (copied: CopiedPartition) => void): Promise<CopiedPartition[]> {
  const done: CopiedPartition[] = [];
  for (const copy of plan.copies) {
    const asset = project.dag.find(copy.asset)!;
    const rows = await copyPartition(asset, copy, sourceOf(asset, plan.from), plan.from);
    const copied = { ...copy, rows };
    done.push(copied);
    onCopied?.(copied);
  }
  return done;
}

/** Copies one partition; the rows written. */
async function copyPartition(asset: Asset, copy: PartitionCopy, source: Destination, from: string): Promise<number | null> {
  const window = asset.partitioning!.check(asset.partitioning!.partition(copy.partition), asset.qualifiedKey);
  return underWriteLock(asset, window, async () => {
    const read = asset.ioContext(window);
    // Read again under the lock: a run may have written the partition since the plan was made.
    const record = (await recordsOf(source, read))[copy.partition];
    if (!record) throw new ConfigError(`asset "${asset.qualifiedKey}" ${copy.partition}: ${from} no longer holds a record of it`);
    const conformed = conformData(asset, await source.read(read));
    const metadata: RunMetadata = {
      runId: record.runId,
      ...(record.backfillId !== null ? { backfillId: record.backfillId } : {}),
      provenance: keptDraft(record),
    };
    const write = asset.ioContext(window, conformed.schema, metadata);
    for (const name of copy.to) await sourceOf(asset, name).write(write, conformed.data);
    return conformed.rows;
  });
}

/** A draft whose one record is the one kept: every destination is given it as it is. */
function keptDraft(record: Materialization) {
  return {
    startedAt: record.startedAt,
    codeVersion: record.codeVersion,
    interloperVersion: packageVersion(),
    upstream: () => record.upstream,
    kept: () => record,
  };
}

/** The destination of `asset` keyed `name` (a key checked by planCopy). */
function sourceOf(asset: Asset, name: string): Destination {
  return asset.destinations[asset.destinationKeys.indexOf(name)]!;
}
