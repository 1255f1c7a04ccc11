// Events are scoped to their run: two runs in one process, in flight at the same time, each
// hear only their own events through their own listeners; the process-wide `subscribe` is a
// convenience that every run also feeds.
import { beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { day, days } from "./helpers.js";
import { gate } from "../support/gate.js";

beforeEach(() => il.MemoryDestination.clear());

const daily = () => new il.TimePartitionConfig({ column: "day", start: "2026-01-01" });

function dailyDag(arrive: () => Promise<void>) {
  const raw = il.asset({
    key: "raw",
    partitioning: daily(),
    run: async (ctx) => {
      await arrive();
      return [{ day: ctx.partition!.key, n: 1 }];
    },
  });
  const total = il.asset({ key: "total", partitioning: daily(), requires: { raw: "raw" }, run: (_ctx, { raw }) => raw as object[] });
  return new il.DAG(il.source({ key: "s", assets: [raw, total] })({ destinations: new il.MemoryDestination() }));
}

const idsOf = (events: readonly il.InterloperEvent[]) => new Set(events.map((e) => e.backfillId ?? e.runId));

describe("run-scoped events", () => {
  it("two concurrent runs in one process each hear only their own events; subscribe hears both", async () => {
    const arrive = gate(2);
    const dag = dailyDag(arrive);
    const everything: il.InterloperEvent[] = [];
    const unsubscribe = il.subscribe((event) => everything.push(event));
    const first = new il.RunEvents();
    const second = new il.RunEvents();
    const heardFirst: il.InterloperEvent[] = [];
    const heardSecond: il.InterloperEvent[] = [];
    const handed: il.InterloperEvent[] = [];
    first.subscribe((event) => heardFirst.push(event));
    second.subscribe((event) => heardSecond.push(event));
    try {
      const [run, backfill] = await Promise.all([
        dag.materialize(day("2026-01-02"), { events: first, runId: "run-one", onEvent: (event) => handed.push(event) }),
        il.backfill(dag, days("2026-01-03", "2026-01-04"), { events: second, backfillId: "backfill-two", concurrency: 1 }),
      ]);
      expect(run.status).toBe("completed");
      expect(backfill.status).toBe("completed");
    } finally {
      unsubscribe();
    }
    expect(idsOf(heardFirst)).toEqual(new Set(["run-one"]));
    expect(heardFirst.map((e) => e.type)).toContain("run:completed");
    expect(heardFirst).toEqual(handed);
    expect(idsOf(heardSecond)).toEqual(new Set(["backfill-two"]));
    expect(heardSecond.at(-1)!.type).toBe("backfill:completed");
    expect(heardSecond.filter((e) => e.type === "asset:completed").map((e) => e.partition)).toEqual([
      "2026-01-04",
      "2026-01-04",
      "2026-01-03",
      "2026-01-03",
    ]);
    // Every event of both runs, each once, reached the process-wide subscriber.
    const ours = everything.filter((e) => ["run-one", "backfill-two"].includes(e.backfillId ?? e.runId));
    expect(ours).toHaveLength(heardFirst.length + heardSecond.length);
  });

  it("a listener that stops listening hears nothing more of the run", async () => {
    const dag = dailyDag(async () => undefined);
    const events = new il.RunEvents();
    const heard: string[] = [];
    const stop = events.subscribe((event) => {
      heard.push(event.type);
      if (event.type === "asset:started") stop();
    });
    await dag.materialize(day("2026-01-02"), { events });
    expect(heard).toEqual(["run:started", "asset:queued", "asset:queued", "asset:started"]);
  });
});
