// Bad input end to end: each is exit code 2, exactly one line on stderr, no stack trace, and
// nothing written.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, installPackages, oneLineError, useSandboxes } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

interface BadInput {
  readonly name: string;
  readonly args: readonly string[];
  /** What the one line must say. */
  readonly says: readonly (string | RegExp)[];
}

const cases: BadInput[] = [
  {
    name: "an unknown asset (suggests the closest key)",
    args: ["materialize", "ordrs", "-p", "2026-01-01"],
    says: ['"ordrs"', /did you mean "(shop\.)?orders"/],
  },
  {
    name: "an ambiguous bare key",
    args: ["materialize", "customers"],
    says: ['"customers"', /ambiguous/i, "shop.customers", "archive.customers"],
  },
  { name: "a malformed key", args: ["materialize", "orders", "-p", "2026/01/01"], says: ["2026/01/01"] },
  { name: "an impossible date", args: ["materialize", "orders", "-p", "2026-02-30"], says: ["2026-02-30"] },
  { name: "an impossible date in a window", args: ["materialize", "orders", "-w", "2026-02-27..2026-02-30"], says: ["2026-02-30"] },
  {
    name: "a window that ends before it starts",
    args: ["materialize", "orders", "-w", "2026-01-05..2026-01-01"],
    says: ["2026-01-05..2026-01-01", /before/],
  },
  { name: "a list window that ends before it starts", args: ["materialize", "sales", "-w", "us..eu"], says: ["us..eu", /before/] },
  {
    name: "a window on an unpartitioned asset",
    args: ["materialize", "shop.customers", "-w", "2026-01-01..2026-01-02"],
    says: ["shop.customers", /not partitioned/],
  },
  {
    name: "a partition of an unpartitioned asset",
    args: ["materialize", "shop.customers", "-p", "2026-01-01"],
    says: ["shop.customers", /not partitioned/],
  },
  { name: "a list value that is not declared", args: ["materialize", "sales", "-p", "mars"], says: ['"mars"', /eu, us, apac/] },
  { name: "an undeclared list value in a window", args: ["materialize", "sales", "-w", "eu..mars"], says: ['"mars"'] },
  {
    name: "--partition with --window",
    args: ["materialize", "orders", "-p", "2026-01-01", "-w", "2026-01-01..2026-01-02"],
    says: ["--partition", "--window"],
  },
  {
    name: "a non-numeric --concurrency",
    args: ["materialize", "orders", "-p", "2026-01-01", "--concurrency", "abc"],
    says: ["--concurrency", '"abc"'],
  },
  { name: "--concurrency 0", args: ["materialize", "orders", "-p", "2026-01-01", "--concurrency", "0"], says: ["--concurrency"] },
  {
    name: "an unknown time zone",
    args: ["materialize", "orders", "--lookback", "2", "--tz", "Mars/Olympus"],
    says: ['"Mars/Olympus"', /time zone/],
  },
  {
    name: "--tz without --lookback",
    args: ["materialize", "orders", "-p", "2026-01-01", "--tz", "Europe/Paris"],
    says: ["--tz", "--lookback"],
  },
  { name: "a non-numeric --lookback", args: ["materialize", "orders", "--lookback", "three"], says: ["--lookback"] },
  { name: "an unknown option", args: ["materialize", "orders", "-p", "2026-01-01", "--frobnicate"], says: ["--frobnicate"] },
  { name: "an unknown command", args: ["materialise", "orders"], says: ["materialise"] },
  { name: "an unknown --order", args: ["materialize", "orders", "-w", "2026-01-01..2026-01-02", "--order", "random"], says: ["random"] },
  { name: "--partition with a range", args: ["materialize", "orders", "-p", "2026-01-01..2026-01-02"], says: ["--window"] },
  { name: "a window mixing granularities", args: ["materialize", "orders", "-w", "2026-01-01..2026-02"], says: ["2026-01-01..2026-02"] },
  {
    name: "--offset without --lookback",
    args: ["materialize", "orders", "-p", "2026-01-01", "--offset", "1"],
    says: ["--offset", "--lookback"],
  },
  { name: "--lookback 0", args: ["materialize", "orders", "--lookback", "0"], says: ["--lookback"] },
  { name: "--lookback on a list-partitioned asset", args: ["materialize", "sales", "--lookback", "2"], says: ["regions.sales"] },
  { name: "a time key for a list-partitioned asset", args: ["materialize", "sales", "-p", "2026-01-01"], says: ['"2026-01-01"'] },
  {
    name: "a month as the partition of daily assets (one partition, not a backfill)",
    args: ["materialize", "orders", "daily_revenue", "-p", "2026-01"],
    says: ["--partition 2026-01 names one month", "partitioned by day", "--window 2026-01"],
  },
  {
    name: "a month as the partition of daily assets with --missing",
    args: ["materialize", "orders", "-p", "2026-01", "--missing"],
    says: ["--partition 2026-01", "--window 2026-01"],
  },
  {
    name: "a window of four dots",
    args: ["materialize", "orders", "-w", "2026-01-01....2026-01-03"],
    says: ['"2026-01-01....2026-01-03" is not a window', '"start..end"'],
  },
  { name: "history --limit with a space", args: ["history", "orders", "--limit", " 5"], says: ["--limit", "digits only", '" 5"'] },
  { name: "history --limit with a sign", args: ["history", "orders", "--limit", "+5"], says: ["--limit", '"+5"'] },
  { name: "plan with a month as the partition of a daily asset", args: ["plan", "orders", "-p", "2026-W03"], says: ["--window 2026-W03"] },
  {
    name: "an unknown asset with --json (stdout stays empty)",
    args: ["materialize", "ordrs", "-p", "2026-01-01", "--json"],
    says: ['"ordrs"'],
  },
  {
    name: "an impossible date with --dry-run",
    args: ["materialize", "orders", "-w", "2026-02-28..2026-02-30", "--dry-run"],
    says: ["2026-02-30"],
  },
  { name: "plan with an unknown asset", args: ["plan", "ordrs"], says: ['"ordrs"', /did you mean/] },
  { name: "show with an unknown asset", args: ["show", "ordrs", "-p", "2026-01-01"], says: ['"ordrs"', /did you mean/] },
  { name: "show with a malformed key", args: ["show", "orders", "-p", "2026/01/01"], says: ["2026/01/01"] },
  { name: "show with an unknown --format", args: ["show", "orders", "-p", "2026-01-01", "--format", "xml"], says: ["xml"] },
];

describe.concurrent("bad input: exit 2, one line on stderr, nothing written", () => {
  it.each(cases)("$name", async ({ args, says }) => {
    const box = await sandbox();
    const result = await box.run(args);
    expect(result.exitCode, result.stderr).toBe(2);
    const line = oneLineError(result);
    expect(line).toMatch(/^interloper: /);
    for (const text of says) {
      if (typeof text === "string") expect(line).toContain(text);
      else expect(line).toMatch(text);
    }
    expect(result.stderr).not.toContain("    at ");
    expect(result.stdout).toBe("");
    expect(await box.files()).toEqual([]);
  });
});

// Issue 41.28: a SQLite path whose folder does not exist made coverage and history print
// better-sqlite3's "unexpected error" without the path.
describe("a SQLite database whose folder does not exist", () => {
  const config = `import * as il from "interloper";
const orders = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  run: (context) => [{ date: context.partition!.key, n: 1 }],
});
export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [orders] })({ destinations: new il.SQLiteDestination({ path: "./nowhere/warehouse.db" }) })],
});
`;
  it.each([["coverage"], ["history", "orders"], ["show", "orders", "-p", "2026-01-01"]])(
    "%s exits 2 with one line naming the path and its folder, and creates nothing",
    async (...args) => {
      const box = await sandbox();
      await installPackages(box.dir);
      await box.write("interloper.config.ts", config);
      const result = await box.run(args, { config: null });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(oneLineError(result)).toBe(
        `interloper: cannot open the SQLite database "./nowhere/warehouse.db": its folder ${join(box.dir, "nowhere")} does not exist`,
      );
      expect(existsSync(join(box.dir, "nowhere"))).toBe(false);
    },
  );
});
