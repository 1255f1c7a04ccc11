// The plain log of a materialize (pipes and CI, issue 32): a real in-process backfill to a memory
// destination feeds the PlainReporter, and the lines it writes are read as a log reader would:
// each names the assets it wrote, the numbers count the partitions from 1 to the total, and the
// summary writes its two counts alike.
import { describe, expect, it } from "vitest";
import { materialize } from "../../src/api/materialize.js";
import { projectOf } from "../../src/api/project.js";
import { asset } from "../../src/asset/definition.js";
import { PlainReporter } from "../../src/cli/reporters/plain.js";
import { summaryLines } from "../../src/cli/reporters/summary.js";
import { defineConfig } from "../../src/config/define-config.js";
import { MemoryDestination } from "../../src/destination/index.js";
import { TimeGranularity } from "../../src/partitioning/granularity.js";
import { TimePartitionConfig } from "../../src/partitioning/time.js";
import { source } from "../../src/source/source.js";

/** Hourly orders and revenue downstream of them, and unpartitioned customers. */
function project() {
  const hourly = () => new TimePartitionConfig({ column: "hour", start: "2026-01-01T00", granularity: TimeGranularity.HOUR });
  const orders = asset({ key: "orders", partitioning: hourly(), run: (ctx) => [{ hour: ctx.partition!.key, n: 1 }] });
  const revenue = asset({
    key: "revenue",
    partitioning: hourly(),
    requires: { orders },
    run: (ctx, { orders }) => [{ hour: ctx.partition!.key, total: orders.length }],
  });
  const customers = asset({ key: "customers", run: () => [{ id: 1 }, { id: 2 }] });
  const Shop = source({ key: "shop", assets: [orders, revenue, customers] });
  return projectOf(defineConfig({ sources: [Shop({ destinations: new MemoryDestination() })] }));
}

async function logOf(window: string, assets: readonly string[]) {
  const lines: string[] = [];
  const plain = new PlainReporter("backfill", (line) => lines.push(line));
  const outcome = await materialize(project(), { assets: [...assets], window, concurrency: 8, onEvent: plain.onEvent });
  return { lines, outcome, summary: summaryLines(outcome, plain.tracker.rows, { assets: [] }) };
}

describe("the plain log", () => {
  it("names the assets each partition wrote; the unpartitioned run has no number; the partitions count from 1 to the total", async () => {
    const { lines } = await logOf("2026-01-01T00..2026-01-01T03", ["shop.orders", "shop.revenue", "shop.customers"]);
    expect(lines).toHaveLength(5);
    expect(lines.filter((l) => l.includes("(unpartitioned)"))).toEqual([
      expect.stringMatching(/^ok {3}\(unpartitioned\) {2}shop\.customers {2}2 rows {2}\S+$/),
    ]);
    const numbered = lines.filter((l) => !l.includes("(unpartitioned)"));
    expect(numbered.map((l) => /^ok {3}\[(\d)\/4\] /.exec(l)?.[1])).toEqual(["1", "2", "3", "4"]);
    for (const line of numbered) expect(line).toMatch(/^ok {3}\[\d\/4\] 2026-01-01T0\d {2}shop\.orders, shop\.revenue {2}2 rows {2}\S+$/);
  });

  it("writes both counts of the summary alike, with thousands separated", async () => {
    const { lines, summary } = await logOf("2026-01-01T00..2026-02-11T16", ["shop.orders"]);
    expect(lines).toHaveLength(1001);
    expect(lines.at(-1)).toMatch(/^ok {3}\[1001\/1001\] 2026-\S+ {2}shop\.orders {2}1 row {2}\S+$/);
    expect(summary[0]).toMatch(/^Done: 1,001 of 1,001 partitions completed, 1,001 rows in /);
  });
});
