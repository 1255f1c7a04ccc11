// Issue 23: a backfill on the queue is one job per slot of the plan's schedule; a job waits
// only for the slots holding partitions it reads.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { jobGraph, type JobGraph } from "../../src/queue/job-graph.js";
import { uuidV5 } from "../../src/queue/uuid.js";

const daily = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  run: () => [],
});
const enriched = il.asset({
  key: "enriched",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  requires: { daily },
  run: () => [],
});
const monthly = il.asset({
  key: "monthly",
  partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
  requires: { daily },
  run: () => [],
});
const rolling = il.asset({
  key: "rolling",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  requires: { week: { asset: daily, mapping: il.trailing(3) } },
  run: () => [],
});
const dims = il.asset({ key: "dims", run: () => [] });
const withDims = il.asset({
  key: "with_dims",
  partitioning: new il.TimePartitionConfig({ column: "date" }),
  requires: { dims },
  run: () => [],
});

function graphOf(assets: Parameters<typeof il.source>[0]["assets"], window: string): JobGraph {
  const project = projectOf({ sources: [il.source({ key: "shop", assets })({ destinations: new il.MemoryDestination() })] });
  const plan = il.planMaterialize(project, { window });
  return jobGraph(project.dag, plan.schedule);
}

/** Each slot's parents, as "partition assets" strings. */
function parents(graph: JobGraph): Record<string, string[]> {
  const name = (id: number) => {
    const slot = graph.slots[id]!;
    return `${slot.partition ?? "-"} ${slot.assets.map((a) => a.replace("shop.", "")).join("+")}`;
  };
  const out: Record<string, string[]> = {};
  for (const slot of graph.slots) out[name(slot.id)] = [];
  for (const edge of graph.edges) out[name(edge.child)]!.push(name(edge.parent));
  for (const list of Object.values(out)) list.sort();
  return out;
}

describe("the jobs of a backfill", () => {
  it("a month waits for the slots of its own days only", () => {
    const graph = graphOf([daily, monthly], "2026-01-30..2026-03-01");
    const byChild = parents(graph);
    expect(byChild["2026-02 monthly"]).toEqual(
      Array.from({ length: 28 }, (_, i) => `2026-02-${String(i + 1).padStart(2, "0")} orders`).sort(),
    );
    expect(byChild["2026-02-10 orders"]).toEqual([]);
    // January and March are not wholly in the window: no month slot for them, and their days wait for nothing.
    expect(Object.keys(byChild).filter((k) => k.endsWith("monthly"))).toEqual(["2026-02 monthly"]);
    expect(graph.slots).toHaveLength(31 + 1);
  });

  it("assets reading their own partition share a slot, which waits for nothing", () => {
    const graph = graphOf([daily, enriched], "2026-01-01..2026-01-05");
    expect(graph.slots.map((s) => `${s.partition} ${s.assets.join("+")}`)).toEqual([
      "2026-01-05 shop.orders+shop.enriched",
      "2026-01-04 shop.orders+shop.enriched",
      "2026-01-03 shop.orders+shop.enriched",
      "2026-01-02 shop.orders+shop.enriched",
      "2026-01-01 shop.orders+shop.enriched",
    ]);
    expect(graph.edges).toEqual([]);
  });

  it("a trailing window waits for the days it reads that the backfill runs", () => {
    const byChild = parents(graphOf([daily, rolling], "2026-01-01..2026-01-05"));
    expect(byChild["2026-01-04 rolling"]).toEqual(["2026-01-02 orders", "2026-01-03 orders", "2026-01-04 orders"]);
    // The days before the window are not in this backfill: nothing to wait for there.
    expect(byChild["2026-01-01 rolling"]).toEqual(["2026-01-01 orders"]);
  });

  it("a partitioned asset reading an unpartitioned one waits for its slot", () => {
    const byChild = parents(graphOf([dims, withDims], "2026-01-01..2026-01-02"));
    expect(byChild).toEqual({ "- dims": [], "2026-01-02 with_dims": ["- dims"], "2026-01-01 with_dims": ["- dims"] });
  });
});

describe("uuidV5", () => {
  it("matches the RFC's example and is deterministic", () => {
    // RFC 9562 appendix A.4: "www.example.com" in the DNS namespace.
    expect(uuidV5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
    expect(uuidV5("a")).toBe(uuidV5("a"));
    expect(uuidV5("a")).not.toBe(uuidV5("b"));
  });
});
