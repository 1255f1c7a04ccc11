// `interloper verify` over what is stored (issue 41, items 8, 12 and 19), through the built CLI:
// CSV without a schema read back as its write saw it (the schema the write inferred, kept in its
// record), a partition that cannot be read (a Parquet file cut short, a CSV quote left open)
// named and failing, a checked column missing from the stored data failing, a bad key refused
// with exit 2 even without checks, and every destination verified unless --destination names one.
import { readFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { installPackages, oneLineError, usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";

const CONFIG = `import * as il from "interloper";
const day = new il.TimePartitionConfig({ column: "day", granularity: il.TimeGranularity.DAY, start: "2026-01-01" });
const rows = (d) => [{ day: d, order_id: 1, amount: 5, status: "paid" }, { day: d, order_id: 2, amount: 7, status: null }];
// No schema: the CSV files hold text, the write saw numbers and a null.
const orders = il.asset({
  key: "orders",
  partitioning: day,
  checks: [il.checks.range("amount", { min: 0 }), il.checks.acceptedValues("status", ["paid"]), il.checks.unique("order_id")],
  destinations: { files: new il.CSVDestination({ basePath: "./data" }), lake: new il.LocalObjectStoreDestination({ basePath: "./lake", format: "parquet" }) },
  run: (ctx) => rows(ctx.partition.key),
});
const stock = il.asset({
  key: "stock",
  partitioning: new il.MultiPartitionConfig({ day, region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }) }),
  checks: [il.checks.rowCount({ min: 1 })],
  run: (ctx) => [{ day: ctx.partition.keys.day, region: ctx.partition.keys.region, units: 3 }],
});
const plain = il.asset({ key: "plain", partitioning: day, run: (ctx) => [{ day: ctx.partition.key }] });
export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [orders, stock, plain] })({ destinations: { files: new il.CSVDestination({ basePath: "./data" }) } })],
});
`;

const sandbox = useSandboxes();

async function prepare(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.ts", CONFIG);
  const made = await box.run(["materialize", "-w", "2026-01-01..2026-01-03"], { config: null });
  if (made.exitCode !== 0) throw new Error(`materialize failed:\n${made.stderr}`);
}

describe("verify over stored data", () => {
  const box = usePreparedSandbox(sandbox, prepare);
  const run = (args: readonly string[]) => box.run(args, { config: null });
  const csv = (day: string) => join(box.dir, "data", "shop", "orders", `day=${day}`, "data.csv");
  const parquet = (day: string) => join(box.dir, "lake", "shop", "orders", `day=${day}`, "data.parquet");

  it("reads CSV without a schema as the write saw it, in every destination: what materialize passed passes", async () => {
    const result = await run(["verify", "orders"]);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    // Three partitions in each of two destinations.
    expect(result.outLines).toEqual(["Verified 1 asset, 6 partitions: all checks passed"]);
    const json = JSON.parse((await run(["verify", "orders", "-p", "2026-01-01", "--json"])).stdout) as Array<{ destination: string }>;
    expect(json.map((a) => a.destination)).toEqual(["files", "lake"]);
  });

  it("--destination verifies that one alone, naming no other; a destination no asset has is exit 2", async () => {
    const file = csv("2026-01-02");
    const before = await readFile(file, "utf8");
    try {
      await writeFile(file, before.replace("2026-01-02,2,7", "2026-01-02,2,-7"));
      const all = await run(["verify", "orders"]);
      expect(all.exitCode).toBe(1);
      expect(all.outLines).toEqual([
        "FAIL shop.orders 2026-01-02 (files): check range(amount, min 0) failed: 1 row of 2 with amount outside min 0, e.g. -7",
        "Verified 1 asset, 6 partitions: 1 check failed (1 error)",
      ]);
      const lake = await run(["verify", "orders", "--destination", "lake"]);
      expect(lake.exitCode, lake.stdout).toBe(0);
      expect(lake.outLines).toEqual(["Verified 1 asset, 3 partitions: all checks passed"]);
      const files = await run(["verify", "orders", "--destination", "files", "-w", "2026-01-02..2026-01-03"]);
      expect(files.outLines).toEqual([
        "FAIL shop.orders 2026-01-02: check range(amount, min 0) failed: 1 row of 2 with amount outside min 0, e.g. -7",
        "Verified 1 asset, 2 partitions: 1 check failed (1 error)",
      ]);
      const unknown = await run(["verify", "orders", "--destination", "warehouse"]);
      expect(unknown.exitCode).toBe(2);
      expect(oneLineError(unknown)).toContain(
        '--destination "warehouse": no selected asset has such a destination (expected one of: files, lake)',
      );
    } finally {
      await writeFile(file, before);
    }
  });

  it("a Parquet file cut short and a CSV quote left open are named and fail verify, -p of them too", async () => {
    const whole = await readFile(parquet("2026-01-03"));
    const file = csv("2026-01-01");
    const before = await readFile(file, "utf8");
    try {
      await truncate(parquet("2026-01-03"), 40);
      await writeFile(file, before.replace("2026-01-01,1,5", '2026-01-01,1,"5'));
      const all = await run(["verify", "orders"]);
      expect(all.exitCode).toBe(1);
      expect(all.outLines).toEqual([
        expect.stringMatching(
          /^FAIL shop\.orders 2026-01-01 \(files\): unreadable: cannot read partition 2026-01-01 of asset "shop\.orders" from \S+day=2026-01-01\/data\.csv: .*[Qq]uote/,
        ),
        expect.stringMatching(
          /^FAIL shop\.orders 2026-01-03 \(lake\): unreadable: cannot read partition 2026-01-03 of asset "shop\.orders" from \S+day=2026-01-03\/data\.parquet: /,
        ),
        "Verified 1 asset, 6 partitions: 2 partitions unreadable",
      ]);
      const one = await run(["verify", "orders", "-p", "2026-01-03", "--destination", "lake", "--json"]);
      expect(one.exitCode).toBe(1);
      const [asset] = JSON.parse(one.stdout) as Array<{ partitions: Array<{ partition: string; passed: boolean; unreadable: string }> }>;
      expect(asset!.partitions.map((p) => [p.partition, p.passed, p.unreadable.includes("data.parquet")])).toEqual([
        ["2026-01-03", false, true],
      ]);
    } finally {
      await writeFile(parquet("2026-01-03"), whole);
      await writeFile(file, before);
    }
  });

  it("a checked column missing from the stored data fails, naming it and the columns there are", async () => {
    const file = csv("2026-01-02");
    const before = await readFile(file, "utf8");
    try {
      await writeFile(file, before.replace("amount", "amt"));
      const result = await run(["verify", "orders", "-p", "2026-01-02", "--destination", "files"]);
      expect(result.exitCode).toBe(1);
      expect(result.outLines[0]).toBe(
        'FAIL shop.orders 2026-01-02: check range(amount, min 0) failed: column "amount" is not in the data: no row has it (the columns are: day, order_id, status, amt)',
      );
    } finally {
      await writeFile(file, before);
    }
  });

  it("a bad -p or -w is exit 2 even for a selection without checks", async () => {
    for (const args of [
      ["verify", "plain", "-p", "bad"],
      ["verify", "plain", "-w", "2026-01-05..2026-01-01"],
    ]) {
      const result = await run(args);
      expect(result.exitCode, result.stdout).toBe(2);
      expect(oneLineError(result)).toMatch(/bad|2026-01-05/);
    }
  });

  it("--values narrows a multi asset's partitions", async () => {
    const result = await run(["verify", "stock", "-w", "2026-01-01..2026-01-02", "--values", "region=eu", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [asset] = JSON.parse(result.stdout) as Array<{ partitions: Array<{ partition: string }> }>;
    expect(asset!.partitions.map((p) => p.partition)).toEqual(["2026-01-01|eu", "2026-01-02|eu"]);
  });
});
