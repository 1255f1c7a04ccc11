// `partition` names exactly one partition (issue 41, item 6): a key of another granularity than
// the selected assets' is refused with the option that reaches what was meant, unless an asset
// of the selection is partitioned by it: then that asset's partition runs alone and the others
// are skipped with why. The command line's refusals: test/e2e/bad-input.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

afterEach(() => il.MemoryDestination.clear());

function project() {
  const days = il.asset({
    key: "days",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    run: (ctx) => [{ date: ctx.partition!.key }],
  });
  const months = il.asset({
    key: "months",
    partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH, start: "2026-01" }),
    requires: { days },
    run: (ctx, deps) => [{ month: ctx.partition!.key, days: (deps.days as unknown[]).length }],
  });
  return il.defineConfig({ sources: [il.source({ key: "s", assets: [days, months] })({ destinations: new il.MemoryDestination() })] });
}

describe("a partition of another granularity", () => {
  it("is refused for daily assets, naming the window that runs its days", async () => {
    const session = await il.openProject(project());
    await expect(session.plan({ selection: "days", partition: "2026-01" })).rejects.toThrow(
      "`partition` 2026-01 names one month, and the selected assets are partitioned by day: a partition is one of their own; use `window` 2026-01 for its days",
    );
    await expect(session.materialize({ selection: "days", partition: "2026-01" })).rejects.toThrow(il.PartitionError);
    const [days] = await session.coverage("days", { window: "2026-01" });
    expect(days!.materialized).toBe(0);
    await session.close();
  });

  it("is refused for a monthly asset, naming the month holding the day", async () => {
    const session = await il.openProject(project());
    await expect(session.plan({ selection: "months", partition: "2026-01-05" })).rejects.toThrow(
      "use `partition` 2026-01, the month holding it",
    );
    await session.close();
  });

  it("runs the one asset of the selection partitioned by it, and skips the others with why", async () => {
    const session = await il.openProject(project());
    await session.materialize({ selection: "days", window: "2026-01" });
    const plan = await session.plan({ partition: "2026-01" });
    expect(plan.runs).toEqual([{ partition: "2026-01", assets: ["s.months"] }]);
    expect(plan.skipped).toEqual([
      { asset: "s.days", reason: "partitioned by day, and the partition 2026-01 is a month (the window 2026-01 runs its days)" },
    ]);
    const outcome = await session.materialize({ plan });
    expect(outcome.status).toBe("completed");
    const [months] = await session.coverage("months", { window: "2026-01" });
    expect(months!.materialized).toBe(1);
    await session.close();
  });
});
