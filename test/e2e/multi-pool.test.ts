// Multi partitions through the process pool (issue 36): keys joined by "|" travel to the worker
// processes and back (a worker reads its key as a multi partition), every combination runs once
// in a child process, a failed combination fails alone, and --missing runs just it again.
import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { installPackages, usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";

const CONFIG = `
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import * as il from "interloper";

const base = process.env["INTERLOPER_TEST_DATA"] ?? "./data";
const failOn = new Set((process.env["FAIL_ON"] ?? "").split(";").filter(Boolean));

const stock = il.asset({
  key: "stock",
  partitioning: new il.MultiPartitionConfig({
    date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }),
  }),
  run(ctx) {
    const { date, region } = ctx.partition.keys;
    mkdirSync(base, { recursive: true });
    appendFileSync(join(base, "runs.log"), \`\${ctx.partition.key} \${process.pid}\\n\`);
    if (failOn.has(ctx.partition.key)) throw new Error(\`the \${region} API is down\`);
    return [{ date, region, units: 1 }];
  },
});

export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [stock] })({ destinations: new il.CSVDestination({ basePath: base }) })],
});
`;

const sandbox = useSandboxes();

async function prepare(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.ts", CONFIG);
}

async function runLog(box: Sandbox): Promise<Array<{ key: string; pid: string }>> {
  const text = await readFile(join(box.data, "runs.log"), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [key, pid] = line.split(" ") as [string, string];
      return { key, pid };
    });
}

describe("multi partitions in the process pool", () => {
  const box = usePreparedSandbox(sandbox, prepare);
  const run = (args: readonly string[], env: Record<string, string> = {}) => box.run(args, { config: null, env });

  it("runs every combination once in the workers; a failed one fails alone and --missing runs just it", async () => {
    const first = await run(["materialize", "-w", "2026-01-01..2026-01-02", "--processes", "2"], { FAIL_ON: "2026-01-02|us" });
    expect(first.exitCode).not.toBe(0);
    expect(first.stderr).toContain("the us API is down");
    const log = await runLog(box);
    expect(log.map((l) => l.key).sort()).toEqual([
      "2026-01-01|apac",
      "2026-01-01|eu",
      "2026-01-01|us",
      "2026-01-02|apac",
      "2026-01-02|eu",
      "2026-01-02|us",
    ]);
    // At most the two worker processes ran them.
    expect(new Set(log.map((l) => l.pid)).size).toBeLessThanOrEqual(2);

    const coverage = await run(["coverage", "stock", "-w", "2026-01-01..2026-01-02", "--json"]);
    expect(coverage.exitCode, coverage.stderr).toBe(0);
    const stock = JSON.parse(coverage.stdout) as { partitions: Array<{ key: string; status: string; keys: Record<string, string> }> };
    expect(stock!.partitions.filter((p) => p.status === "missing")).toEqual([
      { key: "2026-01-02|us", status: "missing", rows: null, keys: { date: "2026-01-02", region: "us" } },
    ]);

    const again = await run(["materialize", "-w", "2026-01-01..2026-01-02", "--missing", "--processes", "2"]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect((await runLog(box)).slice(log.length).map((l) => l.key)).toEqual(["2026-01-02|us"]);
  }, 120_000);
});
