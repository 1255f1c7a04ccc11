// Regression (issue 17 item 4): coverage expected the current period, so a daily CI gate
// (`coverage --fail-on-missing`) failed every day and `materialize --missing` wrote today's
// incomplete partition. Every period up to the last complete one stored must mean nothing
// missing, and --missing must leave the current period alone.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { assetCoverage } from "../../src/api/coverage/index.js";
import { missingPlanOptions } from "../../src/api/missing.js";

let sources = 0;

async function storedUpTo(granularity: il.TimeGranularity, start: string, last: string) {
  const definition = il.asset({
    key: "events",
    partitioning: new il.TimePartitionConfig({ column: "at", granularity, start }),
    run: (context) => [{ at: (context.partition as il.TimePartition).value, n: 1 }],
  });
  const src = il.source({ key: `gate${++sources}`, assets: [definition] })({ destinations: new il.MemoryDestination() });
  const asset = src.assets["events"]!;
  const dag = new il.DAG(src);
  for (const period of granularity.periodRange(start, last)) {
    const result = await dag.materialize(new il.TimePartition(period, granularity));
    expect(result.status).toBe("completed");
  }
  return { asset, project: projectOf(il.defineConfig({ sources: [src] })) };
}

describe("the current period is never missing", () => {
  const cases: Array<[string, il.TimeGranularity, string, string, string, string]> = [
    ["daily, at noon", il.TimeGranularity.DAY, "2026-01-01", "2026-01-09", "2026-01-10T12:00:00Z", "2026-01-10"],
    ["daily, a second after midnight", il.TimeGranularity.DAY, "2026-01-01", "2026-01-09", "2026-01-10T00:00:01Z", "2026-01-10"],
    ["hourly", il.TimeGranularity.HOUR, "2026-01-10T00:00:00Z", "2026-01-10T05:00:00Z", "2026-01-10T06:30:00Z", "2026-01-10T06"],
  ];

  it.each(cases)(
    "%s: stored up to the last complete period, nothing is missing and --missing runs nothing",
    async (_name, granularity, start, last, now, current) => {
      const { asset, project } = await storedUpTo(granularity, start, last);
      const c = await assetCoverage(asset, { now: new Date(now) });
      expect(c.missing).toBe(0);
      expect(c.missingRanges).toEqual([]);
      expect(c.last).toBe(granularity.format(last));
      expect(c.inProgress).toEqual({ key: current, status: "in-progress", rows: null });
      const missing = await missingPlanOptions(project, { assets: [asset.qualifiedKey], now: new Date(now) });
      expect([...missing.only!]).toEqual([]);
    },
  );
});
