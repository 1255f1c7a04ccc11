// Dependencies across time granularities through the built CLI, on fixtures/projects/rollup.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, FIXTURES, oneLineError, partitionFile, readCsv, useSandboxes } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

const ROLLUP = join(FIXTURES, "rollup", "interloper.config.ts");
const BROKEN = { INTERLOPER_BROKEN_EDGE: "1" };

const days = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => `2026-01-${String(first + i).padStart(2, "0")}`);

describe.concurrent("a monthly asset requiring a daily one", () => {
  it("materialize monthly_revenue -p 2026-01 after the daily window: its revenue is the sum of its days", async () => {
    const box = await sandbox();
    const daily = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-31"], { config: ROLLUP });
    expect(daily.exitCode, daily.stderr).toBe(0);
    const monthly = await box.run(["materialize", "monthly_revenue", "-p", "2026-01"], { config: ROLLUP });
    expect(monthly.exitCode, monthly.stderr).toBe(0);

    let expected = 0;
    for (const day of days(1, 31))
      for (const row of await readCsv(join(box.data, partitionFile("shop", "orders", "date", day)))) expected += Number(row["amount"]);
    const [row, ...rest] = await readCsv(join(box.data, partitionFile("shop", "monthly_revenue", "month", "2026-01")));
    expect(rest).toEqual([]);
    expect(row!["month"]).toBe("2026-01-01");
    expect(Number(row!["days"])).toBe(31);
    expect(Number(row!["revenue"])).toBeCloseTo(expected, 9);

    // A 7-day trailing window (il.trailing(7)) reads the 7 days ending with its own.
    const rolling = await box.run(["materialize", "rolling_revenue", "-p", "2026-01-10"], { config: ROLLUP });
    expect(rolling.exitCode, rolling.stderr).toBe(0);
    let week = 0;
    for (const day of days(4, 10))
      for (const r of await readCsv(join(box.data, partitionFile("shop", "orders", "date", day)))) week += Number(r["amount"]);
    const [trailing] = await readCsv(join(box.data, partitionFile("shop", "rolling_revenue", "date", "2026-01-10")));
    expect(Number(trailing!["days"])).toBe(7);
    expect(Number(trailing!["revenue"])).toBeCloseTo(week, 9);
  });

  it("list shows each dependency with its mapping", async () => {
    const box = await sandbox();
    const result = await box.run(["list"], { config: ROLLUP });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("depends on    orders=shop.orders\n");
    expect(result.stdout).toContain("depends on    week=shop.orders (the trailing 7 periods)");
    expect(result.stdout).not.toContain("problem");
  });
});

describe.concurrent("an edge that cannot be read (a daily asset requiring a list-partitioned one)", () => {
  it("list works and shows the problem beside the asset, in text and --json", async () => {
    const box = await sandbox();
    const text = await box.run(["list"], { config: ROLLUP, env: BROKEN });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^shop\.daily_stock\n(?: {2}.*\n)*? {2}problem {7}asset "shop\.daily_stock" \(by day\) requires "shop\.stock" \(by list eu,us\): time and list partitions do not map onto each other; require "shop\.stock" from an unpartitioned asset/m,
    );
    const json = await box.run(["list", "--json"], { config: ROLLUP, env: BROKEN });
    expect(json.exitCode, json.stderr).toBe(0);
    const assets = JSON.parse(json.stdout) as Array<{ key: string; problems: string[] }>;
    const byKey = Object.fromEntries(assets.map((a) => [a.key, a]));
    expect(byKey["shop.daily_stock"]!.problems).toHaveLength(1);
    expect(byKey["shop.daily_stock"]!.problems[0]).toContain('requires "shop.stock"');
    expect(byKey["shop.stock"]!.problems).toEqual([]);
    expect(byKey["shop.orders"]!.problems).toEqual([]);
  });

  it("materialize of an unrelated asset works; of the edge's asset exits 2 with one line, nothing written", async () => {
    const box = await sandbox();
    const unrelated = await box.run(["materialize", "orders", "-p", "2026-01-05"], { config: ROLLUP, env: BROKEN });
    expect(unrelated.exitCode, unrelated.stderr).toBe(0);
    const upstream = await box.run(["materialize", "stock", "-p", "eu"], { config: ROLLUP, env: BROKEN });
    expect(upstream.exitCode, upstream.stderr).toBe(0);
    const before = await box.files();

    const refused = await box.run(["materialize", "daily_stock", "-p", "2026-01-05"], { config: ROLLUP, env: BROKEN });
    expect(refused.exitCode).toBe(2);
    expect(oneLineError(refused)).toMatch(
      /asset "shop\.daily_stock" \(by day\) requires "shop\.stock" \(by list eu,us\): .*partition "shop\.daily_stock" by the same list$/,
    );
    const planned = await box.run(["plan", "daily_stock", "-p", "2026-01-05"], { config: ROLLUP, env: BROKEN });
    expect(planned.exitCode).toBe(2);
    expect(oneLineError(planned)).toContain('requires "shop.stock"');
    expect(await box.files()).toEqual(before);
  });
});
