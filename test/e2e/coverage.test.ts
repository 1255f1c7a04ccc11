// `interloper coverage` and `materialize --missing` end to end (issue 6), on the coverage
// fixture project (fixtures/projects/coverage) with a data folder prepared with gaps, empty
// partitions and an unexpected partition by the CLI itself.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { oneLineError, usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";
import { copyData, COVERAGE, D, mtimes, orderRows, ordersFile, prepare, PREPARED, runLog, span } from "./coverage-helpers.js";

const sandbox = useSandboxes();
const prepared = usePreparedSandbox(sandbox, prepare);

const run = (box: Sandbox, args: string[], env: Record<string, string> = {}) =>
  box.run(args, { config: COVERAGE, env: { INTERLOPER_RUN_LOG: runLog(box), ...env } });
const coverage = (args: string[]) => run(prepared, ["coverage", ...args]);

/** A fresh sandbox holding a copy of the prepared data. */
async function copy(): Promise<Sandbox> {
  const box = await sandbox();
  await copyData(prepared, box);
  return box;
}

/** The partitions the fixture ran in a sandbox, in order ("" when none). */
async function ran(box: Sandbox): Promise<string[]> {
  const text = await readFile(runLog(box), "utf8").catch(() => "");
  return text.split("\n").filter(Boolean);
}

interface CoverageJson {
  asset: string;
  kind: string;
  granularity: string | null;
  column: string;
  expected: number;
  materialized: number;
  empty: number;
  missing: number;
  unexpected: number;
  rows: number;
  partitions: Array<{ key: string; status: string; rows: number | null }>;
  missingRanges: string[];
  emptyRanges: string[];
  inProgress: { key: string; status: string; rows: number | null } | null;
}

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

function checkShape(json: CoverageJson): void {
  for (const key of KEPT) expect(json, key).toHaveProperty(key);
  for (const p of json.partitions) {
    expect(Object.keys(p).sort()).toEqual(["key", "rows", "status"]);
    expect(["materialized", "empty", "missing", "unexpected"]).toContain(p.status);
  }
  expect(json.expected).toBe(json.materialized + json.empty + json.missing);
  expect(json.partitions.filter((p) => p.status === "unexpected")).toHaveLength(json.unexpected);
  // Expected partitions come first; unexpected ones after them.
  const firstUnexpected = json.partitions.findIndex((p) => p.status === "unexpected");
  if (firstUnexpected >= 0) expect(firstUnexpected).toBe(json.expected);
}

async function coverageJson(box: Sandbox, args: string[]): Promise<CoverageJson> {
  const result = await run(box, ["coverage", ...args, "--json"]);
  expect(result.exitCode, result.stderr).toBe(0);
  const json = JSON.parse(result.stdout) as CoverageJson;
  checkShape(json);
  return json;
}

const preparedRows = PREPARED.materialized.reduce((sum, key) => sum + orderRows(key), 0);

describe.concurrent("interloper coverage", () => {
  it("coverage <asset>: the calendar, legend, totals and ranges as plain text", async () => {
    const result = await coverage(["orders"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toContain("\u001b[");
    const out = result.outLines;
    expect(out).toContain(`cov.orders  day partitions on "date", ${D(0)}..${D(28)}`);
    expect(out).toContain("expected 29  materialized 22  empty 1  missing 6  unexpected 1");
    expect(out.find((l) => l.startsWith("rows "))).toMatch(
      new RegExp(`^rows ${preparedRows} \\(per partition: min \\d, median [\\d.]+, max \\d\\)$`),
    );
    expect(out).toContain(`missing: ${D(10)}..${D(14)}, ${D(28)}`);
    // Today is under way: in progress, never missing.
    expect(out).toContain(`in progress (not expected yet): ${D(29)}, nothing stored so far`);
    expect(out).toContain(`empty: ${D(3)}`);
    expect(out).toContain(`unexpected (stored, outside the expected partitions): ${PREPARED.unexpected} (2 rows)`);
    expect(out).toContain("legend: █▓▒░ rows, most to fewest   ○ empty (0 rows)   · missing   ◌ in progress");
    // The calendar: the year as the block title, the weekday rows.
    expect(out).toContain(D(0).slice(0, 4));
    expect(out.filter((l) => /^(Mon|Wed|Fri|Sun) /.test(l))).toHaveLength(4);
    const calendar = out.filter((l) => /^(Mon|Wed|Fri|Sun| {3}) [ ░▒▓█○·◌]+$/.test(l)).join("");
    // Cells widen to the width (a mark repeated, then a gap): 30 cells that are not blank
    // (22 materialized, 6 missing, 1 empty, 1 in progress) hold the same number of marks each.
    const marks = (wanted: (ch: string) => boolean) => [...calendar].filter(wanted).length;
    const perCell = marks((ch) => "░▒▓█○·◌".includes(ch)) / 30;
    expect(Number.isInteger(perCell) && perCell >= 1, `${perCell} marks a cell`).toBe(true);
    expect(marks((ch) => ch === "·")).toBe(6 * perCell);
    expect(marks((ch) => ch === "◌")).toBe(1 * perCell);
    expect(marks((ch) => ch === "○")).toBe(1 * perCell);
    expect(marks((ch) => "░▒▓█".includes(ch))).toBe(22 * perCell);
  });

  it("coverage with no asset: one line per partitioned asset", async () => {
    const result = await coverage([]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines.map((l) => l.split(/\s+/)[0])).toEqual(["cov.orders", "cov.hourly", "cov.monthly", "cov.regions"]);
    const [orders, hourly, monthly, regions] = result.outLines;
    expect(orders).toMatch(new RegExp(`\\s23/29\\s+${preparedRows} rows\\s+missing ${D(10)}..${D(14)}, ${D(28)}$`));
    expect(hourly).toMatch(/\s0\/\d+\s+0 rows\s+missing /);
    expect(monthly).toMatch(/\s6\/\d+\s+24 rows\s+missing 2025-07\.\./);
    expect(regions).toMatch(/\s2\/4\s+2 rows\s+missing apac\.\.latam$/);
    expect(regions).toContain("█○··");
    expect(result.stdout).not.toContain("customers");
  });

  it("--json: one object in the api.md shape", async () => {
    const json = await coverageJson(prepared, ["orders"]);
    expect(json).toMatchObject({
      asset: "cov.orders",
      kind: "time",
      granularity: "day",
      column: "date",
      expected: 29,
      materialized: 22,
      empty: 1,
      missing: 6,
      unexpected: 1,
      rows: preparedRows,
      missingRanges: [`${D(10)}..${D(14)}`, D(28)],
      emptyRanges: [D(3)],
      inProgress: { key: D(29), status: "in-progress", rows: null },
    });
    expect(json.partitions.map((p) => p.key)).toEqual([...span(0, 28), PREPARED.unexpected]);
    expect(json.partitions[0]).toEqual({ key: D(0), status: "materialized", rows: orderRows(D(0)) });
    expect(json.partitions[3]).toEqual({ key: D(3), status: "empty", rows: 0 });
    expect(json.partitions[10]).toEqual({ key: D(10), status: "missing", rows: null });
    expect(json.partitions[29]).toEqual({ key: PREPARED.unexpected, status: "unexpected", rows: 2 });
  });

  it("--json with no asset: an array, one object per partitioned asset", async () => {
    const result = await coverage(["--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const all = JSON.parse(result.stdout) as CoverageJson[];
    expect(Array.isArray(all)).toBe(true);
    expect(all.map((c) => c.asset)).toEqual(["cov.orders", "cov.hourly", "cov.monthly", "cov.regions"]);
    all.forEach(checkShape);
    const regions = all[3]!;
    expect(regions).toMatchObject({
      kind: "list",
      granularity: null,
      column: "region",
      expected: 4,
      materialized: 1,
      empty: 1,
      missing: 2,
      rows: 2,
      missingRanges: ["apac..latam"],
      emptyRanges: ["us"],
    });
    expect(regions.partitions.map((p) => p.key)).toEqual(["eu", "us", "apac", "latam"]);
    const monthly = all[2]!;
    expect(monthly).toMatchObject({ granularity: "month", materialized: 6, rows: 24 });
    expect(monthly.partitions.slice(0, 7).map((p) => p.key)).toEqual([
      "2025-01",
      "2025-02",
      "2025-03",
      "2025-04",
      "2025-05",
      "2025-06",
      "2025-07",
    ]);
    const hourly = all[1]!;
    expect(hourly.granularity).toBe("hour");
    expect(hourly.partitions[0]!.key).toBe(`${D(28)}T00`);
    expect(hourly.missing).toBe(hourly.expected);
  });

  it("-w narrows the expected partitions (plain and --json)", async () => {
    const json = await coverageJson(prepared, ["orders", "-w", `${D(8)}..${D(16)}`]);
    expect(json.partitions.map((p) => p.key)).toEqual(span(8, 16));
    expect(json).toMatchObject({
      expected: 9,
      materialized: 4,
      empty: 0,
      missing: 5,
      unexpected: 0,
      missingRanges: [`${D(10)}..${D(14)}`],
      emptyRanges: [],
    });
    const plain = await coverage(["orders", "--window", `${D(8)}..${D(16)}`]);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.outLines).toContain(`cov.orders  day partitions on "date", ${D(8)}..${D(16)}`);
    expect(plain.outLines).toContain("expected 9  materialized 4  empty 0  missing 5  unexpected 0");
    const list = await coverageJson(prepared, ["regions", "-w", "us..apac"]);
    expect(list.partitions).toEqual([
      { key: "us", status: "empty", rows: 0 },
      { key: "apac", status: "missing", rows: null },
    ]);
  });

  it("-w reaching past today expects nothing after today", async () => {
    const json = await coverageJson(prepared, ["orders", "-w", `${D(27)}..${day(3)}`]);
    expect(json.partitions.map((p) => p.key)).toEqual([D(27), D(28), D(29)]);
  });

  it("--fail-on-missing: exit 1 with gaps, 0 when complete (output as usual)", async () => {
    const gaps = await coverage(["orders", "--fail-on-missing"]);
    expect(gaps.exitCode, gaps.stderr).toBe(1);
    expect(gaps.outLines).toContain("expected 29  materialized 22  empty 1  missing 6  unexpected 1");
    const complete = await coverage(["orders", "-w", `${D(15)}..${D(27)}`, "--fail-on-missing"]);
    expect(complete.exitCode, complete.stderr).toBe(0);
    // Empty partitions are not missing.
    const withEmpty = await coverage(["orders", "-w", `${D(0)}..${D(9)}`, "--fail-on-missing"]);
    expect(withEmpty.exitCode, withEmpty.stderr).toBe(0);
    const json = await coverage(["regions", "--json", "--fail-on-missing"]);
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ asset: "cov.regions", missing: 2 });
    const all = await coverage(["--fail-on-missing"]);
    expect(all.exitCode).toBe(1);
    expect(all.outLines).toHaveLength(4);
  });

  it("bad input: an unknown asset or an unpartitioned one is exit 2 with one line", async () => {
    const unknown = await coverage(["ordres"]);
    expect(unknown.exitCode).toBe(2);
    expect(oneLineError(unknown)).toContain('"ordres"');
    const flat = await coverage(["customers"]);
    expect(flat.exitCode).toBe(2);
    expect(oneLineError(flat)).toMatch(/not partitioned/);
    expect(flat.stdout).toBe("");
  });
});

describe.concurrent("interloper materialize --missing", () => {
  it("fills exactly the missing partitions of a window, newest first; existing ones are not rewritten", async () => {
    const box = await copy();
    const before = await mtimes(box);
    const result = await run(box, ["materialize", "orders", "--missing", "-w", `${D(8)}..${D(20)}`, "--concurrency", "1"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await ran(box)).toEqual(
      span(10, 14)
        .reverse()
        .map((k) => `orders ${k}`),
    );
    const after = await mtimes(box);
    for (const [file, mtime] of Object.entries(before)) expect(after[file], file).toBe(mtime);
    expect(
      Object.keys(after)
        .filter((f) => !(f in before))
        .sort(),
    ).toEqual(span(10, 14).map(ordersFile));
    const json = await coverageJson(box, ["orders"]);
    expect(json).toMatchObject({ materialized: 27, empty: 1, missing: 1, unexpected: 1, missingRanges: [D(28)] });
  });

  it("without a window: every missing partition of the expected range; empty ones are left alone", async () => {
    const box = await copy();
    const before = await mtimes(box);
    const result = await run(box, ["materialize", "orders", "--missing"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await ran(box)).sort()).toEqual(PREPARED.missing.map((k) => `orders ${k}`).sort());
    const after = await mtimes(box);
    for (const [file, mtime] of Object.entries(before)) expect(after[file], file).toBe(mtime);
    const json = await coverageJson(box, ["orders"]);
    expect(json).toMatchObject({
      expected: 29,
      materialized: 28,
      empty: 1,
      missing: 0,
      unexpected: 1,
      missingRanges: [],
      emptyRanges: [D(3)],
    });
    // Today, still under way, was not written.
    expect(await box.dataFiles()).not.toContain(ordersFile(PREPARED.inProgress));
    const gate = await run(box, ["coverage", "orders", "--fail-on-missing"]);
    expect(gate.exitCode).toBe(0);
    // A lookback leaves the day in progress out too (issue 41, item 11); --include-current counts it.
    const week = await run(box, ["coverage", "orders", "--lookback", "7", "--fail-on-missing", "--json"]);
    expect(week.exitCode, week.stderr).toBe(0);
    expect((JSON.parse(week.stdout) as CoverageJson).partitions.map((p) => p.key).at(-1)).toBe(D(28));
    const today = await run(box, ["coverage", "orders", "--lookback", "7", "--include-current", "--fail-on-missing", "--json"]);
    expect(today.exitCode, today.stderr).toBe(1);
    expect((JSON.parse(today.stdout) as CoverageJson).missingRanges).toEqual([PREPARED.inProgress]);
  });

  it("--include-empty also re-runs the empty partitions", async () => {
    const box = await copy();
    const before = await mtimes(box);
    const result = await run(box, [
      "materialize",
      "orders",
      "--missing",
      "--include-empty",
      "-w",
      `${D(0)}..${D(11)}`,
      "--concurrency",
      "1",
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await ran(box)).toEqual([D(11), D(10), D(3)].map((k) => `orders ${k}`));
    const after = await mtimes(box);
    expect(after[ordersFile(D(3))]).toBeGreaterThan(before[ordersFile(D(3))]!);
    for (const key of PREPARED.materialized) expect(after[ordersFile(key)], key).toBe(before[ordersFile(key)]);
    const json = await coverageJson(box, ["orders", "-w", `${D(0)}..${D(11)}`]);
    expect(json).toMatchObject({ expected: 12, materialized: 12, empty: 0, missing: 0 });
  });

  it("-w reaching past today: fills the missing days up to today, none in the future", async () => {
    const box = await copy();
    const result = await run(box, ["materialize", "orders", "--missing", "-w", `${D(27)}..${day(2)}`]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await ran(box)).sort()).toEqual([`orders ${D(28)}`, `orders ${D(29)}`]);
    expect((await box.dataFiles()).filter((f) => f > ordersFile(D(29)) && f.startsWith("cov/orders/"))).toEqual([]);
  });

  it("list partitions: fills the missing values", async () => {
    const box = await copy();
    const result = await run(box, ["materialize", "regions", "--missing"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await ran(box)).sort()).toEqual(["regions apac", "regions latam"]);
    expect(await coverageJson(box, ["regions"])).toMatchObject({ materialized: 3, empty: 1, missing: 0 });
  });

  it("nothing missing: exit 0, nothing runs, nothing is written", async () => {
    const box = await copy();
    const before = await mtimes(box);
    for (const args of [
      ["materialize", "orders", "--missing", "-w", `${D(15)}..${D(27)}`],
      ["materialize", "orders", "--missing", "-w", `${D(0)}..${D(9)}`],
    ]) {
      const result = await run(box, args);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/Nothing to do: no partition is missing/);
    }
    expect(await ran(box)).toEqual([]);
    expect(await mtimes(box)).toEqual(before);
    expect(await box.dataFiles()).toEqual(Object.keys(before));
  });

  it("--include-empty without --missing is bad input", async () => {
    const box = await sandbox();
    const result = await run(box, ["materialize", "orders", "--include-empty", "-p", D(0)]);
    expect(result.exitCode).toBe(2);
    expect(oneLineError(result)).toContain("--include-empty");
    expect(await box.dataFiles()).toEqual([]);
  });
});

function day(days: number): string {
  return D(29 + days);
}
