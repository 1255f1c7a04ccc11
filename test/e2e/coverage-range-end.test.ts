// Issue 17 item 4 end to end: the expected range of `coverage` and `materialize --missing` ends
// with the last complete period; the current one is in progress, never missing; --until and
// --include-current move the end. "Now" is fixed with INTERLOPER_NOW, and the CLI runs under
// several process time zones to show they do not matter (keys are UTC periods).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, FIXTURES, oneLineError, useSandboxes, type Sandbox } from "./helpers.js";

const HORIZON = join(FIXTURES, "horizon", "interloper.config.ts");
const NOW = "2026-01-10T15:00:00Z";
const ZONES = ["UTC", "America/Los_Angeles", "Asia/Kolkata"];

const sandbox = useSandboxes();
beforeAll(ensureBuilt, 180_000);

const runLog = (box: Sandbox) => join(box.dir, "runs.log");
const run = (box: Sandbox, args: string[], env: Record<string, string> = {}) =>
  box.run(args, { config: HORIZON, env: { INTERLOPER_NOW: NOW, INTERLOPER_RUN_LOG: runLog(box), ...env } });
const ran = async (box: Sandbox) => (await readFile(runLog(box), "utf8").catch(() => "")).split("\n").filter(Boolean);
const dayFile = (key: string) => `hz/daily/date=${key}/data.csv`;

interface CoverageJson {
  expected: number;
  missing: number;
  unexpected: number;
  first: string | null;
  last: string | null;
  missingRanges: string[];
  partitions: Array<{ key: string; status: string; rows: number | null }>;
  inProgress: { key: string; status: string; rows: number | null } | null;
}

async function json(box: Sandbox, args: string[], env: Record<string, string> = {}): Promise<CoverageJson> {
  const result = await run(box, ["coverage", ...args, "--json"], env);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as CoverageJson;
}

/** A sandbox holding hz.daily 2026-01-01..2026-01-09: everything up to yesterday. */
async function throughYesterday(): Promise<Sandbox> {
  const box = await sandbox();
  const made = await run(box, ["materialize", "daily", "-w", "2026-01-01..2026-01-09"]);
  expect(made.exitCode, made.stderr).toBe(0);
  return box;
}

describe.concurrent("coverage ends where data can exist", () => {
  it("a daily CI gate passes with every day up to yesterday, in every process time zone; today is in progress", async () => {
    const box = await throughYesterday();
    for (const TZ of ZONES) {
      const gate = await run(box, ["coverage", "daily", "--fail-on-missing"], { TZ });
      expect(gate.exitCode, `${TZ}: ${gate.stdout}${gate.stderr}`).toBe(0);
      expect(gate.outLines).toContain('hz.daily  day partitions on "date", 2026-01-01..2026-01-09');
      expect(gate.outLines).toContain("expected 9  materialized 9  empty 0  missing 0  unexpected 0");
      expect(gate.outLines).toContain("in progress (not expected yet): 2026-01-10, nothing stored so far");
      expect(gate.outLines.join("\n")).toContain("◌");
    }
    const c = await json(box, ["daily"]);
    expect(c).toMatchObject({
      expected: 9,
      missing: 0,
      first: "2026-01-01",
      last: "2026-01-09",
      inProgress: { key: "2026-01-10", status: "in-progress", rows: null },
    });
    // Just after midnight UTC the day before is the last complete one.
    const early = await json(box, ["daily"], { INTERLOPER_NOW: "2026-01-10T00:00:01Z" });
    expect(early.last).toBe("2026-01-09");
  });

  it("materialize --missing leaves today alone; a partial today shows its rows as in progress, not unexpected", async () => {
    const box = await throughYesterday();
    const missing = await run(box, ["materialize", "daily", "--missing"]);
    expect(missing.exitCode, missing.stderr).toBe(0);
    expect(missing.stderr).toMatch(/Nothing to do: no partition is missing/);
    expect(await box.dataFiles()).not.toContain(dayFile("2026-01-10"));
    const plan = await run(box, ["plan", "daily", "--missing", "--json"]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect((JSON.parse(plan.stdout) as { runs: unknown[] }).runs).toEqual([]);
    // Today's partition written by hand (a run during the day): in progress with its rows.
    const today = await run(box, ["materialize", "daily", "-p", "2026-01-10"]);
    expect(today.exitCode, today.stderr).toBe(0);
    const c = await json(box, ["daily"]);
    expect(c).toMatchObject({ expected: 9, missing: 0, unexpected: 0, inProgress: { key: "2026-01-10", status: "in-progress", rows: 2 } });
    expect(c.partitions.map((p) => p.key)).not.toContain("2026-01-10");
  });

  it("--include-current expects today: missing until written; materialize --missing --include-current writes it", async () => {
    const box = await throughYesterday();
    const gate = await run(box, ["coverage", "daily", "--include-current", "--fail-on-missing"]);
    expect(gate.exitCode, gate.stderr).toBe(1);
    expect(gate.outLines).toContain("missing: 2026-01-10");
    expect(await json(box, ["daily", "--include-current"])).toMatchObject({
      expected: 10,
      missing: 1,
      last: "2026-01-10",
      inProgress: null,
    });
    const fill = await run(box, ["materialize", "daily", "--missing", "--include-current"]);
    expect(fill.exitCode, fill.stderr).toBe(0);
    // The nine days of the preparation, then today alone.
    expect((await ran(box)).slice(9)).toEqual(["daily 2026-01-10"]);
    const after = await run(box, ["coverage", "daily", "--include-current", "--fail-on-missing"]);
    expect(after.exitCode, after.stderr).toBe(0);
  });

  it("--until ends the expected range at that key, inclusive; stored days after it are out of scope", async () => {
    const box = await throughYesterday();
    const c = await json(box, ["daily", "--until", "2026-01-05"]);
    expect(c).toMatchObject({ expected: 5, missing: 0, unexpected: 0, first: "2026-01-01", last: "2026-01-05", inProgress: null });
    // A key after today ends the range at today, which is then expected.
    const later = await json(box, ["daily", "--until", "2026-02-01"]);
    expect(later).toMatchObject({ last: "2026-01-10", missing: 1, inProgress: null });
    // --missing follows it.
    const fill = await run(box, ["materialize", "daily", "--missing", "--until", "2026-01-10"]);
    expect(fill.exitCode, fill.stderr).toBe(0);
    expect((await ran(box)).at(-1)).toBe("daily 2026-01-10");
  });

  it("a window decides alone: it may hold today, which is then expected", async () => {
    const box = await throughYesterday();
    const c = await json(box, ["daily", "-w", "2026-01-08..2026-01-12"]);
    expect(c).toMatchObject({ expected: 3, missing: 1, missingRanges: ["2026-01-10"], inProgress: null });
  });

  it("hourly: the previous hour is the last expected; the current hour is in progress", async () => {
    const box = await sandbox();
    const now = "2026-01-10T03:20:00Z";
    const made = await run(box, ["materialize", "hourly", "-w", "2026-01-10T00..2026-01-10T02"], { INTERLOPER_NOW: now });
    expect(made.exitCode, made.stderr).toBe(0);
    for (const TZ of ZONES) {
      const gate = await run(box, ["coverage", "hourly", "--fail-on-missing"], { INTERLOPER_NOW: now, TZ });
      expect(gate.exitCode, `${TZ}: ${gate.stdout}${gate.stderr}`).toBe(0);
    }
    expect(await json(box, ["hourly"], { INTERLOPER_NOW: now })).toMatchObject({
      expected: 3,
      last: "2026-01-10T02",
      inProgress: { key: "2026-01-10T03", rows: null },
    });
    expect(await json(box, ["hourly", "--until", "2026-01-10T01"], { INTERLOPER_NOW: now })).toMatchObject({ expected: 2, unexpected: 0 });
  });

  it("bad input is exit 2 with one line: a key of another granularity, conflicting flags, a bad INTERLOPER_NOW", async () => {
    const box = await sandbox();
    const cases: Array<[string[], RegExp, Record<string, string>?]> = [
      [["coverage", "daily", "--until", "yesterday"], /--until "yesterday": expected a time key .*asset "hz\.daily" is partitioned by day/],
      [["coverage", "daily", "--until", "2026-01-05", "--include-current"], /--until and --include-current cannot be used together/],
      [["coverage", "daily", "--until", "2026-01-05", "-w", "2026-01-01..2026-01-03"], /--until cannot be used with a window/],
      [["coverage", "daily", "--include-current", "-w", "2026-01-01..2026-01-03"], /--include-current cannot be used with a window/],
      [
        ["coverage", "regions", "--until", "2026-01-05"],
        /--until applies to time-partitioned assets; "hz\.regions" is partitioned by a list/,
      ],
      [["materialize", "daily", "--until", "2026-01-05"], /--until only applies with --missing/],
      [
        ["materialize", "daily", "--missing", "--until", "2026-01-05", "-w", "2026-01-01..2026-01-03"],
        /--until cannot be used with a window/,
      ],
      [["coverage", "daily"], /INTERLOPER_NOW="soon" is not an instant/, { INTERLOPER_NOW: "soon" }],
    ];
    for (const [args, message, env] of cases) {
      const result = await run(box, args, env);
      expect(result.exitCode, `${args.join(" ")}: ${result.stderr}`).toBe(2);
      expect(oneLineError(result), args.join(" ")).toMatch(message);
      expect(result.stdout, args.join(" ")).toBe("");
    }
    expect(await box.dataFiles()).toEqual([]);
  });
});
