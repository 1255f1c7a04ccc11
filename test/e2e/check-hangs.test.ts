// A custom check that never gives its verdict (issue 41, item 27), through the built CLI on CSV
// files: the failure names the check, not the destination write it holds open, and the run
// leaves no temporary file in the partition's folder on its way out.
import { describe, expect, it } from "vitest";
import { installPackages, usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";

const CONFIG = `import * as il from "interloper";
const day = new il.TimePartitionConfig({ column: "day", granularity: il.TimeGranularity.DAY, start: "2026-01-01" });
const never = () => new Promise(() => {});
// A minute: holds the process as a slow rule would, far beyond the --timeout given.
const slow = () => new Promise((resolve) => setTimeout(() => resolve(true), 60_000));
async function* batches(d) {
  yield [{ day: d, n: 1 }];
  yield [{ day: d, n: 2 }];
}
// A stream: its check is judged after the last batch, while the CSV write holds its temporary file.
const streamed = il.asset({ key: "streamed", partitioning: day, checks: [il.check("slow rule", slow)], run: (ctx) => batches(ctx.partition.key) });
// A table: its check is judged before any write.
const table = il.asset({ key: "table", partitioning: day, checks: [il.check("hung rule", never)], run: (ctx) => [{ day: ctx.partition.key, n: 1 }] });
export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [streamed, table] })({ destinations: new il.CSVDestination({ basePath: "./data" }) })],
});
`;

const sandbox = useSandboxes();

async function prepare(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.ts", CONFIG);
}

describe("a custom check that never settles", () => {
  const box = usePreparedSandbox(sandbox, prepare);
  const run = (args: readonly string[]) => box.run(args, { config: null });
  const leftovers = async () => (await box.files()).filter((file) => file.includes(".tmp-"));

  it("over a stream, with --timeout: the failure names the check; no temporary file is left in the partition's folder", async () => {
    const result = await run(["materialize", "streamed", "-p", "2026-01-01", "--timeout", "1s"]);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain('shop.streamed: asset "shop.streamed" for 2026-01-01 timed out after 1s waiting for check "slow rule"');
    expect(result.stderr).not.toContain("writing to");
    expect(await leftovers()).toEqual([]);
  });

  it("over a table, when nothing is left that could settle it: the failure names the check", async () => {
    const result = await run(["materialize", "table", "-p", "2026-01-01"]);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'shop.table: asset "shop.table" for 2026-01-01 never finished: check "hung rule" never settled (nothing was left running that could settle it)',
    );
    expect(await leftovers()).toEqual([]);
  });
});
