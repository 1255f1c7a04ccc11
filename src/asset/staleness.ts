// Which stored partitions are out of date, from the records their writes left (see
// destination/provenance): a partition is stale when an upstream partition it read has been
// materialized again since, when an upstream partition it should have read exists now but did
// not when it was built, when its asset's codeVersion is not the one it was built with, or when
// the asset's destinations hold different writes of it. A partition without a record (its
// provenance unknown) is never stale, and an upstream without records never makes one stale.
import type { Destination } from "../destination/destination.js";
import { orderedCounts } from "../destination/row-count.js";
import type { Materialization } from "../destination/provenance/materialization.js";
import type { PartitionWindow } from "../partitioning/index.js";
import type { Asset } from "./asset.js";
import { ownEntry } from "../keyed.js";

/** The reasons each stale partition is stale, by key ("" for an unpartitioned asset); fresh ones are absent. */
export type Staleness = Record<string, string[]>;

/** An asset's current records by partition key, from a destination. */
export type Records = Readonly<Record<string, Materialization>>;

/** What the rules compare: the records of one asset in each destination, and the current records of its upstreams. */
export interface StalenessInput {
  /** The asset's records, per destination, by its key on the asset; the first is the one read. */
  readonly own: ReadonlyArray<{ readonly destination: string; readonly records: Records }>;
  /** The current records of each upstream asset read (its first destination), by qualified key. */
  readonly upstream: ReadonlyMap<string, Records>;
  /** The asset's codeVersion now. */
  readonly codeVersion: string | null;
}

/** The stale partitions of one asset and why (the pure rules). */
export function staleness(input: StalenessInput): Staleness {
  const found: Staleness = Object.create(null);
  const add = (key: string, reason: string) => (found[key] ??= []).push(reason);
  const [first, ...others] = input.own;
  if (!first) return found;
  for (const [index, { destination, records }] of input.own.entries()) {
    // A secondary destination's reasons say where: the partition is read from the first.
    const where = index === 0 || input.own.length === 1 ? "" : `in ${destination}: `;
    for (const [key, record] of Object.entries(records)) {
      for (const reason of recordReasons(record, input)) add(key, where + reason);
    }
  }
  for (const { destination, records } of others) {
    for (const [key, record] of Object.entries(first.records)) {
      const other = ownEntry(records, key);
      if (other && other.runId !== record.runId)
        add(
          key,
          `${destination} holds another write (run ${short(other.runId)}, ${time(other.endedAt)}) than ${first.destination} (run ${short(record.runId)}, ${time(record.endedAt)})`,
        );
    }
  }
  return found;
}

/** Why one record is out of date, if it is. */
function recordReasons(record: Materialization, input: StalenessInput): string[] {
  const reasons: string[] = [];
  if (record.codeVersion !== input.codeVersion)
    reasons.push(`code version changed: ${shown(record.codeVersion)} when built, ${shown(input.codeVersion)} now`);
  for (const read of record.upstream) {
    const upstream = input.upstream.get(read.asset);
    const current = upstream && ownEntry(upstream, read.partition ?? "");
    if (!current) continue;
    const what = `${read.asset}${read.partition !== null ? ` ${read.partition}` : ""}`;
    if (read.materialization !== null) {
      if (current.id !== read.materialization) reasons.push(`${what} was materialized again at ${time(current.endedAt)}`);
    } else if (current.endedAt > record.startedAt) {
      reasons.push(`${what} exists now but did not when this was built`);
    }
  }
  return reasons;
}

const short = (id: string) => id.slice(0, 8);
const shown = (version: string | null) => (version === null ? "none" : `"${version}"`);
const time = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

/** Each asset's current records from its first destination, read once per staleness computation. */
export class RecordCache {
  readonly #records = new Map<string, Promise<Records>>();

  /**
   * Takes the records of every stored partition of `asset` that its first destination gave while
   * counting (see `PartitionCounts.records`), so that they are not read again.
   */
  seed(asset: Asset, records: Records): void {
    if (!this.#records.has(asset.qualifiedKey)) this.#records.set(asset.qualifiedKey, Promise.resolve(records));
  }

  /** The current records of every stored partition of `asset` (none when its destination keeps none). */
  of(asset: Asset): Promise<Records> {
    let found = this.#records.get(asset.qualifiedKey);
    if (!found) {
      found = asset.primaryDestination ? recordsIn(asset.primaryDestination, asset, null) : Promise.resolve({});
      this.#records.set(asset.qualifiedKey, found);
    }
    return found;
  }
}

/** The records of the partitions of a window (all of them for null). */
function within(records: Records, window: PartitionWindow | null): Records {
  if (!window) return records;
  const found: Record<string, Materialization> = Object.create(null);
  for (const key of window.keys) if (Object.hasOwn(records, key)) found[key] = records[key]!;
  return found;
}

/** A destination's records of an asset over a window (null: every stored partition). */
export async function recordsIn(destination: Destination, asset: Asset, window: PartitionWindow | null): Promise<Records> {
  if (!destination.materializations) return {};
  return destination.materializations(asset.ioContext(asset.partitioning ? window : null));
}

/**
 * The stale partitions of an asset over a window (every stored partition when null), with
 * `upstream` its upstream assets (those it reads now) and their records read through `cache`.
 */
export async function assetStaleness(
  asset: Asset,
  window: PartitionWindow | null,
  upstream: readonly Asset[],
  cache: RecordCache = new RecordCache(),
): Promise<Staleness> {
  // The first destination's records come through the cache: an asset whose coverage is asked is
  // often the upstream of another asked with it (a day read by its week), and is read once.
  const own = await Promise.all(
    asset.destinations.map(async (destination, i) => ({
      destination: asset.destinationKeys[i]!,
      records: i === 0 ? within(await cache.of(asset), window) : await recordsIn(destination, asset, window),
    })),
  );
  const records = new Map<string, Records>();
  for (const found of upstream) records.set(found.qualifiedKey, await cache.of(found));
  const found = staleness({ own, upstream: records, codeVersion: asset.definition.codeVersion });
  return orderedCounts(Object.entries(found), asset.partitioning);
}
