// The command line's words for skipped assets: the library's reason, and for a list asset a
// window of time skips, the command that runs it instead (the library names no command), in the
// Skipping lines and in the error when the window gives nothing to run.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { planOnCommandLine, skippedLines } from "../../src/cli/commands/skipped.js";
import { NothingToRunError } from "../../src/runner/staged-plan.js";

const STOCK_REASON = "partitioned by a list (eu, us), which a window of time does not name";
const MONTH_REASON = "no month of it lies wholly inside 2026-01-05..2026-01-20; the month holding it is 2026-01";
const HOW_TO_RUN_MONTH = "run `interloper materialize shop.monthly -p 2026-01`";
const HOW_TO_RUN_STOCK = "run `interloper materialize shop.stock` for all its values, or add --partition VALUE";

describe("skippedLines", () => {
  it("adds the command to run a list asset a window of time skips, and a rollup over the periods holding it; other reasons stand", () => {
    expect(
      skippedLines([
        { asset: "shop.stock", reason: STOCK_REASON, listValues: ["eu", "us"] },
        { asset: "shop.monthly", reason: MONTH_REASON, holding: ["2026-01"] },
        { asset: "shop.weekly", reason: "no week of it lies wholly inside 2026-01-30..2026-02-02", holding: ["2026-W05", "2026-W06"] },
        { asset: "shop.daily", reason: "the window 2025-01 ends before its start 2026-01-01" },
      ]),
    ).toEqual([
      `Skipping shop.stock: ${STOCK_REASON}: ${HOW_TO_RUN_STOCK}`,
      `Skipping shop.monthly: ${MONTH_REASON}: ${HOW_TO_RUN_MONTH}`,
      "Skipping shop.weekly: no week of it lies wholly inside 2026-01-30..2026-02-02: run `interloper materialize shop.weekly -w 2026-W05..2026-W06`",
      "Skipping shop.daily: the window 2025-01 ends before its start 2026-01-01",
    ]);
  });
});

describe("planOnCommandLine", () => {
  const stock = il.asset({
    key: "stock",
    partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
    run: (ctx) => [{ region: ctx.partition!.key }],
  });
  const monthly = il.asset({
    key: "monthly",
    partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
    run: () => [],
  });
  const project = projectOf({
    sources: [il.source({ key: "shop", assets: [stock, monthly] })({ destinations: new il.MemoryDestination() })],
  });
  const options = { assets: ["stock", "monthly"], window: "2026-01-05..2026-01-20" };

  it("where the window gives nothing to run, the library's error names no command, and the command line's adds it", () => {
    let library: unknown;
    try {
      il.planMaterialize(project, options);
    } catch (error) {
      library = error;
    }
    expect(library).toBeInstanceOf(NothingToRunError);
    expect((library as NothingToRunError).message).toBe(
      `nothing to run in 2026-01-05..2026-01-20: shop.stock: ${STOCK_REASON}; shop.monthly: ${MONTH_REASON}`,
    );
    expect((library as NothingToRunError).skipped).toEqual([
      { asset: "shop.stock", reason: STOCK_REASON, listValues: ["eu", "us"] },
      { asset: "shop.monthly", reason: MONTH_REASON, holding: ["2026-01"] },
    ]);
    expect(() => planOnCommandLine(project, options)).toThrow(
      new il.PartitionError(
        `nothing to run in 2026-01-05..2026-01-20: shop.stock: ${STOCK_REASON}: ${HOW_TO_RUN_STOCK}; shop.monthly: ${MONTH_REASON}: ${HOW_TO_RUN_MONTH}`,
      ),
    );
  });

  it("plans as planMaterialize does otherwise", () => {
    expect(planOnCommandLine(project, { assets: ["stock"] }).runs).toEqual(il.planMaterialize(project, { assets: ["stock"] }).runs);
  });
});
