// Issue 17 item 4: where the expected range of a time partitioning ends. By default with the
// last complete period (the current one is "in progress": neither expected nor unexpected);
// `until` and `includeCurrent` move the end; a window decides alone. Runs in three process
// time zones: the result depends on `now` and `timeZone` only.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { computeCoverage, coverage } from "../../src/api/coverage/index.js";
import { missingPlanOptions } from "../../src/api/missing.js";
import { coverageHtml } from "../../src/cli/report/coverage-html.js";
import { layoutCoverage } from "../../src/cli/views/coverage-layout.js";
import { coverageText, legend } from "../../src/cli/views/coverage-text.js";

let sources = 0;

function assetOf(partitioning: il.PartitionConfig): il.Asset {
  const definition = il.asset({ key: "a", partitioning, run: () => [] });
  return il.source({ key: `r${++sources}`, assets: [definition] })({ destinations: new il.MemoryDestination() }).assets["a"]!;
}

const daily = (start: string | null = "2026-01-01") => assetOf(new il.TimePartitionConfig({ column: "d", ...(start ? { start } : {}) }));
const keys = (c: il.Coverage | ReturnType<typeof computeCoverage>) =>
  c.partitions.filter((p) => p.status !== "unexpected").map((p) => p.key);
const at = (iso: string) => new Date(iso);

describe("the default end: the last complete period", () => {
  it("daily: yesterday (UTC) is the last expected day at any hour of today", () => {
    for (const now of ["2026-01-10T00:00:00Z", "2026-01-10T12:00:00Z", "2026-01-10T23:59:59.999Z"]) {
      const c = computeCoverage(daily(), {}, { now: at(now) });
      expect([c.first, c.last, c.expected], now).toEqual(["2026-01-01", "2026-01-09", 9]);
      expect(c.inProgress, now).toEqual({ key: "2026-01-10", status: "in-progress", rows: null });
    }
  });

  it("each granularity: the previous period is the last expected, the current one is in progress", () => {
    const cases: Array<[il.TimeGranularity, string, string, string]> = [
      [il.TimeGranularity.HOUR, "2026-03-02T00:10:00Z", "2026-03-01T23", "2026-03-02T00"],
      [il.TimeGranularity.DAY, "2026-03-01T00:10:00Z", "2026-02-28", "2026-03-01"],
      [il.TimeGranularity.WEEK, "2026-01-05T10:00:00Z", "2026-W01", "2026-W02"],
      [il.TimeGranularity.MONTH, "2026-03-01T00:00:00Z", "2026-02", "2026-03"],
      [il.TimeGranularity.QUARTER, "2026-04-15T00:00:00Z", "2026-Q1", "2026-Q2"],
      [il.TimeGranularity.YEAR, "2026-01-01T00:00:00Z", "2025", "2026"],
    ];
    for (const [granularity, now, last, current] of cases) {
      const asset = assetOf(new il.TimePartitionConfig({ column: "t", granularity, start: "2024-01-01" }));
      const c = computeCoverage(asset, { [current]: 3 }, { now: at(now) });
      expect(c.last, granularity.name).toBe(last);
      expect(c.inProgress, granularity.name).toEqual({ key: current, status: "in-progress", rows: 3 });
      expect(c.unexpected, granularity.name).toBe(0);
      expect(c.missingRanges.join(), granularity.name).not.toContain(current);
    }
  });

  it("the current period follows the given time zone's calendar (hours stay UTC)", () => {
    // 2026-01-10T20:00Z is already the 11th in Kolkata (UTC+5:30), still the 10th in Los Angeles.
    const evening = at("2026-01-10T20:00:00Z");
    expect(computeCoverage(daily(), {}, { now: evening, timeZone: "Asia/Kolkata" }).inProgress?.key).toBe("2026-01-11");
    expect(computeCoverage(daily(), {}, { now: evening, timeZone: "America/Los_Angeles" }).inProgress?.key).toBe("2026-01-10");
    // 2026-01-10T05:00Z is still the 9th in Los Angeles: the 8th is the last complete day there.
    const morning = at("2026-01-10T05:00:00Z");
    expect(computeCoverage(daily(), {}, { now: morning, timeZone: "America/Los_Angeles" }).last).toBe("2026-01-08");
    expect(computeCoverage(daily(), {}, { now: morning }).last).toBe("2026-01-09");
    const hourly = assetOf(
      new il.TimePartitionConfig({ column: "t", granularity: il.TimeGranularity.HOUR, start: "2026-01-10T00:00:00Z" }),
    );
    expect(computeCoverage(hourly, {}, { now: morning, timeZone: "Asia/Kolkata" }).inProgress?.key).toBe("2026-01-10T05");
    expect(() => computeCoverage(daily(), {}, { now: morning, timeZone: "Mars/Olympus" })).toThrow(/unknown time zone "Mars\/Olympus"/);
  });

  it("an asset starting today expects nothing yet and shows today in progress; one starting later shows nothing", () => {
    const now = at("2026-01-10T12:00:00Z");
    const today = computeCoverage(daily("2026-01-10"), { "2026-01-10": 4 }, { now });
    expect([today.expected, today.unexpected, today.inProgress]).toEqual([0, 0, { key: "2026-01-10", status: "in-progress", rows: 4 }]);
    const later = computeCoverage(daily("2026-01-11"), {}, { now });
    expect([later.expected, later.inProgress]).toEqual([0, null]);
    // Without a start and with only today stored, nothing is expected yet.
    const unbounded = computeCoverage(daily(null), { "2026-01-10": 4 }, { now });
    expect([unbounded.expected, unbounded.unexpected, unbounded.inProgress?.rows]).toEqual([0, 0, 4]);
  });

  it("stored periods after the current one stay unexpected", () => {
    const c = computeCoverage(daily(), { "2026-01-11": 1, "2026-01-10": 2 }, { now: at("2026-01-10T12:00:00Z") });
    expect(c.partitions.filter((p) => p.status === "unexpected")).toEqual([{ key: "2026-01-11", status: "unexpected", rows: 1 }]);
  });

  it("a list partitioning has no current period", () => {
    const list = assetOf(new il.ListPartitionConfig({ column: "r", values: ["eu", "us"] }));
    const c = computeCoverage(list, { eu: 1 }, { now: at("2026-01-10T12:00:00Z"), until: "2026-01-05", includeCurrent: false });
    expect([c.expected, c.inProgress]).toEqual([2, null]);
  });
});

describe("until, includeCurrent and a window", () => {
  const now = at("2026-01-10T12:00:00Z");
  const stored = { "2026-01-02": 1, "2026-01-07": 1, "2026-01-10": 1 };

  it("includeCurrent expects the current period too", () => {
    const c = computeCoverage(daily(), stored, { now, includeCurrent: true });
    expect([c.last, c.expected, c.inProgress]).toEqual(["2026-01-10", 10, null]);
    expect(c.partitions.find((p) => p.key === "2026-01-10")?.status).toBe("materialized");
  });

  it("until ends the range at its key, inclusive; stored periods after it up to now are out of scope", () => {
    const c = computeCoverage(daily(), stored, { now, until: "2026-01-05" });
    expect(keys(c)).toEqual(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05"]);
    expect([c.unexpected, c.inProgress]).toEqual([0, null]);
    // The day before the current one: the same as the default, in progress included.
    expect(computeCoverage(daily(), stored, { now, until: "2026-01-09" }).inProgress?.key).toBe("2026-01-10");
    // After the current period: clamped to it.
    expect(computeCoverage(daily(), stored, { now, until: "2027-01-01" }).last).toBe("2026-01-10");
    // Before the start: nothing expected.
    expect(computeCoverage(daily(), stored, { now, until: "2025-12-01" }).expected).toBe(0);
  });

  it("until takes a key of any granularity, each asset ending with its last period inside it; it does not combine with includeCurrent or a window", () => {
    const asset = daily();
    expect(computeCoverage(asset, {}, { now, until: "2026-01-05T13" }).last).toBe("2026-01-04");
    expect(computeCoverage(asset, {}, { now, until: "2026-01-05T23" }).last).toBe("2026-01-05");
    expect(() => computeCoverage(asset, {}, { now, until: "yesterday" })).toThrow(il.ConfigError);
    expect(() => computeCoverage(asset, {}, { now, until: "2026-02-30" })).toThrow(
      `--until "2026-02-30": expected a time key (a day such as 2026-05-20, an hour such as 2026-05-20T13, a month...); asset "${asset.qualifiedKey}" is partitioned by day (2026-05-20)`,
    );
    const monthly = assetOf(new il.TimePartitionConfig({ column: "m", granularity: il.TimeGranularity.MONTH, start: "2025-10" }));
    expect(computeCoverage(monthly, {}, { now, until: "2026-01-05" }).last).toBe("2025-12");
    expect(() => computeCoverage(asset, {}, { now, until: "2026-01-05", includeCurrent: true })).toThrow(
      /--until and --include-current cannot be used together/,
    );
    const window = il.TimePartitionWindow.parse("2026-01-01..2026-01-03");
    expect(() => computeCoverage(asset, {}, { now, window, until: "2026-01-02" })).toThrow(/--until cannot be used with a window/);
    expect(() => computeCoverage(asset, {}, { now, window, includeCurrent: true })).toThrow(
      /--include-current cannot be used with a window/,
    );
  });

  it("a window may hold the current period, which it then expects", () => {
    const c = computeCoverage(daily(), stored, { now, window: il.TimePartitionWindow.parse("2026-01-09..2026-01-12") });
    expect(keys(c)).toEqual(["2026-01-09", "2026-01-10"]);
    expect(c.inProgress).toBeNull();
  });

  it("coverage(project): until on list assets alone is refused; beside a time asset they ignore it", async () => {
    const time = il.asset({ key: "t", partitioning: new il.TimePartitionConfig({ column: "d", start: "2026-01-01" }), run: () => [] });
    const list = il.asset({ key: "l", partitioning: new il.ListPartitionConfig({ column: "r", values: ["eu"] }), run: () => [] });
    const src = il.source({ key: `p${++sources}`, assets: [time, list] })({ destinations: new il.MemoryDestination() });
    const project = projectOf(il.defineConfig({ sources: [src] }));
    const all = await coverage(project, undefined, { now, until: "2026-01-03" });
    expect(all.map((c) => c.expected)).toEqual([3, 1]);
    await expect(coverage(project, `${src.key}.l`, { now, until: "2026-01-03" })).rejects.toThrow(
      `--until applies to time-partitioned assets; "${src.key}.l" is partitioned by a list`,
    );
  });
});

describe("materialize --missing follows the same end", () => {
  async function prepared() {
    const definition = il.asset({
      key: "a",
      partitioning: new il.TimePartitionConfig({ column: "d", start: "2026-01-01" }),
      run: (context) => [{ d: context.partition!.key }],
    });
    const src = il.source({ key: `m${++sources}`, assets: [definition] })({ destinations: new il.MemoryDestination() });
    const dag = new il.DAG(src);
    for (const day of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const result = await dag.materialize(src.assets["a"]!.partitioning!.partition(`2026-01-0${day}`));
      expect(result.status).toBe("completed");
    }
    return { project: projectOf(il.defineConfig({ sources: [src] })), key: src.assets["a"]!.qualifiedKey };
  }
  const now = at("2026-01-10T12:00:00Z");

  it("by default up to yesterday; with includeCurrent or until further; a window decides alone", async () => {
    const { project, key } = await prepared();
    const byDefault = await missingPlanOptions(project, { assets: [key], now });
    expect([...byDefault.only!]).toEqual(["2026-01-09"]);
    expect(byDefault.window).toBe("2026-01-01..2026-01-09");
    const current = await missingPlanOptions(project, { assets: [key] }, { now, includeCurrent: true });
    expect([...current.only!].sort()).toEqual(["2026-01-09", "2026-01-10"]);
    const until = await missingPlanOptions(project, { assets: [key] }, { now, until: "2026-01-08" });
    expect([...until.only!]).toEqual([]);
    const windowed = await missingPlanOptions(project, { assets: [key], window: "2026-01-09..2026-01-12" }, { now });
    expect([...windowed.only!].sort()).toEqual(["2026-01-09", "2026-01-10"]);
  });
});

describe("in progress in the text, the picture and the HTML report", () => {
  const now = at("2026-01-10T12:00:00Z");
  const c = computeCoverage(daily(), { "2026-01-08": 5, "2026-01-10": 2 }, { now });

  it("a fact line and a legend entry; the calendar's last cell is ◌", () => {
    const lines = coverageText(c, 100);
    expect(lines).toContain("in progress (not expected yet): 2026-01-10, 2 rows so far");
    expect(lines).toContain(legend(100, true));
    expect(legend(100, true)).toContain("◌ in progress");
    expect(legend(40, true)).toContain("◌");
    for (const width of [40, 80, 120]) for (const line of coverageText(c, width)) expect([...line].length).toBeLessThanOrEqual(width);
    const cells = layoutCoverage(c, 100)
      .flatMap((b) => b.rows.flatMap((r) => r.cells))
      .filter((cell) => cell.partition);
    expect(cells.filter((cell) => cell.status === "in-progress").map((cell) => cell.partition!.key)).toEqual(["2026-01-10"]);
    expect(cells).toHaveLength(c.expected + 1);
    const none = computeCoverage(daily(null), {}, { now });
    expect(coverageText(none, 100).join("\n")).toContain("in progress (not expected yet): 2026-01-10, nothing stored so far");
  });

  it("the HTML report draws it as its own class, with a tooltip and a legend entry", () => {
    const html = coverageHtml([c], now);
    expect(html).toMatch(
      /<rect class="partition in-progress" data-key="2026-01-10" data-rows="2"[^>]*><title>2026-01-10: in progress, 2 rows so far<\/title>/,
    );
    expect(html.match(/class="partition missing"/g)).toHaveLength(8);
    expect(html).toContain("in progress (not expected yet)");
  });
});
