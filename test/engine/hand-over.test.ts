// The runner hands an asset's rows over to its destination instead of holding them through the
// write: a destination done with them before its I/O (CSVDestination encodes them first) lets
// them be collected while the write is still pending. Without that, the rows of every partition
// in flight in a backfill survive into V8's old generation (see docs/performance.md).
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Takes what it needs of the rows at once, then holds its write open until `open()`. */
class GatedDestination extends il.Destination {
  rows = 0;
  private release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  private reached!: () => void;
  readonly entered = new Promise<void>((resolve) => (this.reached = resolve));

  writePartition(_context: il.IOContext, _partition: il.Partition | null, data: unknown): Promise<void> {
    this.rows = (data as unknown[]).length;
    this.reached();
    return this.gate;
  }
  open(): void {
    this.release();
  }
  readPartition(): unknown {
    return [];
  }
  partitionRowCounts(): Record<string, number> {
    return {};
  }
}

describe("the runner hands rows over to the destination", () => {
  it.each([
    ["one destination", 1],
    ["two destinations (the last one is handed them)", 2],
  ])("%s: the rows can be collected while the write is pending", async (_name, count) => {
    let first: WeakRef<object> | undefined;
    const orders = il.asset({
      key: "orders",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      run: () => {
        const rows = Array.from({ length: 1_000 }, (_, i) => ({ date: "2026-03-01", id: i }));
        first = new WeakRef(rows[0]!);
        return rows;
      },
    });
    const gated = Array.from({ length: count }, () => new GatedDestination());
    const destinations = Object.fromEntries(gated.map((d, i) => [`d${i}`, d]));
    const Shop = il.source({ key: "shop", assets: [orders] });
    const run = new il.DAG(Shop({ destinations })).materialize(il.TimePartition.fromKey("2026-03-01"));

    // The first destination's write is pending. A WeakRef's target is kept to the end of the
    // job that made it: the collection runs in a later one.
    await gated[0]!.entered;
    if (count === 1) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      expect(first!.deref()).toBeUndefined();
    } else {
      // With two, the runner must keep the rows for the second until it is handed them.
      gc();
      expect(first!.deref()).toBeDefined();
      gated[0]!.open();
      await gated[1]!.entered;
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      expect(first!.deref()).toBeUndefined();
    }
    for (const destination of gated) destination.open();
    const result = await run;
    expect(result.status).toBe("completed");
    expect(gated.map((d) => d.rows)).toEqual(gated.map(() => 1_000));
  });
});
