// Coverage over every destination of an asset (issue 17, item 5): a partition any destination
// lacks is missing, and each view says which destination lacks what. Real destinations (CSV
// files and a SQLite file in a temporary folder), a fixed `now`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { assetCoverage, computeCoverage, coverage, destinationCounts } from "../../src/api/coverage/index.js";
import { missingPlanOptions } from "../../src/api/missing.js";
import { coverageText, factLines, listBars } from "../../src/cli/views/coverage-text.js";
import { summaryEntry } from "../../src/cli/views/coverage-summary.js";
import { cellChar, layoutCoverage } from "../../src/cli/views/coverage-layout.js";
import { coverageHtml } from "../../src/cli/report/coverage-html.js";
import { printableCoverage } from "../../src/cli/views/printable-coverage.js";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { CoverageView } from "../../src/cli/views/coverage-view.js";

const temps: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "interloper-coverage-destinations-"));
  temps.push(dir);
  return dir;
}

// 2026-01-01..2026-01-06 expected (2026-01-07 in progress).
const NOW = new Date("2026-01-07T10:00:00Z");
const DAYS = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05", "2026-01-06"];
let sources = 0;

interface TwoStores {
  readonly asset: il.Asset;
  readonly source: il.Source;
  readonly csv: il.CSVDestination;
  readonly sqlite: il.SQLiteDestination;
}

/** An asset stored in CSV files and in SQLite; `rows(key)` rows per day (0: an empty partition). */
async function twoStores(
  partitioning: il.PartitionConfig = new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  rows = (_key: string) => 2,
): Promise<TwoStores> {
  const dir = await folder();
  const csv = new il.CSVDestination({ basePath: join(dir, "csv") });
  const sqlite = new il.SQLiteDestination({ path: join(dir, "warehouse.db") });
  closers.push(() => sqlite.close());
  const column = partitioning.column;
  const definition = il.asset({
    key: "orders",
    partitioning,
    run(context) {
      const p = context.partition!;
      return Array.from({ length: rows(p.key) }, (_, i) => ({ [column]: p.key, n: i }));
    },
  });
  const source = il.source({ key: `two${++sources}`, assets: [definition] })({ destinations: [csv, sqlite] });
  return { asset: source.assets["orders"]!, source, csv, sqlite };
}

/** Writes partitions to only some of the asset's destinations. */
async function writeTo(asset: il.Asset, destinations: readonly il.Destination[], keys: readonly string[]): Promise<void> {
  const only = asset.with({ destinations: [...destinations] });
  for (const key of keys) await only.materialize(only.partitioning!.partition(key));
}

/**
 * CSV holds every day but 2026-01-02; SQLite holds 2026-01-01..03 (2026-01-03 empty there and in
 * CSV); both lack 2026-01-06.
 */
async function prepared(): Promise<TwoStores> {
  const made = await twoStores(undefined, (key) => (key === "2026-01-03" ? 0 : 2));
  await writeTo(made.asset, [made.csv], ["2026-01-01", "2026-01-03", "2026-01-04", "2026-01-05"]);
  await writeTo(made.asset, [made.sqlite], ["2026-01-01", "2026-01-02", "2026-01-03"]);
  return made;
}

describe("coverage of an asset with two destinations", () => {
  it("reads every destination's counts: a partition is complete only when every destination holds it", async () => {
    const { asset } = await prepared();
    const stores = await destinationCounts(asset);
    expect(stores.map((s) => [s.key, s.type])).toEqual([
      ["CSVDestination", "CSV files"],
      ["SQLiteDestination", "SQLite"],
    ]);
    const c = await assetCoverage(asset, { now: NOW });
    expect(c.partitions).toEqual([
      { key: "2026-01-01", status: "materialized", rows: 2 },
      { key: "2026-01-02", status: "missing", rows: null, missingIn: ["CSVDestination"] },
      { key: "2026-01-03", status: "empty", rows: 0 },
      { key: "2026-01-04", status: "missing", rows: null, missingIn: ["SQLiteDestination"] },
      { key: "2026-01-05", status: "missing", rows: null, missingIn: ["SQLiteDestination"] },
      { key: "2026-01-06", status: "missing", rows: null, missingIn: ["CSVDestination", "SQLiteDestination"] },
    ]);
    expect([c.expected, c.materialized, c.empty, c.missing, c.unexpected, c.rows]).toEqual([6, 1, 1, 4, 0, 2]);
    expect(c.missingRanges).toEqual(["2026-01-02", "2026-01-04..2026-01-06"]);
    expect(c.destinations).toEqual([
      {
        key: "CSVDestination",
        type: "CSV files",
        materialized: 3,
        empty: 1,
        missing: 2,
        unexpected: 0,
        unreadable: 0,
        rows: 6,
        missingRanges: ["2026-01-02", "2026-01-06"],
        emptyRanges: ["2026-01-03"],
      },
      {
        key: "SQLiteDestination",
        type: "SQLite",
        materialized: 2,
        empty: 1,
        missing: 3,
        unexpected: 0,
        unreadable: 0,
        rows: 4,
        missingRanges: ["2026-01-04..2026-01-06"],
        emptyRanges: ["2026-01-03"],
      },
    ]);
  });

  it("the expected range starts at the earliest key any destination holds (no start declared)", async () => {
    const made = await twoStores(new il.TimePartitionConfig({ column: "date" }));
    await writeTo(made.asset, [made.csv], ["2026-01-04", "2026-01-05", "2026-01-06"]);
    await writeTo(made.asset, [made.sqlite], ["2026-01-02", "2026-01-06"]);
    const c = await assetCoverage(made.asset, { now: NOW });
    expect(c.first).toBe("2026-01-02");
    expect(c.partitions.map((p) => [p.key, p.status, p.missingIn ?? null])).toEqual([
      ["2026-01-02", "missing", ["CSVDestination"]],
      ["2026-01-03", "missing", ["CSVDestination", "SQLiteDestination"]],
      ["2026-01-04", "missing", ["SQLiteDestination"]],
      ["2026-01-05", "missing", ["SQLiteDestination"]],
      ["2026-01-06", "materialized", null],
    ]);
  });

  it("the period in progress is never missing, whichever destination holds it; unexpected keys of any destination are listed once", async () => {
    const made = await twoStores();
    await writeTo(made.asset, [made.sqlite], ["2026-01-07"]);
    await writeTo(made.asset, [made.csv, made.sqlite], DAYS);
    const c = await assetCoverage(made.asset, { now: NOW });
    expect(c.missing).toBe(0);
    expect(c.inProgress).toEqual({ key: "2026-01-07", status: "in-progress", rows: 2 });
    expect(c.destinations.map((d) => d.missing)).toEqual([0, 0]);
    // With a window ending before it, 2026-01-07 is out of scope; with --until, after the range.
    const early = await assetCoverage(made.asset, { now: NOW, until: "2026-01-05" });
    expect([early.unexpected, early.destinations.map((d) => d.unexpected)]).toEqual([0, [0, 0]]);
    // Counts of keys outside the expected range: one unexpected key held by both destinations.
    const c2 = computeCoverage(
      made.asset,
      [
        { key: "a", type: "A", counts: { "2025-12-30": 4, "2026-01-01": 1 } },
        { key: "b", type: "B", counts: { "2025-12-30": 5, "2026-01-01": 1 } },
      ],
      { now: NOW },
    );
    expect(c2.partitions.filter((p) => p.status === "unexpected")).toEqual([{ key: "2025-12-30", status: "unexpected", rows: 4 }]);
    expect(c2.destinations.map((d) => d.unexpected)).toEqual([1, 1]);
  });

  it("a list partitioning: values missing from one destination", async () => {
    const made = await twoStores(new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }));
    await writeTo(made.asset, [made.csv, made.sqlite], ["eu"]);
    await writeTo(made.asset, [made.csv], ["us"]);
    const c = await assetCoverage(made.asset, { now: NOW });
    expect(c.partitions.map((p) => [p.key, p.status, p.missingIn ?? null])).toEqual([
      ["eu", "materialized", null],
      ["us", "missing", ["SQLiteDestination"]],
      ["apac", "missing", ["CSVDestination", "SQLiteDestination"]],
    ]);
    const bars = listBars(c, 80);
    expect(bars[0]).toMatch(/^eu {4}█+ 2$/);
    expect(bars.slice(1)).toEqual(["us    ◐ missing in SQLiteDestination", "apac  · missing"]);
  });

  it("one destination: no missingIn, one entry in destinations (the JSON of single-destination assets is unchanged)", async () => {
    const dir = await folder();
    const definition = il.asset({
      key: "orders",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-05" }),
      run: (ctx) => [{ date: ctx.partition!.key }],
    });
    const source = il.source({ key: `one${++sources}`, assets: [definition] })({ destinations: new il.CSVDestination({ basePath: dir }) });
    const asset = source.assets["orders"]!;
    await asset.materialize(asset.partitioning!.partition("2026-01-05"));
    const c = await assetCoverage(asset, { now: NOW });
    expect(c.partitions).toEqual([
      { key: "2026-01-05", status: "materialized", rows: 1 },
      { key: "2026-01-06", status: "missing", rows: null },
    ]);
    expect(Object.keys(c.partitions[1]!)).toEqual(["key", "status", "rows"]);
    expect(c.destinations).toEqual([
      {
        key: "CSVDestination",
        type: "CSV files",
        materialized: 1,
        empty: 0,
        missing: 1,
        unexpected: 0,
        unreadable: 0,
        rows: 1,
        missingRanges: ["2026-01-06"],
        emptyRanges: [],
      },
    ]);
  });

  it("computeCoverage takes a plain record of counts as the first destination's", async () => {
    const { asset } = await twoStores();
    const c = computeCoverage(asset, { "2026-01-01": 3 }, { now: NOW });
    expect(c.destinations.map((d) => d.key)).toEqual(["CSVDestination"]);
    expect(c.partitions[1]).toEqual({ key: "2026-01-02", status: "missing", rows: null });
  });

  it("a destination whose count fails fails coverage with its error, once every count has settled", async () => {
    const made = await twoStores();
    class Broken extends il.MemoryDestination {
      override partitionRowCounts(): Record<string, number> {
        throw new il.ConfigError("Broken: cannot count");
      }
    }
    const asset = made.asset.with({ destinations: [made.csv, new Broken()] });
    await expect(assetCoverage(asset, { now: NOW })).rejects.toThrow("Broken: cannot count");
  });
});

describe("materialize --missing over several destinations", () => {
  it("plans every partition missing from any destination; running it completes every destination", async () => {
    const made = await prepared();
    const project = projectOf(il.defineConfig({ sources: [made.source] }));
    const key = made.asset.qualifiedKey;
    const missing = await missingPlanOptions(project, { assets: [key] }, { now: NOW });
    expect([...missing.only!].sort()).toEqual(["2026-01-02", "2026-01-04", "2026-01-05", "2026-01-06"]);
    const plan = il.planMaterialize(project, { ...missing, order: "oldest" });
    expect(plan.runs.map((r) => r.partition)).toEqual(["2026-01-02", "2026-01-04", "2026-01-05", "2026-01-06"]);
    // The shards of the plan split exactly those partitions between them.
    const shards = [1, 2].map((index) =>
      il.planMaterialize(project, { ...missing, order: "oldest", shard: { index, count: 2 } }).runs.map((r) => r.partition),
    );
    expect(shards.flat().sort()).toEqual(["2026-01-02", "2026-01-04", "2026-01-05", "2026-01-06"]);
    expect(shards.every((runs) => runs.length > 0)).toBe(true);
    for (const partition of plan.runs.map((r) => r.partition!)) await made.asset.materialize(made.asset.partitioning!.partition(partition));
    const after = await assetCoverage(made.asset, { now: NOW });
    expect([after.missing, after.destinations.map((d) => d.missing)]).toEqual([0, [0, 0]]);
    expect([...(await missingPlanOptions(project, { assets: [key] }, { now: NOW })).only!]).toEqual([]);
  });
});

describe("the views say which destination lacks what", () => {
  it("plain text: a line per destination with its own missing ranges; partly missing days have their own mark", async () => {
    const { asset } = await prepared();
    const c = printableCoverage(await assetCoverage(asset, { now: NOW }));
    const facts = factLines(c);
    expect(facts).toContain("missing: 2026-01-02, 2026-01-04..2026-01-06");
    expect(facts).toContain("destination CSVDestination (CSV files): 4/6 stored, 6 rows; missing 2026-01-02, 2026-01-06");
    expect(facts).toContain("destination SQLiteDestination (SQLite): 3/6 stored, 4 rows; missing 2026-01-04..2026-01-06");
    const cells = layoutCoverage(c, 100)
      .flatMap((b) => b.rows.flatMap((r) => r.cells))
      .filter((cell) => cell.partition);
    expect(cells.map((cell) => [cell.partition!.key, cellChar(cell)]).sort()).toEqual([
      ["2026-01-01", "█"],
      ["2026-01-02", "◐"],
      ["2026-01-03", "○"],
      ["2026-01-04", "◐"],
      ["2026-01-05", "◐"],
      ["2026-01-06", "·"],
      ["2026-01-07", "◌"],
    ]);
    const text = coverageText(c, 100).join("\n");
    expect(text).toContain("legend: █▓▒░ rows, most to fewest   ○ empty (0 rows)   · missing   ◐ partly missing   ◌ in progress");
    for (const width of [40, 60]) for (const line of coverageText(c, width)) expect([...line].length, line).toBeLessThanOrEqual(width);
  });

  it("the terminal (ink) view shows the partly missing days and a line per destination", async () => {
    const { asset } = await prepared();
    const c = printableCoverage(await assetCoverage(asset, { now: NOW }));
    const view = render(createElement(CoverageView, { coverage: c, width: 100, color: false }));
    const frame = view.lastFrame() ?? "";
    view.unmount();
    expect(frame).toContain("◐ partly missing");
    expect(frame).toContain("Sun ◐");
    expect(frame).toContain("destination CSVDestination (CSV files): 4/6 stored, 6 rows; missing 2026-01-02, 2026-01-06");
    expect(frame).toContain("destination SQLiteDestination (SQLite): 3/6 stored, 4 rows; missing 2026-01-04..2026-01-06");
  });

  it("the summary line names the destinations that lack partitions, when only some do", async () => {
    const made = await twoStores();
    await writeTo(made.asset, [made.csv], DAYS);
    await writeTo(made.asset, [made.sqlite], DAYS.slice(0, 4));
    const [c] = await coverage(projectOf(il.defineConfig({ sources: [made.source] })), made.asset.qualifiedKey, { now: NOW });
    expect(summaryEntry(c!, 12, 10)[0]).toContain("missing 2026-01-05..2026-01-06 in SQLiteDestination");
  });

  it("HTML: partly missing cells carry their class, the destinations lacking them and a tooltip", async () => {
    const { asset } = await prepared();
    const html = coverageHtml([await assetCoverage(asset, { now: NOW })], NOW);
    expect(html).toContain('class="partition missing partial" data-key="2026-01-04" data-rows="" data-missing-in="SQLiteDestination"');
    expect(html).toContain("<title>2026-01-04: missing in SQLiteDestination (held by CSVDestination)</title>");
    expect(html).toContain(
      'class="partition missing" data-key="2026-01-06" data-rows="" data-missing-in="CSVDestination,SQLiteDestination"',
    );
    expect(html).toContain("missing in some destinations");
    expect(html).toContain("<li>destination SQLiteDestination (SQLite): 3/6 stored, 4 rows; missing 2026-01-04..2026-01-06</li>");
  });
});
