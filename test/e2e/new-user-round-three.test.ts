// Issue 32 ("a new user's project, round three") and 31.20, through the built CLI, on a small
// project written into a sandbox: windows that say what is wrong with them before anything runs,
// an asset with no start expected from its upstream's, coverage's -p and --lookback, --until in
// a project of several granularities, list values with spaces, and periods that have not begun.
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt, ROOT, type CliResult } from "./helpers.js";

const CONFIG = `import { z } from "zod";
import * as il from "interloper";

const files = new il.CSVDestination({ basePath: "./data" });
const day = (date) => il.TimeGranularity.DAY.format(date);

const events = il.asset({
  key: "events",
  partitioning: new il.TimePartitionConfig({ column: "hour", granularity: il.TimeGranularity.HOUR, start: "2026-01-01T00" }),
  run: (context) => [{ hour: context.partitionDate.toISOString(), views: 1 }],
});
const sessions = il.asset({
  key: "sessions",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  requires: { events },
  run: (context, { events }) => [{ date: day(context.partitionDate), views: events.length }],
});
// No start: its weeks begin where the sessions do.
const sessionsWeekly = il.asset({
  key: "sessions_weekly",
  partitioning: new il.TimePartitionConfig({ column: "week", granularity: il.TimeGranularity.WEEK }),
  requires: { sessions },
  run: (context, { sessions }) => [{ week: day(context.partitionDate), days: sessions.length }],
});
// No start, no upstream: nothing says where it begins until something is stored.
const sessionsMonthly = il.asset({
  key: "sessions_monthly",
  partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
  run: (context) => [{ month: day(context.partitionDate), views: 1 }],
});
const regions = il.asset({
  key: "regions",
  partitioning: new il.ListPartitionConfig({ column: "region", values: [" ", "x ", "eu"] }),
  run: (context) => [{ region: context.partition.key }],
});
const lookup = il.asset({ key: "lookup", run: () => [{ id: 1 }] });

const Web = il.source({ key: "web", assets: [events, sessions, sessionsWeekly, sessionsMonthly, regions, lookup] });
export default il.defineConfig({ sources: [Web({ destinations: files })] });
`;

const NOW = "2026-03-10T12:00:00Z";
let dir = "";

beforeAll(async () => {
  await ensureBuilt();
  dir = await realpath(await mkdtemp(join(tmpdir(), "interloper-round-three-")));
  await writeFile(join(dir, "interloper.config.mjs"), CONFIG);
  await mkdir(join(dir, "node_modules"));
  await symlink(ROOT, join(dir, "node_modules", "interloper"), "dir");
  await symlink(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const run = (args: readonly string[]): Promise<CliResult> => cli(args, { cwd: dir, env: { INTERLOPER_NOW: NOW } });

/** A refusal: exit 2, one line on stderr, nothing on stdout. */
function refused(result: CliResult): string {
  expect(result.exitCode, result.stderr).toBe(2);
  expect(result.errLines).toHaveLength(1);
  expect(result.stdout).toBe("");
  return result.errLines[0]!;
}

const json = (result: CliResult): unknown => {
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};

describe.concurrent("windows that say what is wrong with them (32.2, 31.20)", () => {
  it("a reversed window over the whole project ends before it starts, as with an asset named", async () => {
    const [whole, one] = await Promise.all([
      run(["materialize", "-w", "2026-02-22..2026-02-01"]),
      run(["materialize", "sessions", "-w", "2026-02-22..2026-02-01"]),
    ]);
    expect(refused(whole)).toMatch(/window 2026-02-22\.\.2026-02-01 ends before it starts/);
    expect(refused(one)).toMatch(/window 2026-02-22\.\.2026-02-01 ends before it starts/);
  });

  it("a window before the starts is refused while planning, each asset with its start; nothing is written", async () => {
    const line = refused(await run(["materialize", "-w", "2025-06-20..2025-06-30"]));
    expect(line).toContain("web.events: the window 2025-06-20..2025-06-30 ends before its start 2026-01-01T00");
    expect(line).toContain("web.sessions: the window 2025-06-20..2025-06-30 ends before its start 2026-01-01");
    expect(line).toContain(
      'web.sessions_weekly: the window 2025-06-20..2025-06-30 ends before its start 2026-W01 (the first week reading its upstream "web.sessions")',
    );
    expect(line).not.toContain("lies wholly inside 2025-06-20..2025-06-30; the hour");
    const alone = refused(await run(["materialize", "sessions", "-p", "2025-06-01"]));
    expect(alone).toContain("web.sessions: the window 2025-06-01 ends before its start 2026-01-01");
    expect(await readdir(dir)).not.toContain("data");
  });

  it("plan sessions+ for a day names the week holding it and the command that runs it", async () => {
    const result = await run(["plan", "sessions+", "-p", "2026-02-10"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines).toContain(
      "Skipping web.sessions_weekly: no week of it lies wholly inside 2026-02-10; the week holding it is 2026-W07: run `interloper materialize web.sessions_weekly -p 2026-W07`",
    );
  });

  it('-p keeps its spaces: list values " " and "x " can be selected', async () => {
    const [space, x] = await Promise.all([run(["plan", "regions", "-p", " ", "--json"]), run(["plan", "regions", "-p", "x ", "--json"])]);
    expect(json(space)).toMatchObject({ runs: [{ partition: " ", assets: ["web.regions"] }] });
    expect(json(x)).toMatchObject({ runs: [{ partition: "x ", assets: ["web.regions"] }] });
  });

  it("a window reaching periods that have not begun is refused in one line, unless --include-current", async () => {
    const [far, allowed] = await Promise.all([
      run(["materialize", "sessions", "-w", "2026-03-01..2126-01-01"]),
      run(["plan", "sessions", "-w", "2026-03-09..2026-03-12", "--include-current", "--json"]),
    ]);
    expect(refused(far)).toMatch(/window 2026-03-01\.\.2126-01-01 reaches 2026-03-11, which has not begun .*--include-current/);
    expect((json(allowed) as { runs: unknown[] }).runs).toHaveLength(4);
  });
});

describe.concurrent("coverage (32.1, 32.5, --until of 32.2)", () => {
  it("an asset with no start is expected from its upstream's; with neither, it is never materialized and fails --fail-on-missing", async () => {
    const [weekly, monthly, text, missing] = await Promise.all([
      run(["coverage", "sessions_weekly", "--json"]),
      run(["coverage", "sessions_monthly", "--fail-on-missing"]),
      run(["coverage", "web"]),
      run(["plan", "sessions_weekly", "--missing", "--json"]),
    ]);
    expect(json(weekly)).toMatchObject({ first: "2026-W01", last: "2026-W10", missing: 10, neverMaterialized: false });
    expect(monthly.exitCode, monthly.stderr).toBe(1);
    expect(monthly.stdout).toContain("never materialized");
    expect(text.outLines.find((l) => l.startsWith("web.sessions_monthly"))).toContain("never materialized");
    expect((json(missing) as { runs: Array<{ partition: string }> }).runs.map((r) => r.partition)).toContain("2026-W01");
  });

  it("-p and --lookback restrict coverage; --until takes a key of any granularity per asset; --missing points to materialize", async () => {
    const [one, trailing, until, hint] = await Promise.all([
      run(["coverage", "sessions", "-p", "2026-02-10", "--json"]),
      run(["coverage", "sessions", "--lookback", "3", "--json"]),
      run(["coverage", "events", "sessions", "--until", "2026-01-02", "--json"]),
      run(["coverage", "sessions", "--missing"]),
    ]);
    expect(json(one)).toMatchObject({ first: "2026-02-10", last: "2026-02-10", expected: 1 });
    // The three complete days before the one in progress (issue 41, item 11).
    expect(json(trailing)).toMatchObject({ first: "2026-03-07", last: "2026-03-09", expected: 3 });
    expect(json(until)).toMatchObject([
      { asset: "web.events", last: "2026-01-02T23" },
      { asset: "web.sessions", last: "2026-01-02" },
    ]);
    expect(refused(hint)).toContain("`interloper materialize sessions --missing`");
  });
});

describe("init (32.5)", () => {
  it("says how to install interloper from a clone while it is not published, never `npm install interloper`", async () => {
    const folder = await mkdtemp(join(tmpdir(), "interloper-init-"));
    try {
      const result = await cli(["init"], { cwd: folder });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/npm install && npm pack.*npm install zod \/path\/to\/interloper\/interloper-\d+\.\d+\.\d+\.tgz/);
      expect(result.stdout).not.toContain("npm install interloper");
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
