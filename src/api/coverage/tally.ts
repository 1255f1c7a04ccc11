// The one pass over an asset's expected partitions that coverage makes: kept apart from the
// assembly of the Coverage so that the hot loop (100,000 partitions and more) reads on its own,
// and stays one loop with no per-partition work beyond the status it records.
import type { PartitionCoverage } from "./compute.js";
import { lacking, unreadableIn, type CountLookup, type DestinationCounts } from "./destinations.js";

/** The expected partitions' statuses, in the order expected, with their totals. */
export interface ExpectedTally {
  /** One entry per expected key; the unexpected ones are appended after the tally. */
  readonly partitions: PartitionCoverage[];
  readonly materialized: number;
  readonly empty: number;
  readonly unreadable: number;
  /** Rows of the materialized partitions. */
  readonly rows: number;
  /** The row count of each materialized partition, in the order expected (the caller sorts it). */
  readonly counted: number[];
}

const NONE: readonly string[] = [];

/**
 * The status of each expected key across every destination: unreadable when one cannot read
 * it, missing when one lacks it, else empty or materialized by the count shown (`union`, the
 * first destination's).
 */
export function tallyExpected(
  expected: readonly string[],
  stores: readonly DestinationCounts[],
  lookups: readonly CountLookup[],
  union: CountLookup,
): ExpectedTally {
  const several = stores.length > 1;
  const partitions: PartitionCoverage[] = [];
  let materialized = 0;
  let empty = 0;
  let unreadable = 0;
  let rows = 0;
  const counted: number[] = [];
  for (const key of expected) {
    const broken = unreadableIn(stores, key);
    if (broken.length > 0) {
      unreadable++;
      const { file, error } = broken[0]!;
      partitions.push({
        key,
        status: "unreadable",
        rows: null,
        file,
        error,
        ...(several ? { unreadableIn: broken.map((b) => b.destination) } : {}),
      });
      continue;
    }
    const stored = union.get(key);
    // Only with several destinations can one lack a key the union holds.
    const absent = several && stored !== undefined ? lacking(stores, lookups, key) : NONE;
    if (stored === undefined || absent.length > 0) {
      partitions.push({
        key,
        status: "missing",
        rows: null,
        ...(several ? { missingIn: stored === undefined ? stores.map((s) => s.key) : absent } : {}),
      });
    } else if (stored === 0) {
      empty++;
      partitions.push({ key, status: "empty", rows: 0 });
    } else {
      materialized++;
      rows += stored;
      counted.push(stored);
      partitions.push({ key, status: "materialized", rows: stored });
    }
  }
  return { partitions, materialized, empty, unreadable, rows, counted };
}
