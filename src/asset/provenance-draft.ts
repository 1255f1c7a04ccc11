// What a run records of where a write's data came from (see destination/provenance): for each
// upstream partition a partition of this asset reads, the id of the upstream materialization
// stored when the run read it. The ids are looked up before the data is read: should the upstream
// be written again in between, the record names the older write, and the partition reads as
// stale, which a rebuild cures; the other order could call fresh what was built from old data.
import type { Destination, IOContext } from "../destination/index.js";
import type { Materialization, ProvenanceDraft, UpstreamRead } from "../destination/provenance/materialization.js";
import { upstreamWindow, type PartitionWindow } from "../partitioning/index.js";
import { packageVersion } from "../package-root.js";
import type { Asset } from "./asset.js";
import type { Dependency } from "./dependencies.js";
import { ownEntry } from "../keyed.js";

/** One dependency as read: the upstream asset, how it maps, and its records over the window read. */
export interface UpstreamRecords {
  readonly upstream: Asset;
  readonly dependency: Dependency;
  /** The current record of each upstream partition read, by key ("" for an unpartitioned upstream). */
  readonly records: Readonly<Record<string, Materialization>>;
}

/** The records of what `context` names in a destination; none when it keeps no provenance. */
export async function recordsOf(destination: Destination, context: IOContext): Promise<Record<string, Materialization>> {
  return destination.materializations ? await destination.materializations(context) : {};
}

/** The draft of the writes of one execution of `asset` over `window`, which started at `startedAt`. */
export function provenanceDraft(
  asset: Asset,
  window: PartitionWindow | null,
  reads: readonly UpstreamRecords[],
  startedAt: string,
): ProvenanceDraft {
  const byPartition = new Map<string | null, readonly UpstreamRead[]>();
  // The window's partitions by key, made once: a window of a year is written partition by partition.
  let partitions: Map<string, PartitionWindow> | undefined;
  const upstream = (key: string | null): readonly UpstreamRead[] => {
    if (reads.length === 0) return [];
    let found = byPartition.get(key);
    if (!found) {
      partitions ??= new Map((window?.partitions ?? []).map((p) => [p.key, p.window]));
      const own = key === null ? null : (partitions.get(key) ?? null);
      found = reads.flatMap((read) => upstreamReads(read, own));
      byPartition.set(key, found);
    }
    return found;
  };
  return {
    startedAt,
    codeVersion: asset.definition.codeVersion,
    interloperVersion: packageVersion(),
    upstream,
    inferredSchema: asset.schema === null,
  };
}

/** The upstream partitions one partition (`own`: its window of one; null: unpartitioned) reads through a dependency. */
function upstreamReads(read: UpstreamRecords, own: PartitionWindow | null): UpstreamRead[] {
  const asset = read.upstream.qualifiedKey;
  const idOf = (key: string) => ownEntry(read.records, key)?.id ?? null;
  if (!read.upstream.partitioning) return [{ asset, partition: null, materialization: idOf("") }];
  return upstreamKeys(read.upstream, read.dependency, own, read.records).map((key) => ({
    asset,
    partition: key,
    materialization: idOf(key),
  }));
}

/**
 * The keys of the upstream partitions one partition (`own`: its window of one; null:
 * unpartitioned) reads through a dependency ("" for an unpartitioned upstream), given the
 * upstream's current records: what a write records it read, and what staleness expects it reads now.
 */
export function upstreamKeys(
  upstream: Asset,
  dependency: Pick<Dependency, "mapping">,
  own: PartitionWindow | null,
  records: Readonly<Record<string, Materialization>>,
): readonly string[] {
  if (!upstream.partitioning) return [""];
  const scope = upstreamWindow(upstream.partitioning, own, dependency.mapping);
  // An unpartitioned asset reading a time-partitioned one reads what is stored: every record.
  return scope ? scope.keys : Object.keys(records);
}
