// Checks on the command line (issue 35) through the built CLI on CSV files: a warn check's
// partition written and named (plain log, summary, timing table, check_failed in --json,
// coverage's warnings), an error check's partition failed and not written, `verify` over stored
// data after a file was edited by hand, `list`; and the warning line in the ink view.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { HAS_SCRIPT, runInTerminal } from "../support/pseudo-terminal.js";
import { BIN, ensureBuilt, installPackages, oneLineError, usePreparedSandbox, useSandboxes, type Sandbox } from "./helpers.js";

// Day 3 repeats two order ids (a warn check), day 4 has a negative amount (an error check).
const CONFIG = `import * as il from "interloper";
import { z } from "zod";
const day = new il.TimePartitionConfig({ column: "day", granularity: il.TimeGranularity.DAY, start: "2026-01-01" });
const orders = il.asset({
  key: "orders",
  partitioning: day,
  schema: z.object({ day: z.iso.date(), order_id: z.number().int(), amount: z.number() }),
  checks: [il.checks.notNull("order_id", "amount"), il.checks.unique("order_id", { severity: "warn" }), il.checks.range("amount", { min: 0 })],
  run: (ctx) => {
    const d = ctx.partition!.key;
    const rows = [{ day: d, order_id: 17, amount: 5 }, { day: d, order_id: 18, amount: 7 }];
    if (d === "2026-01-03") rows.push({ day: d, order_id: 17, amount: 3 }, { day: d, order_id: 18, amount: 3 });
    if (d === "2026-01-04") rows.push({ day: d, order_id: 23, amount: -3 });
    return rows;
  },
});
const revenue = il.asset({ key: "revenue", partitioning: day, requires: { orders: "orders" }, run: (ctx) => [{ day: ctx.partition!.key, total: 1 }] });
export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [orders, revenue] })({ destinations: new il.CSVDestination({ basePath: "./data" }) })],
});
`;

const sandbox = useSandboxes();

async function prepare(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.ts", CONFIG);
}

const WARN_LINE =
  "WARN shop.orders 2026-01-03: check unique(order_id) failed: 2 rows of 4 repeat the order_id of an earlier row, e.g. 17, 18";

describe("checks through the CLI on CSV files", () => {
  const box = usePreparedSandbox(sandbox, prepare);
  const run = (args: readonly string[]) => box.run(args, { config: null });

  it("list shows each asset's checks, and list --json gives them", async () => {
    const text = await run(["list", "orders"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.outLines).toContain("  checks        notNull(order_id, amount), unique(order_id) warn, range(amount, min 0)");
    const json = await run(["list", "--json"]);
    const assets = JSON.parse(json.stdout) as Array<{ key: string; checks: string[] }>;
    expect(assets.map((a) => [a.key, a.checks])).toEqual([
      ["shop.orders", ["notNull(order_id, amount)", "unique(order_id) warn", "range(amount, min 0)"]],
      ["shop.revenue", []],
    ]);
  });

  it("a backfill: the warn check's partition is written and named, the error check's fails and is not written; exit 1", async () => {
    const result = await run(["materialize", "-w", "2026-01-01..2026-01-05"]);
    expect(result.exitCode, result.stderr).toBe(1);
    const lines = result.errLines;
    // The warning once, in the check's own words (not again as the library's log line).
    expect(lines.filter((line) => line.includes("unique(order_id)") && !line.startsWith(" "))).toEqual([WARN_LINE]);
    expect(lines.find((line) => line.startsWith("FAIL "))).toMatch(
      /^FAIL \[\d\/5\] 2026-01-04 {2}shop\.orders: asset "shop\.orders" failed its checks, so nothing was written: 2026-01-04: range\(amount, min 0\) failed on 1 row \(-3\); shop\.revenue: its dependency "shop\.orders" failed {2}\S+$/,
    );
    expect(lines).toContainEqual(expect.stringMatching(/^asset +partitions +rows +time +checks$/));
    expect(lines).toContainEqual(expect.stringMatching(/^shop\.orders +4 \(1 failed\) +10 +\S+ +1 failed, 1 warn$/));
    expect(lines).toContainEqual(expect.stringMatching(/^shop\.revenue +4 +4 +\S+ +-$/));
    const section = lines.indexOf("Failed checks (1 error, 1 warn):");
    expect(section, result.stderr).toBeGreaterThan(0);
    expect(lines.slice(section + 1, section + 3)).toEqual([
      "  error shop.orders 2026-01-04: check range(amount, min 0) failed: 1 row of 3 with amount outside min 0, e.g. -3",
      `  warn  ${WARN_LINE.slice(5)}`,
    ]);
    expect(await box.dataFiles()).toEqual(
      ["01", "02", "03", "05"].flatMap((d) => [`shop/orders/day=2026-01-${d}/data.csv`, `shop/revenue/day=2026-01-${d}/data.csv`]).sort(),
    );
  });

  it("--json: a check_failed line per failed check, with asset, partition, check, severity, failures and examples", async () => {
    const result = await run(["materialize", "orders", "-w", "2026-01-03..2026-01-04", "--json"]);
    expect(result.exitCode, result.stderr).toBe(1);
    const failed = result.outLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e["type"] === "check_failed");
    expect(
      failed.map(({ asset, partition, check, severity, failures, examples }) => ({
        asset,
        partition,
        check,
        severity,
        failures,
        examples,
      })),
    ).toEqual(
      expect.arrayContaining([
        { asset: "shop.orders", partition: "2026-01-03", check: "unique(order_id)", severity: "warn", failures: 2, examples: ["17", "18"] },
        { asset: "shop.orders", partition: "2026-01-04", check: "range(amount, min 0)", severity: "error", failures: 1, examples: ["-3"] },
      ]),
    );
    expect(failed).toHaveLength(2);
  });

  it("--processes 2: the workers' check_failed events reach --json, and the error check's partition fails alone", async () => {
    const result = await run(["materialize", "orders", "-w", "2026-01-03..2026-01-04", "--json", "--processes", "2"]);
    expect(result.exitCode, result.stderr).toBe(1);
    const events = result.outLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const failed = events
      .filter((e) => e["type"] === "check_failed")
      .map((e) => `${String(e["partition"])} ${String(e["check"])} ${String(e["severity"])}`);
    expect(failed.sort()).toEqual(["2026-01-03 unique(order_id) warn", "2026-01-04 range(amount, min 0) error"]);
    const assetFailed = events.find((e) => e["type"] === "asset:failed") as { error: { name: string; message: string } } | undefined;
    expect(assetFailed?.error.name).toBe("CheckError");
    expect(assetFailed?.error.message).toContain("range(amount, min 0) failed on 1 row (-3)");
  });

  it("coverage: the partition written with a failed warn check has its own mark, and warnings in --json", async () => {
    const json = await run(["coverage", "orders", "-w", "2026-01-01..2026-01-05", "--json"]);
    expect(json.exitCode, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as unknown;
    const [coverage] = (Array.isArray(parsed) ? parsed : [parsed]) as Array<{
      warnings: number;
      partitions: Array<Record<string, unknown>>;
    }>;
    expect(coverage!.warnings).toBe(1);
    expect(coverage!.partitions.filter((p) => p["warnings"] !== undefined)).toEqual([
      { key: "2026-01-03", status: "materialized", rows: 4, warnings: 1, warningChecks: ["unique(order_id)"] },
    ]);
    const text = await run(["coverage", "orders", "-w", "2026-01-01..2026-01-05"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toContain("◆");
    expect(text.outLines).toContainEqual(expect.stringMatching(/◆ written with warnings/));
    expect(text.outLines).toContainEqual(expect.stringMatching(/ warnings 1 /));
    expect(text.outLines).toContain("warnings (failed warn checks when written): 2026-01-03 (unique(order_id))");
    // An asset without warn checks reads no records for them, and shows none.
    const revenue = await run(["coverage", "revenue", "-w", "2026-01-01..2026-01-05"]);
    expect(revenue.stdout).not.toContain("◆");
  });

  it("history: under each write, how its checks judged it", async () => {
    const warned = await run(["history", "orders", "-p", "2026-01-03"]);
    expect(warned.exitCode, warned.stderr).toBe(0);
    expect(warned.outLines).toContain(
      "    checks unique(order_id) failed (warn): 2 rows of 4 repeat the order_id of an earlier row; 2 passed",
    );
    const clean = await run(["history", "orders", "-p", "2026-01-01"]);
    expect(clean.outLines).toContain("    checks 3 passed");
  });

  it("verify: the stored partitions pass until a file is edited by hand; exit 1 on an error check, 0 on warnings alone", async () => {
    const clean = await run(["verify", "orders", "-w", "2026-01-01..2026-01-02"]);
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.outLines).toEqual(["Verified 1 asset, 2 partitions: all checks passed"]);
    const warned = await run(["verify", "orders", "-p", "2026-01-03"]);
    expect(warned.exitCode, warned.stderr).toBe(0);
    expect(warned.outLines).toEqual([WARN_LINE, "Verified 1 asset, 1 partition: 1 check failed (1 warn)"]);
    const file = join(box.data, "shop", "orders", "day=2026-01-02", "data.csv");
    const before = await readFile(file, "utf8");
    await writeFile(file, before.replace("2026-01-02,18,7", "2026-01-02,18,-7"));
    const all = await run(["verify"]);
    expect(all.exitCode, all.stderr).toBe(1);
    expect(all.outLines).toEqual([
      "FAIL shop.orders 2026-01-02: check range(amount, min 0) failed: 1 row of 2 with amount outside min 0, e.g. -7",
      WARN_LINE,
      "Verified 1 asset, 4 partitions: 2 checks failed (1 error, 1 warn)",
    ]);
    // Nothing was written: the edited file is as it was left.
    expect(await readFile(file, "utf8")).toContain("2026-01-02,18,-7");
    const json = await run(["verify", "orders", "-p", "2026-01-02", "--json"]);
    expect(json.exitCode, json.stderr).toBe(1);
    const [asset] = JSON.parse(json.stdout) as Array<{
      asset: string;
      partitions: Array<{ partition: string; passed: boolean; checks: Array<Record<string, unknown>> }>;
    }>;
    expect(asset!.asset).toBe("shop.orders");
    expect(
      asset!.partitions.map((p) => [p.partition, p.passed, p.checks.map((c) => [c["name"], c["severity"], c["passed"], c["failures"]])]),
    ).toEqual([
      [
        "2026-01-02",
        false,
        [
          ["notNull(order_id, amount)", "error", true, 0],
          ["unique(order_id)", "warn", true, 0],
          ["range(amount, min 0)", "error", false, 1],
        ],
      ],
    ]);
    const none = await run(["verify", "revenue"]);
    expect(none.exitCode, none.stderr).toBe(0);
    expect(none.outLines).toEqual(["shop.revenue: no checks", "Verified 0 assets, 0 partitions: all checks passed"]);
  });

  it("verify: bad input is one line and exit 2", async () => {
    for (const [args, message] of [
      [["verify", "ordres"], '"ordres": did you mean "orders"?'],
      [["verify", "-p", "2026-01-01", "-w", "2026-01-01..2026-01-02"], "--partition and --window cannot be used together"],
      [["verify", "orders", "-p", "2026-13-01"], "2026-13-01"],
    ] as const) {
      const result = await run(args);
      expect(result.exitCode, result.stderr).toBe(2);
      expect(oneLineError(result)).toContain(message);
    }
  });
});

const terminalBox = useSandboxes();

beforeAll(async () => {
  if (HAS_SCRIPT) await ensureBuilt();
}, 180_000);

describe.skipIf(!HAS_SCRIPT)("checks in the progress view (a pseudo-terminal)", () => {
  it("the warn check's line above the bar, the error check's partition failed with the CheckError's first line, the summary's section", async () => {
    const box = await terminalBox();
    await prepare(box);
    const run = await runInTerminal([process.execPath, BIN, "materialize", "orders", "-w", "2026-01-03..2026-01-04"], {
      cwd: box.dir,
      env: {},
      columns: 200,
      timeoutMs: 90_000,
    });
    expect(run.exitCode, run.screen.text).toBe(1);
    const lines = run.screen.lines;
    expect(lines).toContain(WARN_LINE);
    expect(lines.join("\n")).toMatch(
      /^✗ 2026-01-04 +shop\.orders: asset "shop\.orders" failed its checks, so nothing was written: 2026-01-04: range\(amount, min 0\) failed on 1 row \(-3\)$/m,
    );
    expect(lines).toContain("Failed checks (1 error, 1 warn):");
    expect(lines).toContainEqual(expect.stringMatching(/^shop\.orders +1 \(1 failed\) +4 +\S+ +1 failed, 1 warn$/));
  }, 120_000);
});

if (!HAS_SCRIPT) console.log("util-linux `script` is not installed: the checks' progress view is not tested in a pseudo-terminal here");
