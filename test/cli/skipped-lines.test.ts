// The command line's words for skipped assets: the library's reason, and for a list asset a
// window of time skips, the command that runs it instead (the library names no command), in the
// Skipping lines and in the error when the window gives nothing to run.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { planOnCommandLine, skippedLines } from "../../src/cli/commands/skipped.js";
import { NothingToRunError } from "../../src/runner/staged-plan.js";

const STOCK_REASON = "partitioned by a list (eu, us), which a window of time does not name";
const MONTH_REASON = "no month of it lies wholly inside 2026-01-05..2026-01-20";
const HOW_TO_RUN_STOCK = "run `interloper materialize shop.stock` for all its values, or add --partition VALUE";

describe("skippedLines", () => {
  it("adds the command to run a list asset a window of time skips; other reasons stand as the library gives them", () => {
    expect(
      skippedLines([
        { asset: "shop.stock", reason: STOCK_REASON, listValues: ["eu", "us"] },
        { asset: "shop.monthly", reason: MONTH_REASON },
      ]),
    ).toEqual([`Skipping shop.stock: ${STOCK_REASON}: ${HOW_TO_RUN_STOCK}`, `Skipping shop.monthly: ${MONTH_REASON}`]);
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
  const project = il.projectOf({
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
      { asset: "shop.monthly", reason: MONTH_REASON },
    ]);
    expect(() => planOnCommandLine(project, options)).toThrow(
      new il.PartitionError(
        `nothing to run in 2026-01-05..2026-01-20: shop.stock: ${STOCK_REASON}: ${HOW_TO_RUN_STOCK}; shop.monthly: ${MONTH_REASON}`,
      ),
    );
  });

  it("plans as planMaterialize does otherwise", () => {
    expect(planOnCommandLine(project, { assets: ["stock"] }).runs).toEqual(il.planMaterialize(project, { assets: ["stock"] }).runs);
  });
});
