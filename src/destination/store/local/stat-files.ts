import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { setImmediate as nextTurn } from "node:timers/promises";
import { fileIdentity } from "./file-identity.js";

// Coverage stats every partition's file: 100,000 of them for eleven years of hours. A stat of a
// cached inode takes a few microseconds, less than one round trip through libuv's thread pool,
// and with the pool's four threads on two cores the round trips, not the stats, set the time
// (1.6 to 1.8 s for 100,000 stats, against 1.1 to 1.2 s called directly). So stats are called
// directly, in slices between which the event loop runs; where they are slow (a network file
// system, a cold disk), the rest go through the pool, many at once, as before.

/** Stats called directly at a time: the longest the event loop then waits, where stats are fast. */
const SLICE = 256;
/** Slices slower than this a stat, several in a row (one may meet a garbage collection), send the rest to the thread pool. */
const SLOW_STAT_MS = 0.1;
const SLOW_SLICES = 3;
/** Stats in flight at once through the thread pool. */
const PARALLEL_STATS = 1_024;

/**
 * The identity (see file-identity.ts) of the file at each path, in order; null for a path that
 * cannot be stat'ed (gone, unreadable). Each stat is reduced to its identity at once: 100,000
 * stat objects kept to the end would all survive into the old generation, and the garbage
 * collector took over a third of a count's time copying and marking them. `slowStatMs` is the
 * time a stat above which, slice after slice, the rest go through the thread pool.
 */
export async function fileIdentities(paths: readonly string[], slowStatMs: number = SLOW_STAT_MS): Promise<Array<string | null>> {
  const identities: Array<string | null> = new Array(paths.length);
  let at = 0;
  for (let slowInARow = 0; at < paths.length && slowInARow < SLOW_SLICES;) {
    const end = Math.min(paths.length, at + SLICE);
    const started = performance.now();
    for (; at < end; at++) identities[at] = identityOrNull(paths[at]!);
    if (at === paths.length) return identities;
    slowInARow = (performance.now() - started) / SLICE > slowStatMs ? slowInARow + 1 : 0;
    await nextTurn();
  }
  for (; at < paths.length; at += PARALLEL_STATS) {
    const slice = paths.slice(at, at + PARALLEL_STATS);
    const done = await Promise.all(slice.map((path) => stat(path, { bigint: true }).then(fileIdentity, () => null)));
    for (let i = 0; i < done.length; i++) identities[at + i] = done[i]!;
  }
  return identities;
}

function identityOrNull(path: string): string | null {
  try {
    const info = statSync(path, { bigint: true, throwIfNoEntry: false });
    return info ? fileIdentity(info) : null;
  } catch {
    return null;
  }
}
