// Shards of a backfill (issue 9): for any window and any n, the n shards together run exactly the
// partitions of the unsharded plan, each once; shares are balanced; shard 1 starts with the
// partition dispatched first (the newest by default); the assignment does not depend on what is
// missing, so shards evaluating `--missing` at different times never overlap.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { missingPlanOptions } from "../../src/api/missing.js";
import { planMaterialize, shardOf, type Plan, type PlanOptions } from "../../src/api/plan.js";

const RUNS = { numRuns: 200 };
/** Planning hundreds of partitions n times, 200 times over, on a busy machine. */
const SLOW = 120_000;
const DAY_MS = 86_400_000;
const EPOCH = Date.UTC(2015, 0, 1);

/** Day keys from `from` (days after 2015-01-01) for `length` days, oldest first, computed without the library. */
function dayKeys(from: number, length: number): string[] {
  return Array.from({ length }, (_, i) => new Date(EPOCH + (from + i) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * A destination whose row counts are whatever the test sets: coverage (and so `--missing`) reads
 * them, nothing is ever written.
 */
class CountsDestination extends il.Destination {
  counts: Record<string, number> = {};
  writePartition(): void {
    throw new Error("the planning tests write nothing");
  }
  readPartition(): unknown {
    throw new Error("the planning tests read nothing");
  }
  partitionRowCounts(): Record<string, number> {
    return { ...this.counts };
  }
}

type Shape = "daily" | "daily+unpartitioned" | "window-daily";

/** A project of one daily asset (optionally windowed) and, for one shape, an unpartitioned asset. */
function project(shape: Shape, destination: il.Destination = new il.MemoryDestination()) {
  const daily = il.asset({
    key: "daily",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2015-01-01", allowWindow: shape === "window-daily" }),
    run: () => [],
  });
  const settings = il.asset({ key: "settings", run: () => [] });
  const Source = il.source({ key: "s", assets: shape === "daily+unpartitioned" ? [daily, settings] : [daily] });
  return projectOf(il.defineConfig({ sources: [Source({ destinations: destination })] }));
}

const windowArb = fc.record({
  from: fc.integer({ min: 0, max: 3500 }), // up to 2025-09: past days, which coverage expects
  length: fc.integer({ min: 1, max: 400 }),
  n: fc.integer({ min: 1, max: 12 }),
  order: fc.constantFrom("newest" as const, "oldest" as const),
  shape: fc.constantFrom<Shape>("daily", "daily+unpartitioned", "window-daily"),
});

/** A window plus, per partition, whether it is stored (the others are "missing"). */
const withMissingArb = windowArb.chain((w) =>
  fc.record({ w: fc.constant(w), present: fc.array(fc.boolean(), { minLength: w.length, maxLength: w.length }) }),
);

function shardPlans(p: ReturnType<typeof project>, options: PlanOptions, n: number): Plan[] {
  return Array.from({ length: n }, (_, i) => planMaterialize(p, { ...options, shard: { index: i + 1, count: n } }));
}

function expectExactCover(shards: readonly Plan[], expected: readonly string[]): void {
  const all = shards.flatMap((s) => s.partitions);
  expect(new Set(all).size, "a partition falls to two shards").toBe(all.length);
  expect([...all].sort()).toEqual([...expected].sort());
}

describe("shards of a backfill", () => {
  test(
    "cover the unsharded plan exactly, balanced, shard 1 starting with the first partition dispatched",
    () => {
      fc.assert(
        fc.property(windowArb, ({ from, length, n, order, shape }) => {
          const keys = dayKeys(from, length);
          const window = `${keys[0]}..${keys[keys.length - 1]}`;
          const p = project(shape);
          const whole = planMaterialize(p, { window, order });
          const dispatch = order === "newest" ? [...keys].reverse() : keys;
          expect([...whole.partitions].sort()).toEqual(keys);
          const shards = shardPlans(p, { window, order }, n);

          expectExactCover(shards, whole.partitions);
          for (const shard of shards) {
            expect(shard.mode).toBe("backfill");
            // each shard runs its share in dispatch order
            const mine = new Set(shard.partitions);
            expect(shard.partitions).toEqual(dispatch.filter((k) => mine.has(k)));
            expect(shard.runs.filter((r) => r.partition !== null).map((r) => r.partition)).toEqual(shard.partitions);
          }
          const sizes = shards.map((s) => s.partitions.length);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
          // shard i starts on the i-th partition dispatched: shard 1 on the newest (or oldest with --order oldest)
          shards.forEach((shard, i) => {
            if (i < length) expect(shard.partitions[0]).toBe(dispatch[i]);
            else expect(shard.partitions).toEqual([]);
          });
          // unpartitioned assets run once, in shard 1 only
          const unpartitionedRuns = shards.map((s) => s.runs.filter((r) => r.partition === null).length);
          expect(unpartitionedRuns).toEqual(shards.map((_, i) => (shape === "daily+unpartitioned" && i === 0 ? 1 : 0)));
        }),
        RUNS,
      );
    },
    SLOW,
  );

  test(
    "with a set of missing partitions (plan option `only`): shards cover exactly the missing ones, and the assignment ignores what is missing",
    () => {
      fc.assert(
        fc.property(withMissingArb, ({ w: { from, length, n, order, shape }, present }) => {
          const keys = dayKeys(from, length);
          const window = `${keys[0]}..${keys[keys.length - 1]}`;
          const missing = new Set(keys.filter((_, i) => !present[i]));
          const p = project(shape);
          const plan = planMaterialize(p, { window, order, only: missing });
          expect([...plan.partitions].sort()).toEqual([...missing].sort());
          const shards = shardPlans(p, { window, order, only: missing }, n);
          expectExactCover(shards, plan.partitions);
          // Two shards that look at storage at different times still agree on who runs what:
          // shard i with a missing set is shard i without one, filtered.
          const unfiltered = shardPlans(p, { window, order }, n);
          shards.forEach((shard, i) => expect(shard.partitions).toEqual(unfiltered[i]!.partitions.filter((k) => missing.has(k))));
        }),
        RUNS,
      );
    },
    SLOW,
  );

  test(
    "--missing as the CLI computes it (coverage of a destination): shards cover exactly the missing (and, with includeEmpty, empty) partitions",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          windowArb.chain((w) =>
            fc.record({
              w: fc.constant(w),
              stored: fc.array(fc.constantFrom<number | null>(null, 0, 1, 5), { minLength: w.length, maxLength: w.length }),
              includeEmpty: fc.boolean(),
            }),
          ),
          async ({ w: { from, length, n, order, shape }, stored, includeEmpty }) => {
            const keys = dayKeys(from, length);
            const window = `${keys[0]}..${keys[keys.length - 1]}`;
            const destination = new CountsDestination();
            destination.counts = Object.fromEntries(keys.flatMap((k, i) => (stored[i] === null ? [] : [[k, stored[i]!]])));
            const wanted = keys.filter((_, i) => stored[i] === null || (includeEmpty && stored[i] === 0));
            const p = project(shape, destination);
            const unsharded = planMaterialize(p, await missingPlanOptions(p, { window, order }, { includeEmpty }));
            expect([...unsharded.partitions].sort()).toEqual(wanted);
            const shards: Plan[] = [];
            for (let i = 1; i <= n; i++) {
              shards.push(
                planMaterialize(p, await missingPlanOptions(p, { window, order, shard: { index: i, count: n } }, { includeEmpty })),
              );
            }
            expectExactCover(shards, wanted);
            // --missing leaves unpartitioned assets out
            for (const shard of shards) expect(shard.runs.every((r) => r.partition !== null)).toBe(true);
          },
        ),
        RUNS,
      );
    },
    SLOW,
  );

  test("list partitions: shards cover the declared values exactly, in declared order", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom("newest" as const, "oldest" as const),
        (count, n, order) => {
          const values = Array.from({ length: count }, (_, i) => `v${String(i).padStart(3, "0")}`);
          const sales = il.asset({ key: "sales", partitioning: new il.ListPartitionConfig({ column: "region", values }), run: () => [] });
          const p = projectOf(
            il.defineConfig({ sources: [il.source({ key: "r", assets: [sales] })({ destinations: new il.MemoryDestination() })] }),
          );
          const window = `${values[0]}..${values[count - 1]}`;
          const whole = planMaterialize(p, { window, order });
          const shards = shardPlans(p, { window, order }, n);
          expectExactCover(shards, whole.partitions);
          expect([...whole.partitions].sort()).toEqual(values);
          const sizes = shards.map((s) => s.partitions.length);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
          expect(shards[0]!.partitions[0]).toBe(order === "newest" ? values[count - 1] : values[0]);
        },
      ),
      RUNS,
    );
  });

  test("shardOf splits any list into n disjoint, balanced, order-keeping shares", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 500 }), fc.integer({ min: 1, max: 12 }), (items, n) => {
        const tagged = items.map((value, i) => ({ value, i }));
        const shares = Array.from({ length: n }, (_, i) => shardOf(tagged, { index: i + 1, count: n }));
        const all = shares.flat();
        expect(all.length).toBe(tagged.length);
        expect(new Set(all.map((t) => t.i)).size).toBe(tagged.length);
        for (const share of shares) expect(share.map((t) => t.i)).toEqual([...share.map((t) => t.i)].sort((a, b) => a - b));
        const sizes = shares.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        if (tagged.length > 0) expect(shares[0]![0]).toBe(tagged[0]);
        expect(shardOf(tagged, undefined)).toEqual(tagged);
      }),
      RUNS,
    );
  });
});
