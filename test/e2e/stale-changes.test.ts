// Staleness after the project changes (issue 41, items 3, 12 and 22), through the built CLI on
// CSV and plain files: a list value declared and materialized makes the daily rollup across the
// regions stale, and removed makes it stale again; a reason is stated once, whatever the number
// of destinations holding the partition; an asset whose codeVersion is removed is stale in
// coverage, --fail-on-stale and plan --stale alike.
import { describe, expect, it } from "vitest";
import { installPackages, usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";

// The regions come from REGIONS and `r`'s codeVersion from CODE_VERSION, as a user edits them.
const CONFIG = `import * as il from "interloper";
const regions = (process.env.REGIONS ?? "eu,us").split(",");
const date = () => new il.TimePartitionConfig({ column: "date", start: "2026-01-01" });
const s = il.asset({
  key: "s",
  partitioning: new il.MultiPartitionConfig({ date: date(), region: new il.ListPartitionConfig({ column: "region", values: regions }) }),
  run: (ctx) => [{ ...(ctx.partition as il.MultiPartition).keys, amount: 1 }],
});
const t = il.asset({
  key: "t",
  partitioning: date(),
  requires: { s: "s" },
  run: (ctx, { s }) => [{ date: ctx.partition!.key, amount: (s as unknown[]).length }],
});
const r = il.asset({
  key: "r",
  partitioning: date(),
  ...(process.env.CODE_VERSION ? { codeVersion: process.env.CODE_VERSION } : {}),
  destinations: new il.CSVDestination({ basePath: "./data" }),
  run: (ctx) => [{ date: ctx.partition!.key }],
});
export default il.defineConfig({
  sources: [
    il.source({ key: "shop", assets: [s, t, r] })({
      destinations: { main: new il.CSVDestination({ basePath: "./data" }), copy: new il.FileDestination({ basePath: "./copy" }) },
    }),
  ],
});
`;

const WINDOW = "2026-01-01..2026-01-02";

interface CoverageJson {
  asset: string;
  stale: number;
  partitions: Array<{ key: string; stale?: boolean; staleReasons?: string[] }>;
}

const sandbox = useSandboxes();

/** Two days of every asset, with the regions eu and us and `r` at code version 1. */
async function prepare(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.ts", CONFIG);
  const built = await box.run(["materialize", "-w", WINDOW], { config: null, env: { CODE_VERSION: "1" } });
  expect(built.exitCode, built.stderr).toBe(0);
}

describe("staleness after the project changes", () => {
  const box = usePreparedSandbox(sandbox, prepare);
  const run = (args: readonly string[], env: Record<string, string | undefined>) => box.run(args, { config: null, env });
  const staleRuns = async (env: Record<string, string | undefined>, selection: readonly string[] = []) => {
    const plan = await run(["plan", ...selection, "--stale", "--json"], env);
    expect(plan.exitCode, plan.stderr).toBe(0);
    return (JSON.parse(plan.stdout) as { runs: Array<{ partition: string | null; assets: string[] }> }).runs;
  };
  const staleOf = async (asset: string, env: Record<string, string | undefined>) => {
    const result = await run(["coverage", asset, "-w", WINDOW, "--json"], env);
    expect(result.exitCode, result.stderr).toBe(0);
    const coverage = JSON.parse(result.stdout) as CoverageJson | CoverageJson[];
    const found = Array.isArray(coverage) ? coverage[0]! : coverage;
    return Object.fromEntries(found.partitions.filter((p) => p.stale).map((p) => [p.key, p.staleReasons]));
  };
  const v1 = { CODE_VERSION: "1" };

  it("a region declared and materialized makes the day's rollup stale, once for its two destinations; removed, again", async () => {
    const apac = { ...v1, REGIONS: "eu,us,apac" };
    expect(await staleRuns(apac)).toEqual([]);
    const added = await run(["materialize", "s", "-p", "2026-01-02|apac"], apac);
    expect(added.exitCode, added.stderr).toBe(0);
    expect(await staleRuns(apac)).toEqual([{ partition: "2026-01-02", assets: ["shop.t"] }]);
    expect(await staleOf("t", apac)).toEqual({ "2026-01-02": ["shop.s 2026-01-02|apac exists now but was not read when this was built"] });
    expect((await run(["coverage", "t", "-w", WINDOW, "--fail-on-stale"], apac)).exitCode).toBe(1);
    const rebuilt = await run(["materialize", "--stale"], apac);
    expect(rebuilt.exitCode, rebuilt.stderr).toBe(0);
    expect((await run(["coverage", "-w", WINDOW, "--fail-on-stale"], apac)).exitCode).toBe(0);
    // apac taken out again: the day that read it is stale, the other day is not.
    expect(await staleOf("t", v1)).toEqual({ "2026-01-02": ["shop.s 2026-01-02|apac was read when this was built and is no longer read"] });
    expect(await staleRuns(v1)).toEqual([{ partition: "2026-01-02", assets: ["shop.t"] }]);
    expect((await run(["coverage", "t", "-w", WINDOW, "--fail-on-stale"], v1)).exitCode).toBe(1);
  });

  it("codeVersion removed: coverage, --fail-on-stale and plan --stale all say stale", async () => {
    const none = { CODE_VERSION: undefined };
    const reason = 'code version changed: "1" when built, none now';
    expect(await staleOf("r", none)).toEqual({ "2026-01-01": [reason], "2026-01-02": [reason] });
    expect((await run(["coverage", "r", "-w", WINDOW, "--fail-on-stale"], none)).exitCode).toBe(1);
    expect(await staleRuns(none, ["r"])).toEqual([
      { partition: "2026-01-02", assets: ["shop.r"] },
      { partition: "2026-01-01", assets: ["shop.r"] },
    ]);
    expect((await run(["coverage", "r", "-w", WINDOW, "--fail-on-stale"], v1)).exitCode).toBe(0);
  });
});
