import { expect, it } from "vitest";
import { TimePartitionWindow } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import type { Row } from "../../src/representation/index.js";

const DAY_MS = 86_400_000;
const START = Date.UTC(2025, 0, 1);
const ROWS = 1_000_000;
const DAYS = 365;

// Correctness only: a split this size must work (no stack overflow from spreading big arrays,
// no per-partition rescans making it crawl); timings are for benchmarks, not tests.
it("splits 1,000,000 rows over a 365-day window and joins them back", () => {
  const keys: string[] = [];
  for (let d = 0; d < DAYS; d++) keys.push(new Date(START + d * DAY_MS).toISOString().slice(0, 10));
  const rows: Row[] = new Array<Row>(ROWS);
  // Row i falls on day i % 365, except every 1000th row, which is a day past the window.
  for (let i = 0; i < ROWS; i++) rows[i] = { date: i % 1000 === 999 ? "2026-01-01" : keys[i % DAYS], n: i };
  const window = new TimePartitionWindow(keys[0]!, keys[DAYS - 1]!);

  for (const table of [TableData.from(rows)!, TableData.from(TableData.from(rows)!.to("columns"))!]) {
    const { slices, outside } = table.split(window, "date");
    expect(slices).toHaveLength(DAYS);
    expect(outside).toBe(ROWS / 1000);
    let total = 0;
    for (let d = 0; d < DAYS; d++) {
      const [partition, slice] = slices[d]!;
      expect(partition.key).toBe(keys[d]);
      const dates = slice.values("date");
      for (let i = 0; i < dates.length; i++) if (dates[i] !== keys[d]) throw new Error(`row of ${String(dates[i])} in ${keys[d]}`);
      total += slice.length;
    }
    expect(total).toBe(ROWS - outside);
    const joined = TableData.join(slices.map(([, slice]) => slice));
    expect(joined.kind).toBe(table.kind);
    expect(joined.length).toBe(ROWS - outside);
    expect(joined.values("n")[0]).toBe(0);
    expect(joined.values("n")[1]).toBe(365);
  }
});
