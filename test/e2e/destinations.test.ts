// Every destination counts (issue 17, item 5), through the built CLI on a project of two
// destinations, CSV files and SQLite (fixtures/projects/destinations): a day the warehouse did
// not take is missing there only, `--fail-on-missing` fails, `materialize --missing` (sharded)
// repairs it, and coverage is complete afterwards. The revenue has no schema, so whole-number
// days are inferred as integers beside fractional ones: SQLite stores them in its REAL column.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, FIXTURES, useSandboxes, type Sandbox } from "./helpers.js";

const CONFIG = join(FIXTURES, "destinations", "interloper.config.ts");
// 2026-01-01..2026-01-06 expected; 2026-01-07 in progress.
const NOW = "2026-01-07T12:00:00Z";

interface DestinationJson {
  key: string;
  type: string;
  materialized: number;
  empty: number;
  missing: number;
  unexpected: number;
  rows: number;
  missingRanges: string[];
  emptyRanges: string[];
}
interface CoverageJson {
  asset: string;
  expected: number;
  materialized: number;
  missing: number;
  partitions: Array<{ key: string; status: string; rows: number | null; missingIn?: string[] }>;
  missingRanges: string[];
  destinations: DestinationJson[];
}

const sandbox = useSandboxes();
const run = (box: Sandbox, args: string[], env: Record<string, string> = {}) =>
  box.run(args, { config: CONFIG, env: { INTERLOPER_NOW: NOW, ...env } });

/** The first day alone (fractional: the warehouse's column is REAL), then the rest with the warehouse down on two days. */
async function prepare(box: Sandbox): Promise<void> {
  const first = await run(box, ["materialize", "daily_revenue", "-p", "2026-01-01"]);
  expect(first.exitCode, first.stderr + first.stdout).toBe(0);
  const rest = await run(box, ["materialize", "daily_revenue", "-w", "2026-01-02..2026-01-06", "--no-fail-fast"], {
    INTERLOPER_WAREHOUSE_DOWN: "2026-01-03,2026-01-04",
  });
  expect(rest.exitCode).toBe(1);
  expect(rest.stdout + rest.stderr).toContain(
    "writing to warehouse failed (warehouse: the warehouse is down (2026-01-03)); csv holds the new data",
  );
}

async function coverageJson(box: Sandbox): Promise<CoverageJson> {
  const result = await run(box, ["coverage", "daily_revenue", "--json"]);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as CoverageJson;
}

describe("coverage and --missing over two destinations", () => {
  let box: Sandbox;
  beforeAll(async () => {
    await ensureBuilt();
    box = await sandbox();
    await prepare(box);
  }, 180_000);

  it("--json: the days the warehouse lacks are missing, in the warehouse only; each destination's breakdown", async () => {
    const json = await coverageJson(box);
    expect([json.expected, json.materialized, json.missing]).toEqual([6, 4, 2]);
    expect(json.partitions).toEqual([
      { key: "2026-01-01", status: "materialized", rows: 1 },
      { key: "2026-01-02", status: "materialized", rows: 1 },
      { key: "2026-01-03", status: "missing", rows: null, missingIn: ["warehouse"] },
      { key: "2026-01-04", status: "missing", rows: null, missingIn: ["warehouse"] },
      { key: "2026-01-05", status: "materialized", rows: 1 },
      { key: "2026-01-06", status: "materialized", rows: 1 },
    ]);
    expect(json.missingRanges).toEqual(["2026-01-03..2026-01-04"]);
    expect(json.destinations).toEqual([
      { key: "csv", type: "CSV files", materialized: 6, empty: 0, missing: 0, unexpected: 0, rows: 6, missingRanges: [], emptyRanges: [] },
      {
        key: "warehouse",
        type: "SQLite",
        materialized: 4,
        empty: 0,
        missing: 2,
        unexpected: 0,
        rows: 4,
        missingRanges: ["2026-01-03..2026-01-04"],
        emptyRanges: [],
      },
    ]);
  });

  it("plain text: the calendar marks the days missing in one destination, a line per destination says which", async () => {
    const result = await run(box, ["coverage", "daily_revenue"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("◐ partly missing");
    expect(result.stdout).toContain("missing: 2026-01-03..2026-01-04");
    expect(result.outLines).toContain("destination csv (CSV files): 6/6 stored, 6 rows");
    expect(result.outLines).toContain("destination warehouse (SQLite): 4/6 stored, 4 rows; missing 2026-01-03..2026-01-04");
    const summary = await run(box, ["coverage"]);
    expect(summary.outLines).toEqual([
      expect.stringMatching(/^shop\.daily_revenue +██··██ +4\/6 +4 rows +missing 2026-01-03\.\.2026-01-04 in warehouse$/),
    ]);
  });

  it("--fail-on-missing fails; materialize --missing, in two shards, writes exactly what is missing; then coverage is complete", async () => {
    const repaired = await sandbox();
    await prepare(repaired);
    const failing = await run(repaired, ["coverage", "--fail-on-missing"]);
    expect(failing.exitCode).toBe(1);
    const plan = await run(repaired, ["plan", "daily_revenue", "--missing"]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("2026-01-03");
    expect(plan.stdout).toContain("2026-01-04");
    expect(plan.stdout).not.toContain("2026-01-05");
    let ran = 0;
    for (const shard of ["1/2", "2/2"]) {
      const result = await run(repaired, ["materialize", "daily_revenue", "--missing", "--shard", shard]);
      expect(result.exitCode, result.stderr + result.stdout).toBe(0);
      ran += (result.stdout + result.stderr).match(/^ok /gm)?.length ?? 0;
    }
    expect(ran).toBe(2);
    const json = await coverageJson(repaired);
    expect([json.missing, json.destinations.map((d) => [d.key, d.materialized, d.missing])]).toEqual([
      0,
      [
        ["csv", 6, 0],
        ["warehouse", 6, 0],
      ],
    ]);
    expect((await run(repaired, ["coverage", "--fail-on-missing"])).exitCode).toBe(0);
    const nothing = await run(repaired, ["materialize", "daily_revenue", "--missing"]);
    expect([nothing.exitCode, nothing.stdout + nothing.stderr]).toEqual([
      0,
      expect.stringContaining("Nothing to do: no partition is missing"),
    ]);
  });
});
