// A destination that fails in the middle of a window write (injected: a CSVDestination that
// throws on its Nth writePartition). Partitions it had not replaced keep their old data; with
// two destinations the RunResult says which holds the new data; re-running is idempotent.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { asset } from "../../src/asset/definition.js";
import { DAG } from "../../src/dag/dag.js";
import { CSVDestination, Destination, type IOContext } from "../../src/destination/index.js";
import type { Partition } from "../../src/partitioning/index.js";
import { TimePartitionConfig } from "../../src/partitioning/index.js";
import { source } from "../../src/source/source.js";
import { checkStored, days, EVENTS_SCHEMA, eventRows, listAll, useTempDirs } from "./helpers.js";
import { join } from "node:path";

const tempDir = useTempDirs();
const WINDOW = days("2024-04-01", "2024-04-05");

/** A real CSVDestination that throws on its `failOn`-th writePartition (counting from 1). */
class FailingCSV extends Destination {
  calls = 0;
  readonly inner: CSVDestination;
  constructor(
    basePath: string,
    public failOn: number,
  ) {
    super();
    this.inner = new CSVDestination({ basePath });
  }
  writePartition(context: IOContext, partition: Partition | null, data: unknown) {
    if (++this.calls === this.failOn) throw new Error(`injected failure on write ${this.calls} (${partition?.key})`);
    return this.inner.writePartition(context, partition, data);
  }
  readPartition(context: IOContext, partition: Partition | null) {
    return this.inner.readPartition(context, partition);
  }
  partitionRowCounts(context: IOContext) {
    return this.inner.partitionRowCounts(context);
  }
}

/** rel.events as a windowed asset (one execution, one window write), its rows tagged `writer`. */
function project(destinations: Destination | Record<string, Destination>, writer: string): DAG {
  const events = asset({
    key: "events",
    partitioning: new TimePartitionConfig({ column: "date", start: "2024-01-01", allowWindow: true }),
    schema: EVENTS_SCHEMA,
    run: (context) => context.window!.partitions.flatMap((p) => eventRows(p.key, writer)),
  });
  const Rel = source({ key: "rel", assets: [events] });
  return new DAG(Rel({ destinations }));
}

/** The data files' bytes below a folder (sidecars left out: they hold mtimes). */
async function dataBytes(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of await listAll(root)) if (file.endsWith("/data.csv")) out[file] = await readFile(join(root, file), "utf8");
  return out;
}

describe("a destination failing in the middle of a window write", () => {
  it("partitions it had not replaced keep their old rows; replaced ones hold the new rows whole", async () => {
    const base = await tempDir();
    const seeded = await project(new CSVDestination({ basePath: base }), "w").materialize(WINDOW);
    expect(seeded.status).toBe("completed");
    const failing = new FailingCSV(base, 3);
    const result = await project(failing, "w2").materialize(WINDOW);
    expect(result.status).toBe("failed");
    expect(result.error?.message).toMatch(/injected failure on write 3/);
    const execution = result.assetExecutions["rel.events"]!;
    expect(execution.written).toEqual([]);
    expect(execution.failedDestinations).toHaveLength(1);
    // Oldest first: 04-01 and 04-02 were replaced, 04-03 failed, 04-04 and 04-05 never started.
    const state = await checkStored("csv", base, WINDOW, { writers: ["w", "w2"] });
    expect(Object.keys(state.counts)).toEqual(WINDOW.partitions.map((p) => p.key));
    const writers = Object.fromEntries(
      await Promise.all(
        WINDOW.partitions.map(
          async (p) =>
            [
              p.key,
              (await readFile(join(base, "rel", "events", `date=${p.key}`, "data.csv"), "utf8")).includes(",w2,") ? "w2" : "w",
            ] as const,
        ),
      ),
    );
    expect(writers).toEqual({ "2024-04-01": "w2", "2024-04-02": "w2", "2024-04-03": "w", "2024-04-04": "w", "2024-04-05": "w" });
    expect(state.leftovers).toEqual([]);
  });

  it("with two destinations the result says which one holds the new data, and re-running is idempotent", async () => {
    const mainBase = await tempDir();
    const backupBase = await tempDir();
    const failing = new FailingCSV(mainBase, 2);
    const backup = new CSVDestination({ basePath: backupBase });
    const first = await project({ main: failing, backup }, "w").materialize(WINDOW);
    expect(first.status).toBe("failed");
    const execution = first.assetExecutions["rel.events"]!;
    expect(execution.written).toEqual(["backup"]);
    expect(execution.failedDestinations).toEqual(["main"]);
    expect(Object.keys((await checkStored("csv", backupBase, WINDOW)).counts)).toHaveLength(5);
    expect(Object.keys((await checkStored("csv", mainBase, WINDOW)).counts)).toEqual(["2024-04-01"]);

    failing.failOn = 0;
    const second = await project({ main: failing, backup }, "w").materialize(WINDOW);
    expect(second.status).toBe("completed");
    expect(second.assetExecutions["rel.events"]!.written).toEqual(["main", "backup"]);
    const after = { main: await dataBytes(mainBase), backup: await dataBytes(backupBase) };
    expect(Object.keys(after.main)).toHaveLength(5);
    expect(after.main).toEqual(after.backup);

    const third = await project({ main: failing, backup }, "w").materialize(WINDOW);
    expect(third.status).toBe("completed");
    expect({ main: await dataBytes(mainBase), backup: await dataBytes(backupBase) }).toEqual(after);
    await checkStored("csv", mainBase, WINDOW);
    await checkStored("csv", backupBase, WINDOW);
  });
});
