// Every destination counts (issue 17, item 5), through the built CLI on a project of two
// destinations, CSV files and SQLite (fixtures/projects/destinations): a day the warehouse did
// not take is missing there only, `--fail-on-missing` fails, `materialize --missing` (sharded)
// repairs it, and coverage is complete afterwards. The revenue has no schema, so whole-number
// days are inferred as integers beside fractional ones: SQLite stores them in its REAL column.
import { describe, expect, it } from "vitest";
import { materializeWithWarehouseDown, runOnDestinations } from "./destinations-helpers.js";
import { usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";

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
/** The warehouse down on two days: it says it failed, and that csv holds the data. */
async function prepare(box: Sandbox): Promise<void> {
  const rest = await materializeWithWarehouseDown(box, "2026-01-03,2026-01-04");
  expect(rest.stdout + rest.stderr).toContain(
    "writing to warehouse failed (warehouse: the warehouse is down (2026-01-03)); csv holds the new data",
  );
}

async function coverageJson(box: Sandbox): Promise<CoverageJson> {
  const result = await runOnDestinations(box, ["coverage", "daily_revenue", "--json"]);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as CoverageJson;
}

describe("coverage and --missing over two destinations", () => {
  const box = usePreparedSandbox(sandbox, prepare);

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
      {
        key: "csv",
        type: "CSV files",
        materialized: 6,
        empty: 0,
        missing: 0,
        unreadable: 0,
        unexpected: 0,
        rows: 6,
        missingRanges: [],
        emptyRanges: [],
      },
      {
        key: "warehouse",
        type: "SQLite",
        materialized: 4,
        empty: 0,
        missing: 2,
        unreadable: 0,
        unexpected: 0,
        rows: 4,
        missingRanges: ["2026-01-03..2026-01-04"],
        emptyRanges: [],
      },
    ]);
  });

  it("plain text: the calendar marks the days missing in one destination, a line per destination says which", async () => {
    const result = await runOnDestinations(box, ["coverage", "daily_revenue"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("◐ partly missing");
    expect(result.stdout).toContain("missing: 2026-01-03..2026-01-04");
    expect(result.outLines).toContain("destination csv (CSV files): 6/6 stored, 6 rows");
    expect(result.outLines).toContain("destination warehouse (SQLite): 4/6 stored, 4 rows; missing 2026-01-03..2026-01-04");
    const summary = await runOnDestinations(box, ["coverage"]);
    expect(summary.outLines).toEqual([
      expect.stringMatching(/^shop\.daily_revenue +██··██ +4\/6 +4 rows +missing 2026-01-03\.\.2026-01-04 in warehouse$/),
    ]);
  });

  it("--fail-on-missing fails; materialize --missing, in two shards, writes exactly what is missing; then coverage is complete", async () => {
    const repaired = await sandbox();
    await prepare(repaired);
    const failing = await runOnDestinations(repaired, ["coverage", "--fail-on-missing"]);
    expect(failing.exitCode).toBe(1);
    const plan = await runOnDestinations(repaired, ["plan", "daily_revenue", "--missing"]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("2026-01-03");
    expect(plan.stdout).toContain("2026-01-04");
    expect(plan.stdout).not.toContain("2026-01-05");
    let ran = 0;
    for (const shard of ["1/2", "2/2"]) {
      const result = await runOnDestinations(repaired, ["materialize", "daily_revenue", "--missing", "--shard", shard]);
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
    expect((await runOnDestinations(repaired, ["coverage", "--fail-on-missing"])).exitCode).toBe(0);
    const nothing = await runOnDestinations(repaired, ["materialize", "daily_revenue", "--missing"]);
    expect([nothing.exitCode, nothing.stdout + nothing.stderr]).toEqual([
      0,
      expect.stringContaining("Nothing to do: no partition is missing"),
    ]);
  });
});
