// A warning nobody listens to is not lost: written rows without the partition column read back
// as nothing, and every entry point (asset.materialize, dag.materialize, il.backfill) run
// without a listener says so as a process warning of type InterloperWarning. A run that has a
// listener reports it there only.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";

const MESSAGE = /^asset "shop\.orders": the data written to SQLite has no "date" column, so reads of .* will not find these 2 rows$/;

let warnings: Error[] = [];
const listen = (warning: Error) => warnings.push(warning);

beforeEach(() => {
  warnings = [];
  process.on("warning", listen);
});
afterEach(() => {
  process.off("warning", listen);
});

/** The InterloperWarnings emitted so far (process warnings arrive on the next turn). */
async function ours(): Promise<string[]> {
  await new Promise((resolve) => setImmediate(resolve));
  return warnings.filter((w) => w.name === "InterloperWarning").map((w) => w.message);
}

function shop(): { shop: il.Source; destination: il.SQLiteDestination } {
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01", allowWindow: true }),
    run: () => [{ id: 1 }, { id: 2 }],
  });
  const destination = new il.SQLiteDestination({ path: ":memory:" });
  return { shop: il.source({ key: "shop", assets: [orders] })({ destinations: destination }), destination };
}

describe("a warning without a listener", () => {
  const day = il.TimePartition.fromKey("2026-01-01");

  it("is a process warning from asset.materialize()", async () => {
    const { shop: s, destination } = shop();
    try {
      await s.assets["orders"]!.materialize(day);
      expect(await ours()).toEqual([expect.stringMatching(MESSAGE)]);
      expect(await s.assets["orders"]!.read(day)).toEqual([]);
    } finally {
      await destination.close();
    }
  });

  it("is a process warning from dag.materialize() and il.backfill()", async () => {
    const { shop: s, destination } = shop();
    try {
      const dag = new il.DAG(s);
      expect((await dag.materialize(day)).status).toBe("completed");
      expect(await ours()).toEqual([expect.stringMatching(MESSAGE)]);
      warnings = [];
      const result = await il.backfill(dag, il.TimePartitionWindow.parse("2026-01-02..2026-01-03"));
      expect(result.status).toBe("completed");
      expect(await ours()).toEqual([expect.stringMatching(MESSAGE), expect.stringMatching(MESSAGE)]);
      // A RunEvents nobody subscribed to hears nothing either.
      warnings = [];
      await dag.materialize(day, { events: new il.RunEvents() });
      expect(await ours()).toEqual([expect.stringMatching(MESSAGE)]);
    } finally {
      await destination.close();
    }
  });

  it("is only an event when the run has a listener", async () => {
    const { shop: s, destination } = shop();
    try {
      const dag = new il.DAG(s);
      const heard: string[] = [];
      await dag.materialize(day, { onEvent: (e) => void (e.type === "log" && heard.push(e.message)) });
      const events = new il.RunEvents();
      events.subscribe((e) => void (e.type === "log" && heard.push(e.message)));
      await il.backfill(dag, il.TimePartitionWindow.parse("2026-01-02..2026-01-02"), { events });
      expect(heard).toEqual([expect.stringMatching(MESSAGE), expect.stringMatching(MESSAGE)]);
      expect(await ours()).toEqual([]);
    } finally {
      await destination.close();
    }
  });
});
