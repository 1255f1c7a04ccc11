import { describe, expect, it } from "vitest";
import { checks } from "../../src/check/index.js";
import { HashSet64, Hasher } from "../../src/check/hash-set.js";
import { judge } from "./helpers.js";
import { verifyChecks } from "../../src/check/index.js";

describe("checks.unique", () => {
  it("passes distinct values and leaves nulls out", async () => {
    const verdict = await judge(checks.unique("id"), [{ id: 1 }, { id: 2 }, { id: null }, { id: null }, {}]);
    expect(verdict).toMatchObject({ name: "unique(id)", passed: true, failures: 0 });
  });

  it("finds duplicates across batches, counting each repeat and showing each value once", async () => {
    const rows = [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "a" }, { id: "b" }, { id: "a" }];
    const verdict = await judge(checks.unique("id"), rows, { batch: 2 });
    expect(verdict.failures).toBe(3);
    expect(verdict.examples).toEqual(['"a"', '"b"']);
    expect(verdict.message).toBe("3 rows of 6 repeat the id of an earlier row");
  });

  it("takes several columns together", async () => {
    const rows = [
      { day: "2026-01-01", id: 1 },
      { day: "2026-01-02", id: 1 },
      { day: "2026-01-01", id: 2 },
      { day: "2026-01-01", id: 1 },
    ];
    const verdict = await judge(checks.unique("day", "id"), rows, { batch: 1 });
    expect(verdict.failures).toBe(1);
    expect(verdict.examples).toEqual(['"2026-01-01", 1']);
  });

  it("does not mistake a shift between columns for a repeat", async () => {
    const rows = [
      { a: "ab", b: "c" },
      { a: "a", b: "bc" },
    ];
    expect((await judge(checks.unique("a", "b"), rows)).passed).toBe(true);
  });

  it('treats -0 as 0, NaN as NaN and a Date as its instant, and keeps 1 apart from "1" and 1n', async () => {
    const same = [
      [0, -0],
      [Number.NaN, Number.NaN],
      [new Date(Date.UTC(2026, 0, 5)), new Date("2026-01-05T00:00:00Z")],
    ];
    for (const [x, y] of same) expect((await judge(checks.unique("v"), [{ v: x }, { v: y }])).failures).toBe(1);
    expect((await judge(checks.unique("v"), [{ v: 1 }, { v: "1" }, { v: 1n }, { v: true }])).passed).toBe(true);
    expect((await judge(checks.unique("v"), [{ v: { a: 1 } }, { v: { a: 1 } }])).failures).toBe(1);
  });

  it("keeps hashes in a typed table: no false repeat among 200,000 close strings", () => {
    const set = new HashSet64();
    const hasher = new Hasher();
    let repeats = 0;
    for (let i = 0; i < 200_000; i++) {
      hasher.reset();
      hasher.string(`order-${i}`);
      hasher.finish();
      if (!set.add(hasher.high, hasher.low)) repeats++;
    }
    expect(repeats).toBe(0);
    expect(set.size).toBe(200_000);
    // 200,000 values fit 2^19 slots at most 70% full: 4 MB.
    expect(set.bytes).toBe(2 * 4 * 2 ** 19);
  });

  // The process's peak memory over such a stream is the bench's to measure (W7-UNIQUE): in a
  // worker shared with other files, heap figures include their garbage. Here: the answer, and
  // the size of what the check keeps, which is all that grows with the rows.
  it("checks 5,000,000 streamed rows, keeping 8 bytes a value in a table at most 70% full", async () => {
    async function* stream() {
      for (let start = 0; start < 5_000_000; start += 10_000) {
        const batch = [];
        for (let i = start; i < start + 10_000; i++) batch.push({ order_id: `order-${i}`, n: i });
        yield batch;
      }
      yield [{ order_id: "order-4999999", n: -1 }];
    }
    const [verdict] = await verifyChecks({ qualifiedKey: "shop.orders", checks: [checks.unique("order_id")] }, null, stream());
    expect(verdict).toMatchObject({ failures: 1, examples: ['"order-4999999"'] });
    const table = new HashSet64();
    for (let i = 0; i < 5_000_000; i++) table.add(i * 2654435761, i);
    expect(table.size).toBe(5_000_000);
    expect(table.bytes).toBeLessThanOrEqual(Math.ceil(5_000_000 / 0.7) * 2 * 8);
    expect(table.bytes).toBeLessThanOrEqual(128 * 1024 * 1024);
  }, 60_000);
});
