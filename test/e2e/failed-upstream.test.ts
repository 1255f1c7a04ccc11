// A failed combination in a run of several assets, on the command line (issue 41, items 1 and
// 5): what reads it (its copy in a later stage, the day's total across regions, what reads that
// total) is not run, in process and in the process pool, and is listed with the upstream
// partition named; the re-run lines name only what failed or was skipped, in commands the
// command line accepts (multi partitions by key or by a range of time and values), and running
// them as printed, in order, completes the work.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { installPackages, useSandboxes, type CliResult, type Sandbox } from "./helpers.js";

const CONFIG = `
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import * as il from "interloper";

const base = process.env["INTERLOPER_TEST_DATA"] ?? "./data";
const failOn = new Set((process.env["FAIL_ON"] ?? "").split(";").filter(Boolean));
const day = () => new il.TimePartitionConfig({ column: "date", start: "2026-11-01" });
const byDayAndRegion = () =>
  new il.MultiPartitionConfig({ date: day(), region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "latam"] }) });
/** Each run, logged as "asset key" (child processes too). */
const note = (asset, ctx) => {
  mkdirSync(base, { recursive: true });
  appendFileSync(join(base, "runs.log"), \`\${asset} \${ctx.partition.key}\\n\`);
};

const fx = il.asset({ key: "fx", partitioning: day(), run: (ctx) => (note("fx", ctx), [{ date: ctx.partition.key, rate: 2 }]) });
const s = il.asset({
  key: "s",
  partitioning: byDayAndRegion(),
  run(ctx) {
    note("s", ctx);
    if (failOn.has(ctx.partition.key)) throw new Error(\`the \${ctx.partition.keys.region} API is down\`);
    return [{ ...ctx.partition.keys, spend: 1 }];
  },
});
// Reads its own combination, and the day's rates: a later stage than s.
const z = il.asset({
  key: "z",
  partitioning: byDayAndRegion(),
  requires: { s, fx },
  run: (ctx, deps) => (note("z", ctx), deps.s.map((r) => ({ ...r, spend: Number(r.spend) * 2 }))),
});
const t = il.asset({
  key: "t",
  partitioning: day(),
  requires: { s },
  run: (ctx, deps) => (note("t", ctx), [{ date: ctx.partition.key, regions: deps.s.length }]),
});
const u = il.asset({ key: "u", partitioning: day(), requires: { t, z }, run: (ctx, deps) => (note("u", ctx), deps.t) });

export default il.defineConfig({
  sources: [il.source({ key: "ads", assets: [fx, s, z, t, u] })({ destinations: new il.CSVDestination({ basePath: base }) })],
});
`;

const sandbox = useSandboxes();

async function project(): Promise<Sandbox> {
  const box = await sandbox();
  await installPackages(box.dir);
  await box.write("interloper.config.ts", CONFIG);
  return box;
}

const runs = async (box: Sandbox) => (await readFile(join(box.data, "runs.log"), "utf8")).split("\n").filter(Boolean);

/** The lines under a heading of the summary, up to the next heading. */
function section(result: CliResult, heading: string): string[] {
  const at = result.errLines.findIndex((line) => line.startsWith(heading));
  expect(at, result.stderr).toBeGreaterThanOrEqual(0);
  const rest = result.errLines.slice(at + 1);
  const end = rest.findIndex((line) => !line.startsWith("  "));
  return rest.slice(0, end < 0 ? undefined : end).map((line) => line.trim());
}

/** Splits a printed command into words (single quotes as a POSIX shell reads them). */
function words(command: string): string[] {
  return [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll(`'\\''`, "'") : m[2]!));
}

const NOT_RUN = [
  'ads.z 2026-11-05|us: its dependency "ads.s" 2026-11-05|us failed',
  'ads.t 2026-11-05: its dependency "ads.s" 2026-11-05|us failed',
  'ads.u 2026-11-05: its dependency "ads.t" 2026-11-05 was skipped',
];

describe.concurrent("a failed combination in a run of several assets", () => {
  for (const mode of [[], ["--processes", "2"]]) {
    it(`leaves what reads it unrun and names it${mode.length ? " (process pool)" : ""}`, async () => {
      const box = await project();
      const first = await box.run(["materialize", "-w", "2026-11-04..2026-11-05", ...mode], { config: null });
      expect(first.exitCode, first.stderr).toBe(0);
      const before = (await runs(box)).length;
      const failed = await box.run(["materialize", "-w", "2026-11-04..2026-11-05", ...mode], {
        config: null,
        env: { FAIL_ON: "2026-11-05|us" },
      });
      expect(failed.exitCode, failed.stderr).toBe(1);
      expect(section(failed, "Not run, an upstream partition did not complete:")).toEqual(NOT_RUN);
      // Old data of s|us was stored: nothing reading it was rebuilt from it.
      const ran = (await runs(box)).slice(before);
      expect(ran).toContain("s 2026-11-05|us");
      for (const unrun of ["z 2026-11-05|us", "t 2026-11-05", "u 2026-11-05"]) expect(ran).not.toContain(unrun);
    }, 120_000);
  }

  it("re-runs only what failed or was skipped, in commands that complete the work as printed", async () => {
    const box = await project();
    const failed = await box.run(["materialize", "-w", "2026-11-03..2026-11-05"], {
      config: null,
      env: { FAIL_ON: "2026-11-03|eu;2026-11-04|us;2026-11-05|us;2026-11-05|eu" },
    });
    expect(failed.exitCode, failed.stderr).toBe(1);
    const commands = section(failed, "Re-run what did not complete with:");
    // fx completed: it is named nowhere; the combinations by key, or by days and values.
    expect(commands).toEqual([
      "interloper materialize ads.s ads.z --partition '2026-11-03|eu'",
      "interloper materialize ads.s ads.z --window '2026-11-04..2026-11-05|us'",
      "interloper materialize ads.s ads.z --partition '2026-11-05|eu'",
      "interloper materialize ads.t ads.u --window 2026-11-03..2026-11-05",
    ]);
    const before = (await runs(box)).length;
    for (const command of commands) {
      const [program, ...args] = words(command);
      expect(program).toBe("interloper");
      const result = await box.run(args, { config: null });
      expect(result.exitCode, `${command}\n${result.stderr}`).toBe(0);
    }
    const again = (await runs(box)).slice(before);
    expect(again.filter((r) => r.startsWith("fx "))).toEqual([]);
    expect(again.filter((r) => r.startsWith("u ")).sort()).toEqual(["u 2026-11-03", "u 2026-11-04", "u 2026-11-05"]);
    const coverage = await box.run(["coverage", "-w", "2026-11-03..2026-11-05", "--json"], { config: null });
    const assets = JSON.parse(coverage.stdout) as Array<{ asset: string; missing: number }>;
    expect(assets.filter((a) => a.missing > 0)).toEqual([]);
  }, 120_000);
});
