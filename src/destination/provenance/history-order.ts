// The order of a history that spans several partitions. Each partition's records come in the
// order its writes landed, as its store can tell it (the current record first: its data is the
// one in place, whatever its end time says); end times order records of different partitions
// only, since a record's end is taken before its write lands and two writers may land in the
// opposite order of their ends.
import type { Materialization } from "./materialization.js";

/**
 * Lists of records, each newest first, as one list newest first that keeps each list's order:
 * by end time, a record's end taken as no later than that of any record before it in its list
 * (a current record that ended before the one it replaced comes first all the same), then by
 * list and place in it. A total order, unlike comparing end times across lists and places
 * within one. A record in several lists keeps its first place.
 */
export function mergeNewestFirst(lists: ReadonlyArray<readonly Materialization[]>): Materialization[] {
  const keyed: Array<{ record: Materialization; end: string; list: number; at: number }> = [];
  lists.forEach((list, index) => {
    let end: string | null = null;
    list.forEach((record, at) => {
      end = end === null || record.endedAt < end ? record.endedAt : end;
      keyed.push({ record, end, list: index, at });
    });
  });
  keyed.sort((a, b) => (a.end < b.end ? 1 : a.end > b.end ? -1 : a.list - b.list || a.at - b.at));
  const seen = new Set<string>();
  const merged: Materialization[] = [];
  for (const { record } of keyed) {
    if (seen.has(record.id)) continue;
    seen.add(record.id);
    merged.push(record);
  }
  return merged;
}
