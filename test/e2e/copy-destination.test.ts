// Adding a destination to a project (issue 41.13), through the built CLI: `materialize --missing
// --from` fills the new destination from the one holding the data, runs no asset (the source
// is not pulled again), keeps each partition's record, so nothing downstream becomes stale; the
// second destination then holds the same rows. What it cannot copy is named, and the flags of a
// run are refused with it.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { installPackages, oneLineError, usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";

// LAKE=1 adds the second destination, as a user editing the config would. Every run of orders
// appends its day to ran.txt: a copy must add nothing there.
const CONFIG = `
import { appendFileSync, mkdirSync } from "node:fs";
import { z } from "zod";
import * as il from "interloper";

const base = process.env["INTERLOPER_TEST_DATA"];
mkdirSync(base, { recursive: true });
// The lake comes first: reads of orders (revenue's, history's) go to it once it is there.
const destinations = {
  ...(process.env["LAKE"] ? { lake: new il.LocalObjectStoreDestination({ basePath: base + "/lake", format: "jsonl" }) } : {}),
  warehouse: new il.CSVDestination({ basePath: base + "/warehouse" }),
};
const day = () => new il.TimePartitionConfig({ column: "date", start: "2026-01-01" });

const orders = il.asset({
  key: "orders",
  codeVersion: "2",
  partitioning: day(),
  schema: z.object({ date: z.iso.date(), order_id: z.number().int(), amount: z.number() }),
  run(ctx) {
    appendFileSync(base + "/ran.txt", ctx.partition.key + "\\n");
    const n = Number(ctx.partition.key.slice(8));
    return Array.from({ length: n }, (_, i) => ({ date: ctx.partition.key, order_id: n * 100 + i, amount: i + 0.5 }));
  },
});

const revenue = il.asset({
  key: "revenue",
  partitioning: day(),
  requires: { orders },
  run: (ctx, { orders }) => [{ date: ctx.partition.key, total: orders.reduce((s, o) => s + o.amount, 0) }],
});

export default il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders, revenue] })({ destinations })] });
`;

const NOW = "2026-01-06T12:00:00Z";
const WINDOW = "2026-01-01..2026-01-04";
const sandbox = useSandboxes();

async function prepare(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.mjs", CONFIG);
  const first = await box.run(["materialize", "-w", WINDOW], { config: null, env: { INTERLOPER_NOW: NOW } });
  if (first.exitCode !== 0) throw new Error(first.stderr);
}

describe("materialize --missing --from: filling a destination added to the project", () => {
  const box = usePreparedSandbox(sandbox, prepare);
  const run = (args: readonly string[], lake = true) =>
    box.run(args, { config: null, env: { INTERLOPER_NOW: NOW, ...(lake ? { LAKE: "1" } : {}) } });
  const ran = async () => (await readFile(join(box.data, "ran.txt"), "utf8")).split("\n").filter(Boolean);

  it("refuses --from without --missing, with a flag of a run, and a destination an asset lacks (exit 2)", async () => {
    expect(oneLineError(await run(["materialize", "--from", "warehouse"]))).toBe(
      "interloper: --from only applies with --missing: it fills the partitions a destination lacks",
    );
    expect(oneLineError(await run(["materialize", "--missing", "--from", "warehouse", "--stale"]))).toBe(
      "interloper: --from copies stored partitions and runs no asset: it cannot be combined with --stale",
    );
    expect(oneLineError(await run(["materialize", "--missing", "--from", "warehouse", "--processes", "2"]))).toBe(
      "interloper: --from copies stored partitions and runs no asset: it cannot be combined with --processes",
    );
    expect(oneLineError(await run(["materialize", "--missing", "--from", "wharehouse", "-w", WINDOW]))).toBe(
      'interloper: --from "wharehouse": asset "shop.orders" has no such destination (expected one of: lake, warehouse), nor 1 other selected asset(s): select the assets that have it',
    );
  });

  it("copies every partition with its record: nothing runs, nothing is stale, the lake holds the warehouse's rows", async () => {
    const before = await ran();
    // Added, the lake lacks everything: --missing sees it.
    const missing = await run(["coverage", "-w", WINDOW, "--json"]);
    expect(missing.exitCode, missing.stderr).toBe(0);
    const partitions = (JSON.parse(missing.stdout) as Array<{ missing: number }>).map((c) => c.missing);
    expect(partitions).toEqual([4, 4]);

    const dry = await run(["materialize", "--missing", "--from", "warehouse", "-w", WINDOW, "--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.outLines).toContain("would copy shop.orders 2026-01-02 from warehouse to lake");
    expect(await box.files()).not.toContain(expect.stringMatching(/^lake\//));

    const copy = await run(["materialize", "--missing", "--from", "warehouse", "-w", WINDOW]);
    expect(copy.exitCode, copy.stderr).toBe(0);
    expect(copy.outLines).toHaveLength(8);
    expect(copy.outLines).toContain("copied shop.orders 2026-01-03 from warehouse to lake (3 rows)");
    expect(copy.errLines).toEqual(["Copied 8 partitions from warehouse."]);
    expect(await ran()).toEqual(before);

    const stale = await run(["plan", "--stale", "-w", WINDOW]);
    expect(stale.exitCode, stale.stderr).toBe(0);
    // Both destinations hold the same write of each partition: revenue's records name the ids of
    // the orders records it read, which the lake, read first now, must hold as they were.
    expect(stale.stdout + stale.stderr).toMatch(/^Nothing to do: no partition is stale/m);
    const coverage = await run(["coverage", "-w", WINDOW, "--json", "--fail-on-missing", "--fail-on-stale"]);
    expect(coverage.exitCode, coverage.stdout).toBe(0);
    for (const asset of JSON.parse(coverage.stdout) as Array<{ missing: number; stale: number }>)
      expect(asset).toMatchObject({ missing: 0, stale: 0 });

    for (const asset of ["orders", "revenue"]) {
      const show = (destination: string) => run(["show", asset, "-w", WINDOW, "--format", "json", "--destination", destination]);
      const [warehouse, lake] = await Promise.all([show("warehouse"), show("lake")]);
      expect(lake.exitCode, lake.stderr).toBe(0);
      expect(JSON.parse(lake.stdout)).toEqual(JSON.parse(warehouse.stdout));
    }
    // The lake's record of a partition (history reads the first destination) is the warehouse's.
    const history = async (lake: boolean) => (await run(["history", "orders", "-p", "2026-01-02", "--json"], lake)).stdout;
    const [kept] = JSON.parse(await history(false)) as Array<{ id: string }>;
    expect(JSON.parse(await history(true))).toEqual([expect.objectContaining({ id: kept!.id })]);
    // Then nothing is missing any more.
    const again = await run(["materialize", "--missing", "--from", "warehouse", "-w", WINDOW]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.errLines).toEqual(["Nothing to do: no partition is missing."]);
  });

  it("list shows each asset's codeVersion, which the records keep (issue 41.12)", async () => {
    const list = await run(["list"]);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.outLines.filter((line) => line.startsWith("  code version"))).toEqual(["  code version  2"]);
    const json = JSON.parse((await run(["list", "--json"])).stdout) as Array<{ key: string; codeVersion: string | null }>;
    expect(json.map((a) => [a.key, a.codeVersion])).toEqual([
      ["shop.orders", "2"],
      ["shop.revenue", null],
    ]);
  });

  it("a partition the source lacks too is named and left (exit 1); the rest is copied", async () => {
    const day = "2026-01-05";
    const copy = await run(["materialize", "orders", "--missing", "--from", "lake", "-w", `${day}..${day}`]);
    expect(copy.exitCode, copy.stderr).toBe(1);
    expect(copy.errLines).toEqual([
      `not copied: shop.orders ${day}: lake lacks it too`,
      "Copied 0 partitions from lake; 1 missing partition not copied (above).",
    ]);
  });
});
