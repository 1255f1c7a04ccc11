// Coverage computation (issue 6): expected partitions, statuses, ranges, totals, the
// suspicious rule and the JSON shape of `coverage --json`, over destinations prepared for real
// through the library (MemoryDestination and CSVDestination) with a fixed `now`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import {
  assetCoverage,
  computeCoverage,
  coverage,
  expectedKeys,
  SUSPICIOUS_MIN_PARTITIONS,
  SUSPICIOUS_RATIO,
  type Coverage,
} from "../../src/api/coverage/index.js";
import { missingPlanOptions } from "../../src/api/missing.js";

beforeEach(() => il.MemoryDestination.clear());

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Rows an asset makes per partition key; 0 gives [] (an empty partition). */
type RowsOf = (key: string) => number;

let sources = 0;

interface Made {
  readonly asset: il.Asset;
  readonly dag: il.DAG;
  readonly source: il.Source;
}

/**
 * A source "src<n>" (unique per call unless `sourceKey` is given) with one asset "orders"
 * writing `rows(key)` rows per partition into `destination`.
 */
function make(
  partitioning: il.PartitionConfig,
  rows: RowsOf,
  options: { destination?: il.Destination; sourceKey?: string; key?: string } = {},
): Made {
  const column = partitioning.column;
  const definition = il.asset({
    key: options.key ?? "orders",
    partitioning,
    run(context) {
      const p = context.partition!;
      const value = p instanceof il.TimePartition ? p.value : p.key;
      return Array.from({ length: rows(p.key) }, (_, i) => ({ [column]: value, i }));
    },
  });
  const source = il.source({ key: options.sourceKey ?? `src${++sources}`, assets: [definition] })({
    destinations: options.destination ?? new il.MemoryDestination(),
  });
  const asset = source.assets[options.key ?? "orders"]!;
  return { asset, dag: new il.DAG(source), source };
}

const daily = (start: string | null) => new il.TimePartitionConfig({ column: "date", ...(start ? { start } : {}) });

/** Materializes partitions through the DAG, one run each. */
async function materialize(made: Made, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    const result = await made.dag.materialize(made.asset.partitioning!.partition(key));
    expect(result.status, `run of ${key}`).toBe("completed");
  }
}

const keysOf = (c: Coverage) => c.partitions.map((p) => p.key);

/** Table of rows per day of a January prepared with gaps. */
const JANUARY: Record<string, number> = {
  "2026-01-01": 10,
  "2026-01-02": 20,
  "2026-01-03": 30,
  "2026-01-05": 0,
  "2026-01-08": 40,
};
// The day after the last expected one: 2026-01-10 is the last complete day, 2026-01-11 in progress.
const NOW = new Date("2026-01-11T15:00:00Z");

describe("coverage of a daily asset prepared with gaps, empty and unexpected partitions", () => {
  async function prepared(destination?: il.Destination) {
    const sourceKey = `jan${++sources}`;
    const made = make(daily("2026-01-01"), (key) => JANUARY[key] ?? 0, { sourceKey, ...(destination ? { destination } : {}) });
    await materialize(made, Object.keys(JANUARY));
    // The same table, declared with a wider start and a later end: partitions outside the
    // expected range of `made`.
    const wider = make(daily("2025-12-01"), (key) => (key === "2025-12-30" ? 7 : 2), {
      sourceKey,
      ...(destination ? { destination } : {}),
    });
    await materialize(wider, ["2025-12-30", "2026-01-12"]);
    return made;
  }

  const destinations: Array<[string, () => Promise<il.Destination | undefined>]> = [
    ["MemoryDestination", async () => undefined],
    [
      "CSVDestination",
      async () => {
        const dir = await mkdtemp(join(tmpdir(), "interloper-coverage-"));
        temps.push(dir);
        return new il.CSVDestination({ basePath: dir });
      },
    ],
  ];

  it.each(destinations)("expects every day from start to the last complete day and classifies each (%s)", async (_name, destination) => {
    const made = await prepared(await destination());
    const c = await assetCoverage(made.asset, { now: NOW });
    expect(c.asset).toBe(made.asset.qualifiedKey);
    expect(c.kind).toBe("time");
    expect(c.granularity).toBe("day");
    expect(c.column).toBe("date");
    expect(keysOf(c)).toEqual([
      "2026-01-01",
      "2026-01-02",
      "2026-01-03",
      "2026-01-04",
      "2026-01-05",
      "2026-01-06",
      "2026-01-07",
      "2026-01-08",
      "2026-01-09",
      "2026-01-10",
      // then the unexpected ones, in key order
      "2025-12-30",
      "2026-01-12",
    ]);
    expect(c.partitions).toEqual([
      { key: "2026-01-01", status: "materialized", rows: 10 },
      { key: "2026-01-02", status: "materialized", rows: 20 },
      { key: "2026-01-03", status: "materialized", rows: 30 },
      { key: "2026-01-04", status: "missing", rows: null },
      { key: "2026-01-05", status: "empty", rows: 0 },
      { key: "2026-01-06", status: "missing", rows: null },
      { key: "2026-01-07", status: "missing", rows: null },
      { key: "2026-01-08", status: "materialized", rows: 40 },
      { key: "2026-01-09", status: "missing", rows: null },
      { key: "2026-01-10", status: "missing", rows: null },
      { key: "2025-12-30", status: "unexpected", rows: 7 },
      { key: "2026-01-12", status: "unexpected", rows: 2 },
    ]);
    expect(c).toMatchObject({
      expected: 10,
      materialized: 4,
      empty: 1,
      missing: 5,
      unexpected: 2,
      rows: 100,
      first: "2026-01-01",
      last: "2026-01-10",
    });
    expect(c.missingRanges).toEqual(["2026-01-04", "2026-01-06..2026-01-07", "2026-01-09..2026-01-10"]);
    expect(c.emptyRanges).toEqual(["2026-01-05"]);
    // Even number of materialized partitions: the median is the mean of the middle two.
    expect([c.minRows, c.medianRows, c.maxRows]).toEqual([10, 25, 40]);
    expect(c.suspicious).toEqual([]);
    expect(c.inProgress).toEqual({ key: "2026-01-11", status: "in-progress", rows: null });
  });

  it("ends the day before the current UTC day whatever the hour of now; the current day is in progress", async () => {
    const made = await prepared();
    for (const now of ["2026-01-10T00:00:00Z", "2026-01-10T23:59:59.999Z", "2026-01-10T05:30:00+05:30"]) {
      const c = await assetCoverage(made.asset, { now: new Date(now) });
      expect(c.last, now).toBe("2026-01-09");
      expect(c.inProgress, now).toEqual({ key: "2026-01-10", status: "in-progress", rows: null });
    }
    const earlier = await assetCoverage(made.asset, { now: new Date("2026-01-09T23:30:00-08:00") }); // 2026-01-10T07:30Z
    expect(earlier.last).toBe("2026-01-09");
    // The current day's stored rows are reported as in progress: neither expected nor unexpected.
    const before = await assetCoverage(made.asset, { now: new Date("2026-01-03T12:00:00Z") });
    expect(before.last).toBe("2026-01-02");
    expect(before.inProgress).toEqual({ key: "2026-01-03", status: "in-progress", rows: 30 });
    expect(before.partitions.map((p) => p.key)).not.toContain("2026-01-03");
    // Stored partitions after the current day are unexpected, never dropped.
    expect(before.partitions.filter((p) => p.status === "unexpected").map((p) => p.key)).toEqual([
      "2025-12-30",
      "2026-01-05",
      "2026-01-08",
      "2026-01-12",
    ]);
  });

  it("expects nothing before the start: now before start gives no expected partition, stored ones are unexpected", async () => {
    const made = await prepared();
    const c = await assetCoverage(made.asset, { now: new Date("2025-12-31T12:00:00Z") });
    expect(c.expected).toBe(0);
    expect(c.first).toBeNull();
    expect(c.missingRanges).toEqual([]);
    expect(c.partitions.every((p) => p.status === "unexpected")).toBe(true);
    expect(c.unexpected).toBe(7);
  });

  it("a window narrows the expected partitions; storage outside it is out of scope", async () => {
    const made = await prepared();
    const c = await assetCoverage(made.asset, { now: NOW, window: "2026-01-03..2026-01-06" });
    expect(c.partitions).toEqual([
      { key: "2026-01-03", status: "materialized", rows: 30 },
      { key: "2026-01-04", status: "missing", rows: null },
      { key: "2026-01-05", status: "empty", rows: 0 },
      { key: "2026-01-06", status: "missing", rows: null },
    ]);
    expect(c).toMatchObject({
      expected: 4,
      materialized: 1,
      empty: 1,
      missing: 2,
      unexpected: 0,
      rows: 30,
      first: "2026-01-03",
      last: "2026-01-06",
    });
    expect(c.missingRanges).toEqual(["2026-01-04", "2026-01-06"]);
    expect(c.emptyRanges).toEqual(["2026-01-05"]);
    // One key is a window of one.
    const one = await assetCoverage(made.asset, { now: NOW, window: "2026-01-08" });
    expect(one.partitions).toEqual([{ key: "2026-01-08", status: "materialized", rows: 40 }]);
  });

  it("a window reaching before the start is clamped to the start", async () => {
    const made = await prepared();
    const c = await assetCoverage(made.asset, { now: NOW, window: "2025-12-28..2026-01-02" });
    expect(keysOf(c)).toEqual(["2026-01-01", "2026-01-02"]);
  });

  it("a window reaching past the current day is clamped to the current day, which it expects (it narrows the expected range)", async () => {
    const made = await prepared();
    const c = await assetCoverage(made.asset, { now: NOW, window: "2026-01-08..2026-01-20" });
    expect(keysOf(c)).toEqual(["2026-01-08", "2026-01-09", "2026-01-10", "2026-01-11"]);
    expect(c.missingRanges).toEqual(["2026-01-09..2026-01-11"]);
    expect(c.inProgress).toBeNull();
  });

  it("coverage(project) covers every partitioned asset; coverage(project, key) one", async () => {
    const made = await prepared();
    const flat = il.asset({ key: "customers", run: () => [{ id: 1 }] });
    const other = il.source({ key: `flat${++sources}`, assets: [flat] })({ destinations: new il.MemoryDestination() });
    const project = projectOf(il.defineConfig({ sources: [made.source, other] }));
    const all = await coverage(project, undefined, { now: NOW });
    expect(all.map((c) => c.asset)).toEqual([made.asset.qualifiedKey]);
    const one = await coverage(project, made.asset.qualifiedKey, { now: NOW, window: "2026-01-01..2026-01-03" });
    expect(one).toHaveLength(1);
    expect(one[0]!.materialized).toBe(3);
    await expect(assetCoverage(other.assets["customers"]!, { now: NOW })).rejects.toThrow(il.ConfigError);
  });
});

describe("a time partitioning without a start", () => {
  it("expects every period from the earliest stored key to the last complete one", async () => {
    const made = make(daily(null), () => 5);
    await materialize(made, ["2026-02-05", "2026-02-03"]);
    const c = await assetCoverage(made.asset, { now: new Date("2026-02-06T08:00:00Z") });
    expect(c.partitions).toEqual([
      { key: "2026-02-03", status: "materialized", rows: 5 },
      { key: "2026-02-04", status: "missing", rows: null },
      { key: "2026-02-05", status: "materialized", rows: 5 },
    ]);
    expect(c.missingRanges).toEqual(["2026-02-04"]);
    expect(c.inProgress).toEqual({ key: "2026-02-06", status: "in-progress", rows: null });
  });

  it("expects nothing when nothing is stored", async () => {
    const made = make(daily(null), () => 5);
    const c = await assetCoverage(made.asset, { now: new Date("2026-02-06T08:00:00Z") });
    expect(c).toMatchObject({
      expected: 0,
      materialized: 0,
      empty: 0,
      missing: 0,
      unexpected: 0,
      rows: 0,
      partitions: [],
      missingRanges: [],
      emptyRanges: [],
    });
    expect([c.minRows, c.medianRows, c.maxRows]).toEqual([null, null, null]);
    expect(expectedKeys(made.asset, {}, { now: new Date("2026-02-06T08:00:00Z") })).toEqual([]);
  });

  it("ignores stored keys of another shape when finding the earliest (they are unexpected)", async () => {
    const made = make(daily(null), () => 5);
    await materialize(made, ["2026-02-05"]);
    const c = computeCoverage(made.asset, { "2026-02-05": 5, "2026-01": 9 }, { now: new Date("2026-02-06T08:00:00Z") });
    expect(keysOf(c)).toEqual(["2026-02-05", "2026-01"]);
    expect(c.partitions.at(-1)).toEqual({ key: "2026-01", status: "unexpected", rows: 9 });
  });
});

describe("list partitions", () => {
  const regions = () => new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac", "latam", "mena"] });

  async function prepared() {
    const sourceKey = `list${++sources}`;
    const made = make(regions(), (key) => ({ eu: 3, us: 0, latam: 8 })[key] ?? 0, { sourceKey });
    await materialize(made, ["eu", "us", "latam"]);
    // "mars" is stored by another definition of the same table: not a declared value.
    const wider = make(new il.ListPartitionConfig({ column: "region", values: ["mars"] }), () => 1, { sourceKey });
    await materialize(wider, ["mars"]);
    return made;
  }

  it("expects every declared value, in declared order, then the unexpected ones", async () => {
    const made = await prepared();
    const c = await assetCoverage(made.asset, { now: NOW });
    expect(c).toMatchObject({
      kind: "list",
      column: "region",
      expected: 5,
      materialized: 2,
      empty: 1,
      missing: 2,
      unexpected: 1,
      rows: 11,
    });
    expect(c.partitions).toEqual([
      { key: "eu", status: "materialized", rows: 3 },
      { key: "us", status: "empty", rows: 0 },
      { key: "apac", status: "missing", rows: null },
      { key: "latam", status: "materialized", rows: 8 },
      { key: "mena", status: "missing", rows: null },
      { key: "mars", status: "unexpected", rows: 1 },
    ]);
    expect(c.missingRanges).toEqual(["apac", "mena"]);
    expect(c.emptyRanges).toEqual(["us"]);
    expect([c.minRows, c.medianRows, c.maxRows]).toEqual([3, 5.5, 8]);
    // A list coverage does not depend on now.
    expect((await assetCoverage(made.asset, { now: new Date("1999-01-01T00:00:00Z") })).partitions).toEqual(c.partitions);
  });

  it("a window of values narrows it; consecutive missing values form a range", async () => {
    const made = await prepared();
    const c = await assetCoverage(made.asset, { now: NOW, window: "us..apac" });
    expect(c.partitions).toEqual([
      { key: "us", status: "empty", rows: 0 },
      { key: "apac", status: "missing", rows: null },
    ]);
    const none = await assetCoverage(made.asset, { window: "apac..mena" });
    expect(none.missingRanges).toEqual(["apac", "mena"]);
    const all = computeCoverage(made.asset, {}, {});
    expect(all.missingRanges).toEqual(["eu..mena"]);
  });
});

describe("totals and the suspicious rule", () => {
  const made = () => make(daily("2026-03-01"), () => 1);
  const now = new Date("2026-03-31T12:00:00Z");
  /** Counts for consecutive days from 2026-03-01. */
  const counts = (...rows: number[]) => Object.fromEntries(rows.map((n, i) => [`2026-03-${String(i + 1).padStart(2, "0")}`, n]));

  it("min, median and max over materialized partitions only (odd and even counts)", () => {
    const odd = computeCoverage(made().asset, { ...counts(9, 1, 5), "2026-03-04": 0 }, { now });
    expect([odd.minRows, odd.medianRows, odd.maxRows, odd.rows]).toEqual([1, 5, 9, 15]);
    const even = computeCoverage(made().asset, counts(11, 1, 9, 5), { now });
    expect([even.minRows, even.medianRows, even.maxRows, even.rows]).toEqual([1, 7, 11, 26]);
    expect(even).toMatchObject({ expected: 30, materialized: 4, empty: 0, missing: 26 });
    expect(even.missingRanges).toEqual(["2026-03-05..2026-03-30"]);
  });

  it(`flags materialized partitions under ${SUSPICIOUS_RATIO} of the median, from ${SUSPICIOUS_MIN_PARTITIONS} partitions on`, () => {
    expect(SUSPICIOUS_RATIO).toBeGreaterThan(0);
    expect(SUSPICIOUS_RATIO).toBeLessThan(1);
    const median = 1000;
    const below = Math.ceil(median * SUSPICIOUS_RATIO) - 1;
    const at = median * SUSPICIOUS_RATIO;
    const healthy = Array.from({ length: SUSPICIOUS_MIN_PARTITIONS }, () => median);
    // A few normal days, one thin one, one at the threshold, and an empty one (not suspicious).
    const c = computeCoverage(made().asset, { ...counts(...healthy, below, at, median), "2026-03-20": 0 }, { now });
    expect(c.medianRows).toBe(median);
    const thin = `2026-03-${String(SUSPICIOUS_MIN_PARTITIONS + 1).padStart(2, "0")}`;
    expect(c.suspicious).toEqual([{ key: thin, status: "materialized", rows: below }]);
  });

  it(`flags nothing with fewer than ${SUSPICIOUS_MIN_PARTITIONS} materialized partitions`, () => {
    const few = Array.from({ length: SUSPICIOUS_MIN_PARTITIONS - 2 }, () => 1000);
    const c = computeCoverage(made().asset, counts(...few, 1), { now });
    expect(c.materialized).toBe(SUSPICIOUS_MIN_PARTITIONS - 1);
    expect(c.suspicious).toEqual([]);
    // One more normal partition reaches the minimum: the thin one is flagged.
    const enough = computeCoverage(made().asset, counts(...few, 1000, 1), { now });
    expect(enough.suspicious.map((p) => p.rows)).toEqual([1]);
  });

  it("unexpected partitions count neither in rows nor in the statistics", () => {
    const c = computeCoverage(made().asset, { ...counts(4, 6), "2025-01-01": 1_000_000 }, { now });
    expect([c.rows, c.minRows, c.medianRows, c.maxRows, c.unexpected]).toEqual([10, 4, 5, 6, 1]);
  });
});

describe("every granularity, prepared through the library", () => {
  const cases: Array<{
    name: string;
    granularity: il.TimeGranularity;
    start: string;
    now: string;
    keys: string[];
    written: Record<string, number>;
  }> = [
    {
      name: "hour",
      granularity: il.TimeGranularity.HOUR,
      start: "2026-03-01T21:00:00Z",
      now: "2026-03-02T01:30:00Z",
      keys: ["2026-03-01T21", "2026-03-01T22", "2026-03-01T23", "2026-03-02T00", "2026-03-02T01"],
      written: { "2026-03-01T21": 2, "2026-03-01T23": 0, "2026-03-02T00": 3 },
    },
    {
      name: "day",
      granularity: il.TimeGranularity.DAY,
      start: "2026-02-26",
      now: "2026-03-02T23:00:00Z",
      keys: ["2026-02-26", "2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"],
      written: { "2026-02-26": 2, "2026-02-28": 0, "2026-03-01": 3 },
    },
    {
      name: "week",
      granularity: il.TimeGranularity.WEEK,
      start: "2025-12-22",
      now: "2026-01-21T10:00:00Z",
      keys: ["2025-W52", "2026-W01", "2026-W02", "2026-W03", "2026-W04"],
      written: { "2025-W52": 2, "2026-W02": 0, "2026-W03": 3 },
    },
    {
      name: "month",
      granularity: il.TimeGranularity.MONTH,
      start: "2025-11-01",
      now: "2026-03-15T10:00:00Z",
      keys: ["2025-11", "2025-12", "2026-01", "2026-02", "2026-03"],
      written: { "2025-11": 2, "2026-01": 0, "2026-02": 3 },
    },
    {
      name: "quarter",
      granularity: il.TimeGranularity.QUARTER,
      start: "2025-01-01",
      now: "2026-02-15T10:00:00Z",
      keys: ["2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4", "2026-Q1"],
      written: { "2025-Q1": 2, "2025-Q3": 0, "2025-Q4": 3 },
    },
    {
      name: "year",
      granularity: il.TimeGranularity.YEAR,
      start: "2022-01-01",
      now: "2026-06-15T10:00:00Z",
      keys: ["2022", "2023", "2024", "2025", "2026"],
      written: { "2022": 2, "2024": 0, "2025": 3 },
    },
  ];

  it.each(cases)(
    "$name: expected keys from start to the current period (includeCurrent), statuses and ranges",
    async ({ name, granularity, start, now, keys, written }) => {
      const made = make(new il.TimePartitionConfig({ column: "at", granularity, start }), (key) => written[key] ?? 0);
      await materialize(made, Object.keys(written));
      // By default the current period is in progress, not expected.
      const byDefault = await assetCoverage(made.asset, { now: new Date(now) });
      expect(keysOf(byDefault)).toEqual(keys.slice(0, 4));
      expect(byDefault.inProgress).toEqual({ key: keys[4], status: "in-progress", rows: null });
      expect(byDefault.missingRanges).toEqual([keys[1]]);
      const c = await assetCoverage(made.asset, { now: new Date(now), includeCurrent: true });
      expect(c.inProgress).toBeNull();
      expect(c.granularity).toBe(name);
      expect(c.kind).toBe("time");
      expect(c.column).toBe("at");
      expect(c.partitions).toEqual([
        { key: keys[0], status: "materialized", rows: 2 },
        { key: keys[1], status: "missing", rows: null },
        { key: keys[2], status: "empty", rows: 0 },
        { key: keys[3], status: "materialized", rows: 3 },
        { key: keys[4], status: "missing", rows: null },
      ]);
      expect(c.missingRanges).toEqual([keys[1], keys[4]]);
      expect(c.emptyRanges).toEqual([keys[2]]);
      expect(c).toMatchObject({
        expected: 5,
        materialized: 2,
        empty: 1,
        missing: 2,
        unexpected: 0,
        rows: 5,
        minRows: 2,
        medianRows: 2.5,
        maxRows: 3,
      });
      expect(expectedKeys(made.asset, {}, { now: new Date(now), includeCurrent: true })).toEqual(keys);
      expect(expectedKeys(made.asset, {}, { now: new Date(now) })).toEqual(keys.slice(0, 4));
      // A window of the middle three.
      const narrowed = await assetCoverage(made.asset, { now: new Date(now), window: `${keys[1]}..${keys[3]}` });
      expect(keysOf(narrowed)).toEqual(keys.slice(1, 4));
      expect(narrowed.missingRanges).toEqual([keys[1]]);
      // Missing partitions in a row make one range.
      const bare = computeCoverage(made.asset, {}, { now: new Date(now), includeCurrent: true });
      expect(bare.missingRanges).toEqual([`${keys[0]}..${keys[4]}`]);
    },
  );
});

describe("the JSON shape of `coverage --json` (api.md)", () => {
  const KEPT = [
    "asset",
    "kind",
    "granularity",
    "column",
    "expected",
    "materialized",
    "empty",
    "missing",
    "unexpected",
    "rows",
    "partitions",
    "missingRanges",
    "emptyRanges",
  ];

  it("keeps every documented key with its type; partitions oldest first, then unexpected", async () => {
    const made = make(daily("2026-01-01"), (key) => JANUARY[key] ?? 0);
    await materialize(made, Object.keys(JANUARY));
    const json = JSON.parse(JSON.stringify(await assetCoverage(made.asset, { now: NOW }))) as Record<string, unknown>;
    for (const key of KEPT) expect(json, key).toHaveProperty(key);
    expect(json).toMatchObject({
      asset: made.asset.qualifiedKey,
      kind: "time",
      granularity: "day",
      column: "date",
      expected: 10,
      materialized: 4,
      empty: 1,
      missing: 5,
      unexpected: 0,
      rows: 100,
      missingRanges: ["2026-01-04", "2026-01-06..2026-01-07", "2026-01-09..2026-01-10"],
      emptyRanges: ["2026-01-05"],
    });
    const partitions = json["partitions"] as Array<Record<string, unknown>>;
    for (const p of partitions) {
      expect(Object.keys(p).sort()).toEqual(["key", "rows", "status"]);
      expect(["materialized", "empty", "missing", "unexpected"]).toContain(p["status"]);
    }
    const keys = partitions.map((p) => p["key"] as string);
    expect(keys).toEqual([...keys].sort());
    expect(partitions[0]).toEqual({ key: "2026-01-01", status: "materialized", rows: 10 });
    expect(partitions.find((p) => p["status"] === "missing")).toEqual({ key: "2026-01-04", status: "missing", rows: null });
    // Added beside the documented keys: the period under way.
    expect(json["inProgress"]).toEqual({ key: "2026-01-11", status: "in-progress", rows: null });
  });

  it("a list asset has kind list and a null granularity", async () => {
    const made = make(new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }), () => 2);
    await materialize(made, ["us"]);
    const json = JSON.parse(JSON.stringify(await assetCoverage(made.asset))) as Record<string, unknown>;
    for (const key of KEPT) expect(json, key).toHaveProperty(key);
    expect(json).toMatchObject({
      kind: "list",
      granularity: null,
      column: "region",
      expected: 2,
      materialized: 1,
      missing: 1,
      rows: 2,
      missingRanges: ["eu"],
      emptyRanges: [],
    });
  });
});

describe("missingPlanOptions (materialize --missing)", () => {
  it("selects exactly the missing partitions (and empty ones when asked) within the expected range or a window", async () => {
    const made = make(daily("2026-01-01"), (key) => JANUARY[key] ?? 0);
    await materialize(made, Object.keys(JANUARY));
    const project = projectOf(il.defineConfig({ sources: [made.source] }));
    const key = made.asset.qualifiedKey;
    const missing = await missingPlanOptions(project, { assets: [key] }, { now: NOW });
    expect([...missing.only!].sort()).toEqual(["2026-01-04", "2026-01-06", "2026-01-07", "2026-01-09", "2026-01-10"]);
    expect(missing.window).toBe("2026-01-01..2026-01-10");
    const withEmpty = await missingPlanOptions(project, { assets: [key] }, { now: NOW, includeEmpty: true });
    expect([...withEmpty.only!].sort()).toEqual(["2026-01-04", "2026-01-05", "2026-01-06", "2026-01-07", "2026-01-09", "2026-01-10"]);
    const windowed = await missingPlanOptions(project, { assets: [key], window: "2026-01-02..2026-01-06" }, { now: NOW });
    expect([...windowed.only!].sort()).toEqual(["2026-01-04", "2026-01-06"]);
    const complete = await missingPlanOptions(project, { assets: [key], window: "2026-01-01..2026-01-03" }, { now: NOW });
    expect([...complete.only!]).toEqual([]);
    // The plan runs them, newest first, and running it fills exactly the gaps.
    const plan = il.planMaterialize(project, { ...missing, order: "newest" });
    expect(plan.runs.map((r) => r.partition)).toEqual(["2026-01-10", "2026-01-09", "2026-01-07", "2026-01-06", "2026-01-04"]);
  });
});
