// Failed checks in the plain log, the summary and the timing table (issue 35): a real run to a
// memory destination feeds the PlainReporter; the summary's section is read over many failures.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { materialize } from "../../src/api/materialize.js";
import { projectOf } from "../../src/api/project.js";
import { checkSummaryLines, type FailedCheck } from "../../src/cli/reporters/check-tally.js";
import { PlainReporter } from "../../src/cli/reporters/plain.js";
import { timingLines } from "../../src/cli/reporters/timings.js";

/** Unpartitioned customers with a warn check that fails, and daily orders whose checks pass. */
function project() {
  const customers = il.asset({
    key: "customers",
    checks: [il.checks.unique("id", { severity: "warn" })],
    run: () => [{ id: 1 }, { id: 1 }],
  });
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "day", start: "2026-01-01" }),
    checks: [il.checks.notNull("id")],
    run: (ctx) => [{ day: ctx.partition!.key, id: 1 }],
  });
  const plain = il.asset({ key: "plain", run: () => [{ id: 1 }] });
  return projectOf(
    il.defineConfig({
      sources: [il.source({ key: "shop", assets: [customers, orders, plain] })({ destinations: new il.MemoryDestination() })],
    }),
  );
}

describe("failed checks in the plain log", () => {
  it("a warn check's line, once (the library's warning of it is not printed again); the timing table's checks column", async () => {
    const lines: string[] = [];
    const reporter = new PlainReporter("run", (line) => lines.push(line));
    const built = project();
    await materialize(built, { assets: ["customers", "plain"], onEvent: reporter.onEvent });
    expect(lines.filter((line) => line.includes("unique(id)"))).toEqual([
      "WARN shop.customers: check unique(id) failed: 1 row of 2 repeats the id of an earlier row, e.g. 1",
    ]);
    const checked = new Set(["shop.customers", "shop.orders"]);
    const table = timingLines(reporter.tracker.timings.values(), { tally: reporter.tracker.checks, checked });
    expect(table[0]).toMatch(/^asset +partitions +rows +time +checks$/);
    expect(table.find((l) => l.startsWith("shop.customers"))).toMatch(/ 1 warn$/);
    expect(table.find((l) => l.startsWith("shop.plain"))).toMatch(/ -$/);
    // Without an asset with checks, no column.
    expect(timingLines(reporter.tracker.timings.values(), { tally: reporter.tracker.checks, checked: new Set() })[0]).toMatch(/ time$/);

    const days: string[] = [];
    const daily = new PlainReporter("backfill", (line) => days.push(line));
    await materialize(built, { assets: ["orders"], window: "2026-01-01..2026-01-02", onEvent: daily.onEvent });
    expect(daily.tracker.checks.cell("shop.orders", true)).toBe("ok");
    expect(days.some((line) => line.startsWith("WARN"))).toBe(false);
  });
});

describe("the summary's section of failed checks", () => {
  const failed = (i: number, severity: "error" | "warn"): FailedCheck => ({
    asset: "shop.orders",
    partition: `2026-01-0${i}`,
    check: "unique(id)",
    severity,
    failures: i,
    examples: [],
    message: `${i} rows repeat`,
  });

  it("errors first, then warnings, five named and the rest counted", () => {
    const lines = checkSummaryLines([
      failed(1, "warn"),
      failed(2, "error"),
      failed(3, "warn"),
      failed(4, "warn"),
      failed(5, "warn"),
      failed(6, "warn"),
      failed(7, "error"),
    ]);
    expect(lines).toEqual([
      "Failed checks (2 error, 5 warn):",
      "  error shop.orders 2026-01-02: check unique(id) failed: 2 rows repeat",
      "  error shop.orders 2026-01-07: check unique(id) failed: 7 rows repeat",
      "  warn  shop.orders 2026-01-01: check unique(id) failed: 1 rows repeat",
      "  warn  shop.orders 2026-01-03: check unique(id) failed: 3 rows repeat",
      "  warn  shop.orders 2026-01-04: check unique(id) failed: 4 rows repeat",
      "  (and 2 more)",
    ]);
    expect(checkSummaryLines([])).toEqual([]);
  });
});
