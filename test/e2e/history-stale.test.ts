// `interloper history` and `materialize --stale` through the built CLI on CSV files (issue 34): a
// daily asset, a daily one reading it, weekly and monthly rollups; a corrected day of the first
// makes its readers stale, and one `--stale` run rebuilds the day, then its week and its month.
import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { installPackages, oneLineError, usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";

const CONFIG = `import * as il from "interloper";
const time = (column: string, granularity: il.TimeGranularity) => new il.TimePartitionConfig({ column, granularity, start: "2026-01-01" });
const rows = (column: string) => (ctx: il.ExecutionContext) => [{ [column]: ctx.partition!.key, n: 1 }];
const orders = il.asset({ key: "orders", partitioning: time("day", il.TimeGranularity.DAY), run: rows("day") });
const revenue = il.asset({ key: "revenue", codeVersion: "1", partitioning: time("day", il.TimeGranularity.DAY), requires: { orders: "orders" }, run: rows("day") });
const weekly = il.asset({ key: "weekly", partitioning: time("week", il.TimeGranularity.WEEK), requires: { revenue: "revenue" }, run: rows("week") });
const monthly = il.asset({ key: "monthly", partitioning: time("month", il.TimeGranularity.MONTH), requires: { revenue: "revenue" }, run: rows("month") });
export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [orders, revenue, weekly, monthly] })({ destinations: new il.CSVDestination({ basePath: "./data" }) })],
});
`;

interface Record {
  id: string;
  partition: string | null;
  runId: string;
  codeVersion: string | null;
  rows: number;
  upstream: Array<{ asset: string; partition: string | null; materialization: string | null }>;
}

const sandbox = useSandboxes();

/** January built, then the orders of the 15th written again in a later process. */
async function prepare(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.ts", CONFIG);
  const built = await box.run(["materialize", "-w", "2026-01-01..2026-01-31"], { config: null });
  expect(built.exitCode, built.stderr).toBe(0);
  const again = await box.run(["materialize", "orders", "-p", "2026-01-15"], { config: null });
  expect(again.exitCode, again.stderr).toBe(0);
}

describe("history and --stale on CSV files", () => {
  const box = usePreparedSandbox(sandbox, prepare);
  const run = (args: readonly string[]) => box.run(args, { config: null });
  const json = async <T>(args: readonly string[]): Promise<T> => {
    const result = await run([...args, "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  it("history: each write of a partition, newest first, with what it read", async () => {
    const orders = await json<Record[]>(["history", "orders", "-p", "2026-01-15"]);
    expect(orders.map((r) => r.partition)).toEqual(["2026-01-15", "2026-01-15"]);
    expect(orders[0]!.runId).not.toBe(orders[1]!.runId);
    const [revenue, ...older] = await json<Record[]>(["history", "revenue", "-p", "2026-01-15"]);
    expect(older).toEqual([]);
    expect(revenue).toMatchObject({ partition: "2026-01-15", rows: 1, codeVersion: "1" });
    // It read the first write of the day, the one since replaced.
    expect(revenue!.upstream).toEqual([{ asset: "shop.orders", partition: "2026-01-15", materialization: orders[1]!.id }]);
    const text = await run(["history", "orders", "--limit", "3"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.outLines[0]).toMatch(/^partition\s+written \(UTC\)\s+took\s+rows\s+code\s+by\s+id$/);
    expect(text.outLines).toHaveLength(4);
    expect(text.outLines[1]).toMatch(/^2026-01-15\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\d+ ms\s+1\s+-\s+run [0-9a-f]{8}\s+[0-9a-f]{8}$/);
  });

  it("bad input is one line and exit 2", async () => {
    for (const [args, message] of [
      [["history", "ordres"], 'unknown asset "ordres": did you mean "orders"?'],
      [["history", "orders", "--limit", "0"], "--limit must be an integer from 1"],
      [["history", "orders", "-p", "2026-13-01"], "2026-13-01"],
    ] as const) {
      const result = await run(args);
      expect(result.exitCode, result.stderr).toBe(2);
      expect(oneLineError(result)).toContain(message);
    }
  });

  it("--stale --dry-run lists the day, its week and its month with why; the run rebuilds exactly them, then nothing is stale", async () => {
    const dry = await run(["materialize", "--stale", "--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("Stale, so rebuilt:");
    expect(dry.stdout).toMatch(/shop\.revenue: 1 stale partition\n\s+2026-01-15: shop\.orders 2026-01-15 was materialized again at /);
    expect(dry.stdout).toContain("2026-W03: shop.revenue 2026-01-15 is rebuilt first in this run");
    expect(dry.stdout).toContain("2026-01: shop.revenue 2026-01-15 is rebuilt first in this run");
    const dryJson = await json<{ runs: Array<{ partition: string; assets: string[] }> }>(["materialize", "--stale", "--dry-run"]);
    expect(dryJson.runs.map((r) => `${r.assets.join("+")} ${r.partition}`).sort()).toEqual(
      ["shop.monthly 2026-01", "shop.revenue 2026-01-15", "shop.weekly 2026-W03"].sort(),
    );
    expect((await run(["coverage", "--fail-on-stale", "-w", "2026-01-01..2026-01-31"])).exitCode).toBe(1);
    const rebuilt = await run(["materialize", "--stale"]);
    expect(rebuilt.exitCode, rebuilt.stderr).toBe(0);
    const gate = await run(["coverage", "--fail-on-stale", "-w", "2026-01-01..2026-01-31"]);
    expect(gate.exitCode, gate.stdout + gate.stderr).toBe(0);
    const nothing = await run(["materialize", "--stale"]);
    expect(nothing.exitCode).toBe(0);
    expect(nothing.stderr).toContain("Nothing to do: no partition is stale");
    // --stale picks partitions itself.
    const both = await run(["materialize", "--stale", "--missing"]);
    expect(both.exitCode).toBe(2);
    expect(oneLineError(both)).toContain("--stale and --missing each pick the partitions to run");
  });
});

// An unpartitioned catalog (its code version from the environment) read by daily orders.
const CATALOG_CONFIG = `import * as il from "interloper";
const catalog = il.asset({ key: "catalog", codeVersion: process.env.CATALOG_VERSION ?? "1", run: () => [{ sku: "a" }] });
const orders = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "day", start: "2026-01-01" }),
  requires: { catalog: "catalog" },
  run: (ctx: il.ExecutionContext) => [{ day: ctx.partition!.key, n: 1 }],
});
export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [catalog, orders] })({ destinations: new il.CSVDestination({ basePath: "./data" }) })],
});
`;

describe("--stale with an unpartitioned asset", () => {
  const box = usePreparedSandbox(sandbox, async (b) => {
    await installPackages(b.dir);
    await b.write("interloper.config.ts", CATALOG_CONFIG);
  });
  const run = (args: readonly string[], env: { readonly [name: string]: string } = {}) => box.run(args, { config: null, env });

  it("nothing stored is nothing to do; a changed code version rebuilds the asset, then the days reading it", async () => {
    const empty = await run(["materialize", "--stale"]);
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stderr).toContain("Nothing to do: no partition is stale.");
    const built = await run(["materialize", "-w", "2026-01-01..2026-01-03"]);
    expect(built.exitCode, built.stderr).toBe(0);
    const dry = await run(["materialize", "--stale", "--dry-run"], { CATALOG_VERSION: "2" });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('shop.catalog: stale: code version changed: "1" when built, "2" now');
    expect(dry.stdout).toMatch(/shop\.orders: 3 stale partitions\n\s+2026-01-0\d: shop\.catalog is rebuilt first in this run/);
    const rebuilt = await run(["materialize", "--stale"], { CATALOG_VERSION: "2" });
    expect(rebuilt.exitCode, rebuilt.stderr).toBe(0);
    const nothing = await run(["materialize", "--stale"], { CATALOG_VERSION: "2" });
    expect(nothing.stderr).toContain("Nothing to do: no partition is stale.");
  });
});

describe("issue 41.4: the data folder copied with cp -a (new devices and inodes)", () => {
  const box = usePreparedSandbox(sandbox, prepare);

  it("keeps history, coverage and staleness; a file then edited by hand reads as changed outside interloper", async () => {
    const moved = join(box.dir, "moved");
    await mkdir(moved);
    await execa("cp", ["-a", join(box.dir, "data"), join(box.dir, "interloper.config.ts"), join(box.dir, "node_modules"), moved]);
    const both = async (args: readonly string[]) => {
      const [there, here] = await Promise.all([box.run(args, { config: null }), box.run(args, { config: null, cwd: moved })]);
      expect(here.exitCode, here.stderr).toBe(there.exitCode);
      expect(here.stderr).toBe("");
      return [there, here] as const;
    };
    for (const args of [
      ["history", "orders", "-p", "2026-01-15", "--json"],
      ["history", "revenue", "--json"],
      ["materialize", "--stale", "--dry-run", "--json"],
    ]) {
      const [there, here] = await both(args);
      expect(JSON.parse(here.stdout)).toEqual(JSON.parse(there.stdout));
    }
    const [, gate] = await both(["coverage", "--fail-on-stale", "-w", "2026-01-01..2026-01-31"]);
    expect(gate.exitCode).toBe(1);
    // Edited by hand: no longer the data of its record, said so where its provenance is read; its history stays.
    const file = join(moved, "data", "shop", "orders", "day=2026-01-10", "data.csv");
    await appendFile(file, "2026-01-10,7\n");
    const said = 'interloper: warning: CSVDestination: asset "shop.orders": partition 2026-01-10 changed outside interloper';
    const history = await box.run(["history", "orders", "-p", "2026-01-10", "--json"], { config: null, cwd: moved });
    expect(history.exitCode, history.stderr).toBe(0);
    expect(history.errLines.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual([
      expect.stringContaining(said.replace("interloper: warning: ", "")),
    ]);
    expect((JSON.parse(history.stdout) as Record[]).map((r) => r.partition)).toEqual(["2026-01-10"]);
    for (const args of [
      ["coverage", "-w", "2026-01-01..2026-01-31"],
      ["materialize", "--stale", "--dry-run"],
    ]) {
      const result = await box.run(args, { config: null, cwd: moved });
      expect(
        result.errLines.filter((line) => line.startsWith("interloper: warning:")),
        args.join(" "),
      ).toEqual([expect.stringContaining(said)]);
    }
  });
});
