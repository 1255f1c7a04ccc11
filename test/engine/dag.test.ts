import { beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

beforeEach(() => il.MemoryDestination.clear());

/** The error a DAG construction throws, or null. */
function dagError(...members: il.DAGMember[]): Error | null {
  try {
    new il.DAG(...members);
    return null;
  } catch (error) {
    return error as Error;
  }
}

const noop = () => [];

describe("DAG validation", () => {
  it("refuses the same asset twice with DAGError", () => {
    const a = il.asset({ key: "a", run: noop });
    const S = il.source({ key: "s", assets: [a] });
    const error = dagError(S(), S());
    expect(error).toBeInstanceOf(il.DAGError);
    expect(error!.message).toContain("s.a");
    expect(dagError(a, a)).toBeInstanceOf(il.DAGError);
  });

  it("accepts the same definition in two sources (different qualified keys)", () => {
    const a = il.asset({ key: "a", run: noop });
    const dag = new il.DAG(il.source({ key: "one", assets: [a] })(), il.source({ key: "two", assets: [a] })());
    expect(dag.assets.map((x) => x.qualifiedKey).sort()).toEqual(["one.a", "two.a"]);
  });

  it("refuses a missing dependency with DependencyNotFoundError naming the asset and the key", () => {
    const b = il.asset({ key: "b", requires: { x: "ghost" }, run: noop });
    const error = dagError(il.source({ key: "s", assets: [b] })());
    expect(error).toBeInstanceOf(il.DependencyNotFoundError);
    expect(error).toBeInstanceOf(il.DAGError);
    expect(error!.message).toContain("s.b");
    expect(error!.message).toContain("ghost");
  });

  it("refuses a missing cross-source dependency naming the qualified key", () => {
    const b = il.asset({ key: "b", requires: { x: "other.thing" }, run: noop });
    const error = dagError(il.source({ key: "s", assets: [b] })());
    expect(error).toBeInstanceOf(il.DependencyNotFoundError);
    expect(error!.message).toContain("other.thing");
  });

  it("refuses a missing definition-object dependency naming its key", () => {
    const hidden = il.asset({ key: "hidden", run: noop });
    const b = il.asset({ key: "b", requires: { hidden }, run: noop });
    const error = dagError(il.source({ key: "s", assets: [b] })());
    expect(error).toBeInstanceOf(il.DependencyNotFoundError);
    expect(error!.message).toContain("hidden");
  });

  it("refuses a cycle with CircularDependencyError naming it in order", () => {
    const a = il.asset({ key: "a", requires: { c: "c" }, run: noop });
    const b = il.asset({ key: "b", requires: { a: "a" }, run: noop });
    const c = il.asset({ key: "c", requires: { b: "b" }, run: noop });
    const error = dagError(il.source({ key: "s", assets: [a, b, c] })());
    expect(error).toBeInstanceOf(il.CircularDependencyError);
    expect(error).toBeInstanceOf(il.DAGError);
    const cycle = (error as il.CircularDependencyError).cycle;
    // Whatever asset the cycle is reported from, it starts and ends there and follows the edges
    // in one direction: each asset is required by the next one.
    expect(cycle[0]).toBe(cycle[cycle.length - 1]);
    expect(cycle).toHaveLength(4);
    const next: Record<string, string> = { "s.a": "s.b", "s.b": "s.c", "s.c": "s.a" };
    const prev: Record<string, string> = { "s.b": "s.a", "s.c": "s.b", "s.a": "s.c" };
    const forward = cycle.slice(1).every((k, i) => next[cycle[i]!] === k);
    const backward = cycle.slice(1).every((k, i) => prev[cycle[i]!] === k);
    expect(forward || backward).toBe(true);
    expect(error!.message).toContain(cycle.join(" -> "));
  });

  it("reports the a -> b -> c -> a cycle when a requires b, b requires c and c requires a", () => {
    const a = il.asset({ key: "a", requires: { b: "b" }, run: noop });
    const b = il.asset({ key: "b", requires: { c: "c" }, run: noop });
    const c = il.asset({ key: "c", requires: { a: "a" }, run: noop });
    const error = dagError(il.source({ key: "s", assets: [a, b, c] })());
    expect(error).toBeInstanceOf(il.CircularDependencyError);
    expect((error as il.CircularDependencyError).cycle).toEqual(["s.a", "s.b", "s.c", "s.a"]);
  });

  it("refuses a self-dependency as a cycle", () => {
    const a = il.asset({ key: "a", requires: { me: "a" }, run: noop });
    const error = dagError(il.source({ key: "s", assets: [a] })());
    expect(error).toBeInstanceOf(il.CircularDependencyError);
    expect((error as il.CircularDependencyError).cycle).toEqual(["s.a", "s.a"]);
  });

  it("records an unpartitioned asset depending on a time-partitioned one as a problem of that asset", async () => {
    const up = il.asset({ key: "up", partitioning: new il.TimePartitionConfig({ column: "date" }), run: noop });
    const down = il.asset({ key: "down", requires: { up: "up" }, run: noop });
    const dag = new il.DAG(il.source({ key: "s", assets: [up, down] })({ destinations: new il.MemoryDestination() }));
    const [problem] = dag.problems(dag.find("s.down")!);
    expect(problem).toContain("s.down");
    expect(problem).toContain("s.up");
    expect(dag.problems(dag.find("s.up")!)).toEqual([]);
    await expect(dag.materialize(null, { assets: ["s.down"] })).rejects.toThrow(il.ConfigError);
  });

  it("accepts a partitioned asset depending on an unpartitioned one", () => {
    const up = il.asset({ key: "up", run: noop });
    const down = il.asset({ key: "down", partitioning: new il.TimePartitionConfig({ column: "date" }), requires: { up: "up" }, run: noop });
    expect(dagError(il.source({ key: "s", assets: [up, down] })())).toBeNull();
  });

  it("accepts day and month partitionings on one edge (the month reads its days)", () => {
    const up = il.asset({ key: "up", partitioning: new il.TimePartitionConfig({ column: "date" }), run: noop });
    const down = il.asset({
      key: "down",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
      requires: { up: "up" },
      run: noop,
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [up, down] })());
    expect(dag.problems(dag.find("s.down")!)).toEqual([]);
  });

  it("records list partitionings whose values differ, and time against list, as problems of the downstream asset", () => {
    const up = il.asset({ key: "up", partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }), run: noop });
    const down = il.asset({
      key: "down",
      partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }),
      requires: { up: "up" },
      run: noop,
    });
    const timed = il.asset({
      key: "timed",
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      requires: { up: "up" },
      run: noop,
    });
    const dag = new il.DAG(il.source({ key: "s", assets: [up, down, timed] })());
    expect(dag.problems(dag.find("s.down")!)).toHaveLength(1);
    expect(dag.problems(dag.find("s.timed")!)[0]).toMatch(/"s\.timed".*requires "s\.up".*time and list/);
    expect(() => dag.checkEdges([dag.find("s.timed")!])).toThrow(il.ConfigError);
    expect(() => dag.checkEdges([dag.find("s.up")!])).not.toThrow();
  });

  it("accepts compatible partitionings (same granularity, other column or allowWindow; same list values)", () => {
    const up = il.asset({ key: "up", partitioning: new il.TimePartitionConfig({ column: "date" }), run: noop });
    const down = il.asset({
      key: "down",
      partitioning: new il.TimePartitionConfig({ column: "day", allowWindow: true }),
      requires: { up: "up" },
      run: noop,
    });
    expect(dagError(il.source({ key: "s", assets: [up, down] })())).toBeNull();
    const l1 = il.asset({ key: "l1", partitioning: new il.ListPartitionConfig({ column: "r", values: ["eu", "us"] }), run: noop });
    const l2 = il.asset({
      key: "l2",
      partitioning: new il.ListPartitionConfig({ column: "r", values: ["eu", "us"] }),
      requires: { l1: "l1" },
      run: noop,
    });
    expect(dagError(il.source({ key: "s", assets: [l1, l2] })())).toBeNull();
  });

  it("orders assets upstream first and accepts sources, runtime assets and definitions", () => {
    const a = il.asset({ key: "a", run: noop });
    const b = il.asset({ key: "b", requires: { a: "a" }, run: noop });
    const c = il.asset({ key: "c", requires: { b: "s.b" }, run: noop });
    const S = il.source({ key: "s", assets: [b, a] });
    const dag = new il.DAG(c, S);
    const order = dag.assets.map((x) => x.qualifiedKey);
    expect(order.indexOf("s.a")).toBeLessThan(order.indexOf("s.b"));
    expect(order.indexOf("s.b")).toBeLessThan(order.indexOf("c"));
    expect(dag.find("c")?.qualifiedKey).toBe("c");
    expect(dag.downstreamOf(dag.find("s.a")!).map((x) => x.qualifiedKey)).toEqual(["s.b", "c"]);
  });
});
