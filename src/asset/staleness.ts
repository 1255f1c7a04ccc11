// Which stored partitions are out of date, from the records their writes left (see
// destination/provenance). A partition is stale when what a rebuild would read now differs from
// what its record says it read, or when it was made otherwise than the asset makes it now:
// - an upstream partition it read has been materialized again since;
// - an upstream partition it reads now exists (has a record) but was not read when it was built:
//   it did not exist then, or the partition reads it only now (a list value declared since, a new
//   upstream, a changed mapping);
// - an upstream partition it read is no longer read (a list value removed, an upstream renamed or
//   no longer required);
// - its asset's codeVersion is not the one it was built with (none now against one then too);
// - the asset's destinations hold different writes of it.
// A partition without a record (its provenance unknown) is never stale, and an upstream without
// records never makes one stale: only reads of writes with records count.
import type { Destination } from "../destination/destination.js";
import { orderedCounts } from "../destination/row-count.js";
import type { Materialization } from "../destination/provenance/materialization.js";
import { PartitionError } from "../errors.js";
import type { PartitionWindow } from "../partitioning/index.js";
import type { Asset } from "./asset.js";
import type { Dependency } from "./dependencies.js";
import { upstreamKeys } from "./provenance-draft.js";
import { ownEntry } from "../keyed.js";

/** The reasons each stale partition is stale, by key ("" for an unpartitioned asset); fresh ones are absent. */
export type Staleness = Record<string, string[]>;

/** An asset's current records by partition key, from a destination. */
export type Records = Readonly<Record<string, Materialization>>;

/** One upstream asset as the asset reads it now. */
export interface UpstreamNow {
  /** Its current records (its first destination's), by key ("" for an unpartitioned upstream). */
  readonly records: Records;
  /** The keys of it that the asset's partition `key` reads now; null when that cannot be told (a key no longer declared). */
  readonly keysRead: (key: string) => ReadonlySet<string> | null;
}

/** What the rules compare: the records of one asset in each destination, and the upstreams it reads now. */
export interface StalenessInput {
  /** The asset's records, per destination, by its key on the asset; the first is the one read. */
  readonly own: ReadonlyArray<{ readonly destination: string; readonly records: Records }>;
  /** Every upstream asset the asset reads now, by qualified key. */
  readonly upstream: ReadonlyMap<string, UpstreamNow>;
  /**
   * Whether `upstream` is all the asset reads (default): false when a declared upstream could
   * not be looked for, and then an upstream a record read that is not in it is no reason.
   */
  readonly complete?: boolean;
  /** The asset's codeVersion now. */
  readonly codeVersion: string | null;
}

/** The stale partitions of one asset and why (the pure rules); a reason is given once, with the destinations it concerns when not all. */
export function staleness(input: StalenessInput): Staleness {
  // Each key's reasons, each with the destinations whose record gives it, in the order found.
  const byKey = new Map<string, Map<string, string[]>>();
  const holders = new Map<string, string[]>();
  for (const { destination, records } of input.own) {
    for (const [key, record] of Object.entries(records)) {
      holders.set(key, [...(holders.get(key) ?? []), destination]);
      const reasons = byKey.get(key) ?? new Map<string, string[]>();
      for (const reason of recordReasons(key, record, input)) reasons.set(reason, [...(reasons.get(reason) ?? []), destination]);
      if (reasons.size > 0) byKey.set(key, reasons);
    }
  }
  const found: Staleness = Object.create(null);
  for (const [key, reasons] of byKey) {
    const all = holders.get(key)!.length;
    found[key] = [...reasons].map(([reason, where]) => (where.length === all ? reason : `in ${where.join(", ")}: ${reason}`));
  }
  const [first, ...others] = input.own;
  for (const { destination, records } of others) {
    for (const [key, record] of Object.entries(first!.records)) {
      const other = ownEntry(records, key);
      if (other && other.runId !== record.runId)
        (found[key] ??= []).push(
          `${destination} holds another write (run ${short(other.runId)}, ${time(other.endedAt)}) than ${first!.destination} (run ${short(record.runId)}, ${time(record.endedAt)})`,
        );
    }
  }
  return found;
}

/** Why one record (of the partition `key`) is out of date, if it is. */
function recordReasons(key: string, record: Materialization, input: StalenessInput): string[] {
  const reasons: string[] = [];
  if (record.codeVersion !== input.codeVersion)
    reasons.push(`code version changed: ${shown(record.codeVersion)} when built, ${shown(input.codeVersion)} now`);
  const readThen = readsByAsset(record);
  for (const [asset, now] of input.upstream) reasons.push(...upstreamReasons(asset, readThen.get(asset), now, key));
  if (input.complete === false) return reasons;
  for (const [asset, reads] of readThen) {
    if (!input.upstream.has(asset) && [...reads.values()].some((id) => id !== null))
      reasons.push(`${asset} was read when this was built and is no longer read`);
  }
  return reasons;
}

/** The record's reads by upstream asset: each partition read ("" for an unpartitioned upstream) and the id of the write read. */
function readsByAsset(record: Materialization): Map<string, Map<string, string | null>> {
  const found = new Map<string, Map<string, string | null>>();
  for (const read of record.upstream) {
    let reads = found.get(read.asset);
    if (!reads) found.set(read.asset, (reads = new Map()));
    reads.set(read.partition ?? "", read.materialization);
  }
  return found;
}

/** Why a record is out of date against one upstream asset it reads now (`then`: its reads of it, if any). */
function upstreamReasons(asset: string, then: ReadonlyMap<string, string | null> | undefined, now: UpstreamNow, key: string): string[] {
  const expected = now.keysRead(key);
  const what = (partition: string) => `${asset}${partition !== "" ? ` ${partition}` : ""}`;
  if (!then) {
    const stored = expected && [...expected].some((k) => ownEntry(now.records, k));
    return stored ? [`${asset} is read now but was not when this was built`] : [];
  }
  const reasons: string[] = [];
  for (const [partition, id] of then) {
    if (expected && !expected.has(partition)) {
      if (id !== null) reasons.push(`${what(partition)} was read when this was built and is no longer read`);
      continue;
    }
    const current = ownEntry(now.records, partition);
    if (!current) continue;
    if (id !== null) {
      if (current.id !== id) reasons.push(`${what(partition)} was materialized again at ${time(current.endedAt)}`);
    } else {
      // Nothing it could name was there when it was built (none stored, or of unknown provenance):
      // a record there now is of a write since, whatever the clocks of the hosts that made the two say.
      reasons.push(`${what(partition)} exists now but did not when this was built`);
    }
  }
  for (const partition of expected ?? []) {
    if (!then.has(partition) && ownEntry(now.records, partition))
      reasons.push(`${what(partition)} exists now but was not read when this was built`);
  }
  return reasons;
}

const short = (id: string) => id.slice(0, 8);
const shown = (version: string | null) => (version === null ? "none" : `"${version}"`);
const time = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

/** Each asset's current records from its first destination, read once per staleness computation. */
export class RecordCache {
  readonly #records = new Map<string, Promise<Records>>();
  readonly #windows = new Map<string, { readonly keys: ReadonlySet<string>; readonly records: Records }>();

  /**
   * Takes the records of every stored partition of `asset` that its first destination gave while
   * counting (see `PartitionCounts.records`), so that they are not read again.
   */
  seed(asset: Asset, records: Records): void {
    if (!this.#records.has(asset.qualifiedKey)) this.#records.set(asset.qualifiedKey, Promise.resolve(records));
  }

  /**
   * Takes the records of a window's partitions that its first destination gave while counting
   * that window alone (an object store then lists and reads no more than the window's objects).
   */
  seedWindow(asset: Asset, window: PartitionWindow, records: Records): void {
    this.#windows.set(asset.qualifiedKey, { keys: new Set(window.keys), records });
  }

  /**
   * The current records of the stored partitions of `asset` in `window` (every one for null): from
   * the window counted, when it holds them; from every record, when those are read anyway;
   * otherwise from its first destination, for that window only.
   */
  async ofWindow(asset: Asset, window: PartitionWindow | null): Promise<Records> {
    const seeded = this.#windows.get(asset.qualifiedKey);
    if (window && seeded && window.keys.every((key) => seeded.keys.has(key))) return within(seeded.records, window);
    if (!window || this.#records.has(asset.qualifiedKey) || !asset.primaryDestination) return within(await this.of(asset), window);
    return within(await recordsIn(asset.primaryDestination, asset, window), window);
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
 * The stale partitions of an asset over a window (every stored partition when null), from the
 * dependencies it reads now, its upstreams' records read through `cache`. `complete`: whether the
 * dependencies are all it reads (false when some could not be looked for).
 */
export async function assetStaleness(
  asset: Asset,
  window: PartitionWindow | null,
  dependencies: readonly Dependency[],
  cache: RecordCache = new RecordCache(),
  complete = true,
): Promise<Staleness> {
  // The first destination's records come through the cache: an asset whose coverage is asked is
  // often the upstream of another asked with it (a day read by its week), and is read once.
  const own = await Promise.all(
    asset.destinations.map(async (destination, i) => ({
      destination: asset.destinationKeys[i]!,
      // Narrowed again: a destination of a user's own may give every record whatever the window.
      records: i === 0 ? await cache.ofWindow(asset, window) : within(await recordsIn(destination, asset, window), window),
    })),
  );
  const upstream = new Map<string, UpstreamNow>();
  for (const dependency of dependencies) {
    const found = dependency.asset;
    if (!found || upstream.has(found.qualifiedKey)) continue;
    const edges = dependencies.filter((d) => d.asset === found);
    const records = await cache.of(found);
    upstream.set(found.qualifiedKey, { records, keysRead: keysReadNow(asset, found, edges, records) });
  }
  const found = staleness({ own, upstream, complete, codeVersion: asset.definition.codeVersion });
  return orderedCounts(Object.entries(found), asset.partitioning);
}

/**
 * Which keys of `upstream` a partition of `asset` reads now through its edges to it: null for a
 * key that is no partition of the asset now (a value no longer declared) or an edge that cannot
 * be read. Computed once a key.
 */
function keysReadNow(asset: Asset, upstream: Asset, edges: readonly Dependency[], records: Records): UpstreamNow["keysRead"] {
  const known = new Map<string, ReadonlySet<string> | null>();
  return (key) => {
    let found = known.get(key);
    if (found === undefined) {
      const own = declaredWindowOf(asset, key);
      try {
        found =
          own === undefined || edges.some((edge) => edge.problem)
            ? null
            : new Set(edges.flatMap((edge) => upstreamKeys(upstream, edge, own, records)));
      } catch (error) {
        // An edge whose mapping cannot map this partition (a run of it would fail the same way).
        if (!(error instanceof PartitionError)) throw error;
        found = null;
      }
      known.set(key, found);
    }
    return found;
  };
}

/**
 * The window of one of the asset's stored partitions (null for an unpartitioned asset), or
 * undefined when its key is no partition of the asset now (a list value no longer declared).
 */
function declaredWindowOf(asset: Asset, key: string): PartitionWindow | null | undefined {
  if (!asset.partitioning) return null;
  try {
    return asset.partitioning.partition(key).window;
  } catch (error) {
    if (!(error instanceof PartitionError)) throw error;
    return undefined;
  }
}
