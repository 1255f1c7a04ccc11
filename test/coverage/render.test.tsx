// Rendering of coverage (issue 6): the grid layout per granularity, plain text at several
// widths, the one-line summaries, the ink CoverageView (ink-testing-library) and the HTML
// report's cells.
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
// Colour on, as in a terminal: chalk reads FORCE_COLOR when it is first imported, which
// vi.hoisted runs before; so color=false is what keeps escapes out, not a colourless stdout.
vi.hoisted(() => {
  process.env["FORCE_COLOR"] = "1";
});
import * as il from "../../src/index.js";
import { computeCoverage, type Coverage } from "../../src/api/coverage/index.js";
import { markStale } from "../../src/api/coverage/stale.js";
import { cellChar, coverageBar, layoutCoverage, type Block } from "../../src/cli/views/coverage-layout.js";
import { blockLines, coverageText, factLines, legend, listBars } from "../../src/cli/views/coverage-text.js";
import { summaryEntry, summaryLines } from "../../src/cli/views/coverage-summary.js";
import { CoverageView } from "../../src/cli/views/coverage-view.js";
import { coverageHtml } from "../../src/cli/report/coverage-html.js";

const DAY_MS = 86_400_000;
const WIDTHS = [40, 80, 120] as const;
const ANSI = "\u001b[";

function assetOf(partitioning: il.PartitionConfig, key = "orders", sourceKey = "shop"): il.Asset {
  const definition = il.asset({ key, partitioning, run: () => [] });
  return il.source({ key: sourceKey, assets: [definition] })({ destinations: new il.MemoryDestination() }).assets[key]!;
}

/** Every period key of a granularity from `start` to the period holding `now`. */
function periods(g: il.TimeGranularity, start: string, now: string): string[] {
  return [...g.periodRange(start, now)].map((d) => g.format(d));
}

/**
 * Coverage of a time asset where every 11th partition (from the 3rd) is missing, every 17th is
 * empty, the rest hold a varying count; plus one unexpected key.
 */
function timeCoverage(
  g: il.TimeGranularity,
  start: string,
  now: string,
  options: { complete?: boolean; sourceKey?: string } = {},
): Coverage {
  const counts: Record<string, number> = {};
  periods(g, start, now).forEach((key, i) => {
    if (!options.complete && i % 11 === 2) return;
    counts[key] = !options.complete && i % 17 === 5 ? 0 : 50 + ((i * 37) % 200);
  });
  counts["1999"] = 3;
  return computeCoverage(
    assetOf(new il.TimePartitionConfig({ column: "at", granularity: g, start }), "orders", options.sourceKey),
    counts,
    { now: new Date(now), includeCurrent: true },
  );
}

const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const cellsOf = (blocks: readonly Block[]) => blocks.flatMap((b) => b.rows.flatMap((r) => r.cells));
const partitionKeys = (blocks: readonly Block[]) => cellsOf(blocks).flatMap((c) => (c.partition ? [c.partition.key] : []));
const longest = (lines: readonly string[]) => Math.max(...lines.map((l) => [...l].length));
const tooLong = (lines: readonly string[], width: number) => lines.filter((l) => [...l].length > width);

describe("day calendar layout", () => {
  const year = timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31T18:00:00Z");

  it("one block per year: 7 weekday rows (Mon first), a column per week, a cell per expected day", () => {
    const blocks = layoutCoverage(year, 80);
    expect(blocks.map((b) => b.title)).toEqual(["2025"]);
    const [block] = blocks;
    expect(block!.rows).toHaveLength(7);
    expect(block!.rows.map((r) => r.label)).toEqual(["Mon", "", "Wed", "", "Fri", "", "Sun"]);
    // 2025-01-01 is a Wednesday, 2025-12-31 too: weeks from Monday 2024-12-30 to Monday 2025-12-29.
    for (const row of block!.rows) expect(row.cells).toHaveLength(53);
    expect(partitionKeys(blocks).sort()).toEqual(periods(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31"));
    // Each cell sits at its week column and weekday row.
    const monday = Date.UTC(2024, 11, 30);
    block!.rows.forEach((row, weekday) =>
      row.cells.forEach((cell, week) => {
        const day = dayKey(monday + (week * 7 + weekday) * DAY_MS);
        if (day < "2025-01-01" || day > "2025-12-31") expect(cell.status, day).toBe("none");
        else expect(cell.partition?.key, `row ${weekday} column ${week}`).toBe(day);
      }),
    );
    // Statuses come from the coverage.
    const byKey = new Map(year.partitions.map((p) => [p.key, p.status]));
    for (const cell of cellsOf(blocks)) if (cell.partition) expect(cell.status).toBe(byKey.get(cell.partition.key));
  });

  it("labels each month above the week holding its first day", () => {
    const [block] = layoutCoverage(year, 80);
    const header = block!.header!;
    expect(header.length).toBeLessThanOrEqual(53);
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const positions = months.map((m) => header.indexOf(m));
    months.forEach((m, i) => {
      const column = Math.floor((Date.UTC(2025, i, 1) - Date.UTC(2024, 11, 30)) / (7 * DAY_MS));
      expect(positions[i], m).toBe(column);
    });
  });

  it("a part year starts at the start's week and ends at the current day's week", () => {
    const c = timeCoverage(il.TimeGranularity.DAY, "2026-03-04", "2026-04-15T08:00:00Z");
    const blocks = layoutCoverage(c, 100);
    expect(blocks.map((b) => b.title)).toEqual(["2026"]);
    // Monday 2026-03-02 to Monday 2026-04-13: 7 weeks.
    for (const row of blocks[0]!.rows) expect(row.cells).toHaveLength(7);
    expect(partitionKeys(blocks).sort()).toEqual(periods(il.TimeGranularity.DAY, "2026-03-04", "2026-04-15"));
    expect(blocks[0]!.header).toMatch(/^Mar\s+Apr$/);
  });

  it("several years: one block per year", () => {
    const c = timeCoverage(il.TimeGranularity.DAY, "2024-07-01", "2026-02-10T08:00:00Z");
    const blocks = layoutCoverage(c, 100);
    expect(blocks.map((b) => b.title)).toEqual(["2024", "2025", "2026"]);
    expect(partitionKeys(blocks)).toHaveLength(c.expected);
  });

  it("narrow: one block per half-year, every day still shown once", () => {
    const blocks = layoutCoverage(year, 40);
    expect(blocks.map((b) => b.title)).toEqual(["2025 H1", "2025 H2"]);
    expect(partitionKeys(blocks).sort()).toEqual(periods(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31"));
    expect(partitionKeys([blocks[0]!]).every((k) => k <= "2025-06-30")).toBe(true);
    for (const block of blocks) {
      expect(block.rows).toHaveLength(7);
      expect(block.header).toMatch(/^(Jan|Jul)/);
      for (const line of blockLines(block)) expect([...line].length).toBeLessThanOrEqual(40);
    }
  });

  it("widens its cells to the width: a year fills most of 120 columns, never more", () => {
    const narrow = layoutCoverage(year, 80)[0]!;
    const wide = layoutCoverage(year, 120)[0]!;
    expect(narrow.cellWidth).toBe(1);
    expect(wide.cellWidth).toBe(2);
    const lines = blockLines(wide);
    expect(longest(lines)).toBeLessThanOrEqual(120);
    expect(longest(lines)).toBeGreaterThan(100);
    // Each cell is its mark and a gap: the Monday row reads mark, space, mark...
    const monday = lines[2]!.slice(4);
    expect(monday.replace(/(.) /g, "$1")).toBe(wide.rows[0]!.cells.map(cellChar).join("").trimEnd());
    // A few weeks get the widest cells, no wider.
    const month = layoutCoverage(timeCoverage(il.TimeGranularity.DAY, "2026-03-01", "2026-03-31T08:00:00Z"), 120)[0]!;
    expect(month.cellWidth).toBe(3);
  });

  it.each([57, 80, 120])("month names sit over their first week at %i columns, never cut to a letter", (width) => {
    for (const c of [
      year,
      timeCoverage(il.TimeGranularity.DAY, "2025-11-03", "2025-12-01T08:00:00Z"),
      timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-02T08:00:00Z"),
    ]) {
      for (const block of layoutCoverage(c, width)) {
        const names = block.header!.match(/\S+/g)!;
        for (const name of names)
          expect(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]).toContain(name);
        expect(4 + block.header!.length).toBeLessThanOrEqual(width);
      }
    }
    // A range ending on the 1st still names its last month (it used to end in a bare "D").
    const [block] = layoutCoverage(timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-02T08:00:00Z"), 80);
    expect(block!.header!.trimEnd()).toMatch(/Nov +Dec$/);
    const [wide] = layoutCoverage(year, 120);
    const column = Math.floor((Date.UTC(2025, 5, 1) - Date.UTC(2024, 11, 30)) / (7 * DAY_MS));
    expect(wide!.header!.indexOf("Jun")).toBe(column * 2);
  });

  it("marks: missing, empty and 4 shades of rows, blank outside the range", () => {
    const cells = cellsOf(layoutCoverage(year, 80));
    const chars = new Set(cells.map(cellChar));
    expect(cells.filter((c) => c.status === "missing").map(cellChar)).toEqual(Array(year.missing).fill("·"));
    expect(cells.filter((c) => c.status === "empty").map(cellChar)).toEqual(Array(year.empty).fill("○"));
    for (const cell of cells.filter((c) => c.status === "materialized")) {
      expect(cell.level).toBeGreaterThanOrEqual(1);
      expect(cell.level).toBeLessThanOrEqual(4);
      expect("░▒▓█").toContain(cellChar(cell));
    }
    expect(
      cells
        .filter((c) => c.status === "none")
        .map(cellChar)
        .every((ch) => ch === " "),
    ).toBe(true);
    expect(chars.size).toBeGreaterThanOrEqual(5);
    // The fullest partition gets the darkest shade.
    const max = cells.find((c) => c.partition?.rows === year.maxRows)!;
    expect(cellChar(max)).toBe("█");
  });
});

describe("hour, month and strip layouts", () => {
  it("hours: days by 24 columns, hour h in column h", () => {
    const c = timeCoverage(il.TimeGranularity.HOUR, "2026-03-01T05:00:00Z", "2026-03-04T10:20:00Z");
    const [block, ...rest] = layoutCoverage(c, 80);
    expect(rest).toEqual([]);
    expect(block!.rows.map((r) => r.label)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"]);
    for (const row of block!.rows) {
      expect(row.cells).toHaveLength(24);
      row.cells.forEach((cell, hour) => {
        if (cell.partition) expect(cell.partition.key).toBe(`${row.label}T${String(hour).padStart(2, "0")}`);
      });
    }
    expect(block!.rows[0]!.cells.slice(0, 5).every((cell) => cell.status === "none")).toBe(true);
    expect(block!.rows[3]!.cells.slice(11).every((cell) => cell.status === "none")).toBe(true);
    expect(partitionKeys([block!])).toEqual(c.partitions.filter((p) => p.status !== "unexpected").map((p) => p.key));
    expect(block!.note).toBeNull();
    // The header puts 0, 6, 12 and 18 above their columns.
    for (const hour of [0, 6, 12, 18]) expect(block!.header!.slice(hour).startsWith(String(hour))).toBe(true);
  });

  it("hours: only the last 62 days, with a note saying so", () => {
    const c = timeCoverage(il.TimeGranularity.HOUR, "2026-01-01T00:00:00Z", "2026-04-10T23:00:00Z");
    const [block] = layoutCoverage(c, 80);
    expect(block!.rows).toHaveLength(62);
    expect(block!.rows.at(-1)!.label).toBe("2026-04-10");
    expect(block!.rows[0]!.label).toBe("2026-02-08");
    expect(block!.note).toBe("showing the last 62 of 100 days");
    expect(blockLines(block!)).toContain("(showing the last 62 of 100 days)");
    // The HTML report shows every hour.
    const [all] = layoutCoverage(c, 200, { allHours: true });
    expect(all!.rows).toHaveLength(100);
  });

  it("months: years by 12, month m in column m", () => {
    const c = timeCoverage(il.TimeGranularity.MONTH, "2024-03-01", "2026-05-20T00:00:00Z");
    const [block, ...rest] = layoutCoverage(c, 80);
    expect(rest).toEqual([]);
    expect(block!.rows.map((r) => r.label)).toEqual(["2024", "2025", "2026"]);
    expect(block!.header).toBe("JFMAMJJASOND");
    for (const row of block!.rows) {
      expect(row.cells).toHaveLength(12);
      row.cells.forEach((cell, m) => {
        if (cell.partition) expect(cell.partition.key).toBe(`${row.label}-${String(m + 1).padStart(2, "0")}`);
      });
    }
    expect(block!.rows[0]!.cells.slice(0, 2).map((cell) => cell.status)).toEqual(["none", "none"]);
    expect(block!.rows[2]!.cells.slice(5).every((cell) => cell.status === "none")).toBe(true);
    expect(partitionKeys([block!])).toHaveLength(c.expected);
  });

  it.each([
    ["week", il.TimeGranularity.WEEK, "2023-01-02", "2026-02-11T00:00:00Z"],
    ["quarter", il.TimeGranularity.QUARTER, "2001-01-01", "2026-02-11T00:00:00Z"],
    ["year", il.TimeGranularity.YEAR, "1950-01-01", "2026-02-11T00:00:00Z"],
  ] as const)("%ss: a strip in order, wrapped to the width", (name, g, start, now) => {
    const c = timeCoverage(g, start, now);
    for (const width of WIDTHS) {
      const blocks = layoutCoverage(c, width);
      expect(blocks.map((b) => b.title)).toEqual([`${name}s`]);
      expect(partitionKeys(blocks)).toEqual(c.partitions.filter((p) => p.status !== "unexpected").map((p) => p.key));
      const rows = blocks[0]!.rows;
      // Each row is labelled by its first key; rows are full except the last.
      for (const row of rows) expect(row.label).toBe(row.cells[0]!.partition!.key);
      for (const row of rows.slice(0, -1)) expect(row.cells).toHaveLength(rows[0]!.cells.length);
      if (c.expected > 60) expect(rows.length, `${name} at ${width}`).toBeGreaterThan(1);
      expect(tooLong(blockLines(blocks[0]!), width), `${name} at ${width}`).toEqual([]);
    }
    // Wider terminals show more per row.
    expect(layoutCoverage(c, 40)[0]!.rows.length).toBeGreaterThan(layoutCoverage(c, 120)[0]!.rows.length);
  });

  it("nothing expected: no blocks", () => {
    const c = computeCoverage(assetOf(new il.TimePartitionConfig({ column: "at" })), {}, { now: new Date("2026-01-01T00:00:00Z") });
    expect(layoutCoverage(c, 80)).toEqual([]);
    expect(coverageText(c, 80).join("\n")).toContain("nothing expected yet");
  });
});

describe("coverageBar", () => {
  it("is exactly `width` characters: full, empty, missing and partial buckets", () => {
    const complete = timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31T00:00:00Z", { complete: true });
    const gaps = timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31T00:00:00Z");
    const none = computeCoverage(
      assetOf(new il.TimePartitionConfig({ column: "at", start: "2025-01-01" })),
      {},
      { now: new Date("2025-12-31T00:00:00Z") },
    );
    for (const width of [10, 25, 40]) {
      expect([...coverageBar(complete, width)]).toHaveLength(width);
      expect(coverageBar(complete, width)).toBe("█".repeat(width));
      expect(coverageBar(none, width)).toBe("·".repeat(width));
      expect([...coverageBar(gaps, width)]).toHaveLength(width);
      expect(coverageBar(gaps, width)).toContain("▒");
    }
    // Fewer partitions than slots: one char per partition, padded.
    const few = computeCoverage(assetOf(new il.ListPartitionConfig({ column: "r", values: ["a", "b", "c"] })), { a: 1, b: 0 });
    expect(coverageBar(few, 10)).toBe("█○·       ");
  });
});

describe("plain text at widths 40, 80 and 120", () => {
  const pictures: Array<[string, Coverage]> = [
    ["a year of days", timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31T18:00:00Z")],
    ["three years of days", timeCoverage(il.TimeGranularity.DAY, "2023-05-01", "2025-12-31T18:00:00Z")],
    ["hours", timeCoverage(il.TimeGranularity.HOUR, "2026-01-01T00:00:00Z", "2026-04-10T23:00:00Z")],
    ["weeks", timeCoverage(il.TimeGranularity.WEEK, "2023-01-02", "2026-02-11T00:00:00Z")],
    ["months", timeCoverage(il.TimeGranularity.MONTH, "2019-01-01", "2026-02-11T00:00:00Z")],
    ["quarters", timeCoverage(il.TimeGranularity.QUARTER, "2001-01-01", "2026-02-11T00:00:00Z")],
    ["years", timeCoverage(il.TimeGranularity.YEAR, "1950-01-01", "2026-02-11T00:00:00Z")],
  ];

  it.each(pictures)("%s: the picture fits every width", (_name, c) => {
    for (const width of WIDTHS) {
      const picture = layoutCoverage(c, width).flatMap(blockLines);
      expect(picture.length).toBeGreaterThan(0);
      expect(tooLong(picture, width), `at ${width}`).toEqual([]);
    }
  });

  it.each(pictures)("%s: the whole text output (picture, legend, facts) fits every width", (_name, c) => {
    for (const width of WIDTHS) expect(coverageText(c, width)).toContain(legend(width));
    const overflow = Object.fromEntries(WIDTHS.map((width) => [width, tooLong(coverageText(c, width), width)]));
    expect(overflow).toEqual({ 40: [], 80: [], 120: [] });
  });

  it("list partitions: labelled bars of row counts that fit every width", () => {
    const values = ["eu", "us", "apac", "latam", "mena", "north-america-east"];
    const c = computeCoverage(assetOf(new il.ListPartitionConfig({ column: "region", values })), {
      eu: 100,
      us: 0,
      latam: 50,
      "north-america-east": 7,
      mars: 1,
    });
    for (const width of WIDTHS) {
      const bars = listBars(c, width);
      expect(bars).toHaveLength(values.length);
      expect(bars[0]).toMatch(/^eu\s+█+ 100$/);
      expect(bars[1]).toMatch(/^us\s+○ empty \(0 rows\)$/);
      expect(bars[2]).toMatch(/^apac\s+· missing$/);
      expect(bars[3]).toMatch(/^latam\s+█+ 50$/);
      // Bars are proportional: latam's is about half of eu's.
      const bar = (line: string) => (line.match(/█+/)?.[0] ?? "").length;
      expect(Math.abs(bar(bars[3]!) * 2 - bar(bars[0]!))).toBeLessThanOrEqual(1);
      expect(tooLong(bars, width), `at ${width}`).toEqual([]);
      expect(coverageText(c, width).slice(0, values.length)).toEqual(bars);
    }
    expect(factLines(c).join("\n")).toContain("unexpected (stored, outside the expected partitions): mars (1 row)");
  });

  it("facts: totals, rows per partition, missing and empty ranges, suspicious and unexpected partitions", () => {
    const counts: Record<string, number> = {};
    for (const key of periods(il.TimeGranularity.DAY, "2026-01-01", "2026-01-20")) counts[key] = 1000;
    delete counts["2026-01-04"];
    delete counts["2026-01-05"];
    counts["2026-01-07"] = 0;
    counts["2026-01-09"] = 3;
    counts["2025-06-01"] = 12;
    const c = computeCoverage(assetOf(new il.TimePartitionConfig({ column: "date", start: "2026-01-01" })), counts, {
      now: new Date("2026-01-20T12:00:00Z"),
      includeCurrent: true,
    });
    const lines = factLines(c);
    expect(lines[0]).toBe('shop.orders  day partitions on "date", 2026-01-01..2026-01-20');
    expect(lines).toContain("expected 20  materialized 17  empty 1  missing 2  unexpected 1");
    expect(lines).toContain("rows 16,003 (per partition: min 3, median 1,000, max 1,000)");
    expect(lines).toContain("missing: 2026-01-04..2026-01-05");
    expect(lines).toContain("empty: 2026-01-07");
    expect(lines.find((l) => l.startsWith("suspicious"))).toContain("2026-01-09 (3 rows)");
    expect(lines.find((l) => l.startsWith("unexpected"))).toContain("2025-06-01 (12 rows)");
  });

  it.each([60, 80])("facts at %i columns wrap, whole, instead of being cut", (width) => {
    const c = timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31T18:00:00Z");
    const lines = factLines(c, width);
    expect(tooLong(lines, width)).toEqual([]);
    expect(lines.join("\n")).not.toContain("…");
    const text = lines.join(" ").replace(/\s+/g, " ");
    expect(text).toContain(`missing: ${c.missingRanges.slice(0, 8).join(", ")} and ${c.missingRanges.length - 8} more`);
  });

  it("many ranges are cut short with a count of the rest", () => {
    const c = timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31T18:00:00Z");
    const missing = factLines(c).find((l) => l.startsWith("missing: "))!;
    expect(c.missingRanges.length).toBeGreaterThan(8);
    expect(missing).toContain(`and ${c.missingRanges.length - 8} more`);
  });
});

describe("summary lines (coverage with no asset)", () => {
  /** The bar width `interloper coverage` gives a terminal of `width` columns. */
  const barWidthFor = (width: number, keyWidth: number) => Math.max(10, Math.min(40, width - keyWidth - 40));

  const assets = [
    timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31T18:00:00Z", { sourceKey: "shop" }),
    timeCoverage(il.TimeGranularity.MONTH, "2019-01-01", "2025-12-31T18:00:00Z", { complete: true, sourceKey: "finance" }),
  ];

  it("one line per asset: key, bar, present/expected, rows, missing ranges in short", () => {
    const keyWidth = Math.max(...assets.map((c) => c.asset.length));
    const [days, months] = assets.map((c) => summaryEntry(c, keyWidth, 20)[0]!);
    expect(days).toContain(coverageBar(assets[0]!, 20));
    expect(days).toMatch(new RegExp(`${assets[0]!.materialized + assets[0]!.empty}/365`));
    expect(days).toContain(`missing ${assets[0]!.missingRanges[0]}, ${assets[0]!.missingRanges[1]}, `);
    expect(days).toMatch(/ and \d+ more$/);
    expect(months).toContain("█".repeat(20));
    expect(months).not.toContain("missing");
  });

  it.each(WIDTHS)("fits a terminal of %i columns", (width) => {
    const keyWidth = Math.max(...assets.map((c) => c.asset.length));
    const lines = assets.flatMap((c) => summaryEntry(c, keyWidth, barWidthFor(width, keyWidth), width));
    expect(tooLong(lines, width)).toEqual([]);
  });

  it.each([60, 80, 120])("at %i columns the missing ranges wrap under the bar, whole, never cut", (width) => {
    const lines = summaryLines(assets, width);
    expect(tooLong(lines, width)).toEqual([]);
    expect(lines.join("\n")).not.toContain("…");
    // Every shown range appears whole, and the rest are counted.
    const text = lines.join(" ").replace(/\s+/g, " ");
    for (const range of assets[0]!.missingRanges.slice(0, 8)) expect(text).toContain(range);
    expect(text).toContain(`and ${assets[0]!.missingRanges.length - 8} more`);
  });

  it("counts rows with the noun agreeing: 1 row, 0 rows", () => {
    const one = computeCoverage(assetOf(new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] })), { eu: 1 });
    const none = computeCoverage(assetOf(new il.ListPartitionConfig({ column: "region", values: ["eu"] }), "empty"), { eu: 0 });
    const lines = summaryLines([one, none], 120);
    expect(lines[0]).toMatch(/ 1 row {2}missing us$/);
    expect(lines[1]).toMatch(/ 0 rows$/);
  });
});

describe("CoverageView (ink)", () => {
  const mounted: Array<{ unmount(): void }> = [];
  afterEach(() => {
    for (const app of mounted.splice(0)) app.unmount();
  });
  const show = (coverage: Coverage, width: number, color: boolean) => {
    const app = render(<CoverageView coverage={coverage} width={width} color={color} />);
    mounted.push(app);
    return app.lastFrame() ?? "";
  };

  const c = timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-12-31T18:00:00Z");
  const totals = `expected ${c.expected}  materialized ${c.materialized}  empty ${c.empty}  missing ${c.missing}  unexpected ${c.unexpected}`;

  const strip = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");

  // ink-testing-library's stdout is 100 columns wide: the ink view is checked up to that; the
  // text layout it draws is checked at 120 above.
  const INK_WIDTHS = [40, 80, 100] as const;

  it.each(INK_WIDTHS)("at width %i: calendar, legend, totals and missing ranges", (width) => {
    const frame = strip(show(c, width, false));
    expect(frame).toContain(legend(width));
    for (const part of totals.split("  ")) expect(frame).toContain(part);
    if (width >= totals.length) expect(frame).toContain(totals);
    // As many ranges as fit the width: one at 40 columns, more when wider.
    expect(frame).toContain(width < 60 ? `missing: ${c.missingRanges[0]}` : `missing: ${c.missingRanges[0]}, ${c.missingRanges[1]}`);
    // The picture is the text layout's.
    for (const block of layoutCoverage(c, width)) {
      expect(frame).toContain(block.title);
      for (const line of blockLines(block).slice(1)) expect(frame).toContain(line);
    }
    expect(frame).toContain(width < 62 ? "2025 H2" : "2025");
  });

  it.each(WIDTHS)("at width %i with color=false: no ANSI escape codes at all", (width) => {
    expect(show(c, width, false)).not.toContain(ANSI);
  });

  it("with colour, the same text plus colour codes", () => {
    const plain = show(c, 80, false);
    const coloured = show(c, 80, true);
    expect(coloured).toContain(ANSI);
    // (ink may leave a trailing space where it wraps a coloured line)
    const lines = (text: string) =>
      strip(text)
        .split("\n")
        .map((l) => l.trimEnd());
    expect(lines(coloured)).toEqual(lines(plain));
  });

  it("with colour, stale cells in bright blue (their own colour); without, the same mark and no escape", () => {
    // Marked by the one function coverage uses, with reasons as staleness words them.
    const base = timeCoverage(il.TimeGranularity.DAY, "2025-01-01", "2025-03-31T18:00:00Z", { complete: true });
    const stale = markStale(base, { "2025-02-03": ["shop.orders 2025-02-03 was materialized again at 2025-03-01 10:00:00 UTC"] });
    expect(stale.stale).toBe(1);
    const coloured = show(stale, 100, true);
    expect(coloured).toMatch(/\u001b\[94m▲+/);
    expect(show(base, 100, true)).not.toContain("\u001b[94m");
    const plain = show(stale, 100, false);
    expect(plain).not.toContain(ANSI);
    expect(plain).toContain("▲ stale");
    expect(plain).toContain("stale (out of date; materialize --stale rebuilds them): 2025-02-03");
  });

  it("hours, months, a strip and a list render with their facts", () => {
    const cases = [
      timeCoverage(il.TimeGranularity.HOUR, "2026-03-01T05:00:00Z", "2026-03-04T10:20:00Z"),
      timeCoverage(il.TimeGranularity.MONTH, "2024-03-01", "2026-05-20T00:00:00Z"),
      timeCoverage(il.TimeGranularity.QUARTER, "2001-01-01", "2026-02-11T00:00:00Z"),
      computeCoverage(assetOf(new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] })), { eu: 5, us: 0 }),
    ];
    for (const cov of cases) {
      for (const width of [40, 100]) {
        const frame = strip(show(cov, width, false));
        expect(frame).toContain(legend(width));
        expect(frame).toContain(`expected ${cov.expected}  materialized ${cov.materialized}`);
        expect(frame).toContain(`missing: ${cov.missingRanges[0]}`);
      }
    }
    const list = strip(show(cases[3]!, 80, false));
    expect(list).toMatch(/eu\s+█+ 5/);
    expect(list).toContain("○ empty (0 rows)");
    expect(list).toMatch(/apac\s+· missing/);
  });
});

describe("coverageHtml", () => {
  const rects = (html: string) =>
    [...html.matchAll(/<rect class="partition (\w+)" data-key="([^"]*)"/g)].map((m) => ({ status: m[1]!, key: m[2]! }));

  it.each([
    ["days", timeCoverage(il.TimeGranularity.DAY, "2024-07-01", "2026-02-10T08:00:00Z")],
    ["hours over more than 62 days", timeCoverage(il.TimeGranularity.HOUR, "2026-01-01T00:00:00Z", "2026-04-10T23:00:00Z")],
    ["weeks", timeCoverage(il.TimeGranularity.WEEK, "2023-01-02", "2026-02-11T00:00:00Z")],
    ["months", timeCoverage(il.TimeGranularity.MONTH, "2019-01-01", "2026-02-11T00:00:00Z")],
    [
      "list",
      computeCoverage(assetOf(new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] })), { eu: 5, us: 0, mars: 2 }),
    ],
  ] as const)("%s: one rect per expected partition, with its status", (_name, c) => {
    const html = coverageHtml([c], new Date("2026-02-11T00:00:00Z"));
    const found = rects(html);
    const expected = c.partitions.filter((p) => p.status !== "unexpected");
    expect(found.map((r) => r.key).sort()).toEqual(expected.map((p) => p.key).sort());
    const status = new Map(expected.map((p) => [p.key, p.status]));
    for (const r of found) expect(r.status, r.key).toBe(status.get(r.key));
    // Self-contained: no script, stylesheet link, image or url() to fetch.
    expect(html).not.toMatch(/<script|<link|<img|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg")/i);
    for (const range of c.missingRanges.slice(0, 8)) expect(html).toContain(range);
  });

  it("escapes asset keys and values", () => {
    const c = computeCoverage(assetOf(new il.ListPartitionConfig({ column: "region", values: ["<b>&'\""] })), {});
    const html = coverageHtml([c]);
    expect(html).not.toContain("<b>&'\"");
    expect(html).toContain("&#60;b&#62;&#38;&#39;&#34;");
  });
});
