// The progress views and the summary count the same things the same way: a real materialize
// (in process, memory destination) feeds a RunTracker with its events, and the tracker's counts
// must equal what the summary reads from the outcome, in every way a run can end.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { materialize, type MaterializeOutcome } from "../../src/api/materialize.js";
import { projectOf } from "../../src/api/project.js";
import { asset } from "../../src/asset/definition.js";
import { outcomeCounts, summaryLines } from "../../src/cli/reporters/summary.js";
import { timingLines } from "../../src/cli/reporters/timings.js";
import { RunTracker } from "../../src/cli/reporters/tracker.js";
import { defineConfig } from "../../src/config/define-config.js";
import { MemoryDestination } from "../../src/destination/index.js";
import { TimePartitionConfig } from "../../src/partitioning/time.js";
import type { InterloperEvent } from "../../src/runner/events.js";
import { source } from "../../src/source/source.js";

/** A project of orders (daily; fails on the given days) and revenue downstream of it. */
function project(failing: readonly string[] = []) {
  const daily = () => new TimePartitionConfig({ column: "date", start: "2026-01-01" });
  const orders = asset({
    key: "orders",
    partitioning: daily(),
    schema: z.object({ date: z.string(), n: z.number() }),
    run(context) {
      const day = context.partition!.key;
      if (failing.includes(day)) throw new Error(`no orders for ${day}`);
      return [
        { date: day, n: 1 },
        { date: day, n: 2 },
      ];
    },
  });
  const revenue = asset({
    key: "revenue",
    partitioning: daily(),
    schema: z.object({ date: z.string(), total: z.number() }),
    requires: { orders },
    run: (context, { orders }) => [{ date: context.partition!.key, total: orders.length }],
  });
  const Demo = source({ key: "demo", assets: [orders, revenue] });
  return projectOf(defineConfig({ sources: [Demo({ destinations: new MemoryDestination() })] }));
}

/** Materializes with a tracker listening; `react` may act on each event (abort, say). */
async function tracked(
  options: Parameters<typeof materialize>[1],
  failing: readonly string[] = [],
  react?: (event: InterloperEvent) => void,
) {
  const tracker = new RunTracker("backfill");
  const outcome: MaterializeOutcome = await materialize(project(failing), {
    ...options,
    onEvent: (event) => {
      tracker.apply(event);
      react?.(event);
    },
  });
  return { tracker, outcome };
}

describe("the tracker's counts and the summary's agree", () => {
  it("a backfill that fails fast: 1 failed, the partitions never started not run", async () => {
    const { tracker, outcome } = await tracked({ window: "2026-01-01..2026-01-06", concurrency: 1, order: "oldest", failFast: true }, [
      "2026-01-03",
    ]);
    expect(tracker.counts).toEqual(outcomeCounts(outcome));
    expect(tracker.counts).toMatchObject({ completed: 2, failed: 1, notRun: 3 });
    expect(tracker.done).toBe(6);
    expect(summaryLines(outcome, tracker.rows, { assets: [] })[0]).toMatch(
      /^Failed: 2 of 6 partitions completed, 1 failed, 3 not run, 6 rows in /,
    );
  });

  it("a backfill interrupted between two assets of a partition: canceled (not failed), with the asset that did not start named", async () => {
    const abort = new AbortController();
    const { tracker, outcome } = await tracked(
      { window: "2026-01-01..2026-01-04", concurrency: 1, order: "oldest", signal: abort.signal },
      [],
      (event) => {
        // Ctrl-C once the first partition's orders are written, before its revenue starts.
        if (event.type === "asset:completed" && event.asset === "demo.orders" && event.partition === "2026-01-01")
          abort.abort(new DOMException("SIGINT", "AbortError"));
      },
    );
    expect(outcome.status).toBe("canceled");
    expect(tracker.counts).toEqual(outcomeCounts(outcome));
    expect(tracker.counts).toMatchObject({ completed: 0, failed: 0, canceled: 1, notRun: 3 });
    const unit = tracker.finished.find((u) => u.label === "2026-01-01")!;
    expect(unit.status).toBe("canceled");
    expect(unit.failures.join("; ")).toMatch(/^demo\.revenue not started: /);
    expect(summaryLines(outcome, tracker.rows, { assets: [] })[0]).toMatch(
      /^Interrupted: 0 of 4 partitions completed, 1 canceled, 3 not run, /,
    );
  });

  it("a single run whose upstream fails: 1 failed and 1 skipped (upstream failed), in the bar and the summary", async () => {
    const tracker = new RunTracker("run");
    const outcome = await materialize(project(["2026-01-05"]), { partition: "2026-01-05", onEvent: (event) => void tracker.apply(event) });
    expect(outcome.plan.mode).toBe("run");
    expect(tracker.counts).toEqual(outcomeCounts(outcome));
    expect(tracker.counts).toMatchObject({ completed: 0, failed: 1, skipped: 1 });
    expect(tracker.done).toBe(2);
    expect(tracker.finished.map((u) => [u.label, u.status])).toEqual([
      ["demo.orders", "failed"],
      ["demo.revenue", "skipped"],
    ]);
    expect(summaryLines(outcome, tracker.rows, { assets: [] })[0]).toMatch(
      /^Failed: 0 of 2 assets completed for 2026-01-05, 1 failed, 1 skipped \(upstream failed\), 0 rows in /,
    );
  });

  it("--no-fail-fast: the failed partitions and the completed ones, nothing left unaccounted", async () => {
    const { tracker, outcome } = await tracked({ window: "2026-01-01..2026-01-05", concurrency: 2, failFast: false }, [
      "2026-01-02",
      "2026-01-04",
    ]);
    expect(tracker.counts).toEqual(outcomeCounts(outcome));
    expect(tracker.counts).toMatchObject({ completed: 3, failed: 2, notRun: 0 });
    expect(tracker.done).toBe(tracker.total);
  });
});

describe("the timing table", () => {
  it("has a row per asset that ran: partitions completed (and failed), rows, time; numbers right-aligned", async () => {
    const { tracker } = await tracked({ window: "2026-01-01..2026-01-05", failFast: false }, ["2026-01-02"]);
    const lines = timingLines(tracker.timings.values());
    expect(lines[0]).toMatch(/^asset +partitions +rows +time$/);
    expect(lines[1]).toMatch(/^demo\.orders +4 \(1 failed\) +8 +\d+(ms|\.\ds)$/);
    expect(lines[2]).toMatch(/^demo\.revenue +4 +4 +\d+(ms|\.\ds)$/);
    // Right-aligned: every row ends its columns where the header does.
    const end = (line: string, word: string) => line.indexOf(word) + word.length;
    expect(end(lines[1]!, "8")).toBe(end(lines[0]!, "rows"));
    expect(end(lines[2]!, "4 ") - 1).toBe(end(lines[0]!, "partitions"));
  });

  it("is empty when nothing ran", () => {
    expect(timingLines([])).toEqual([]);
  });
});
