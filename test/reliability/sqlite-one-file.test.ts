// Several SQLiteDestination instances over one file in one process (a config that makes one per
// source, a second destination object in a test) write at once. Found by model.test.ts: the
// second writer's BEGIN IMMEDIATE waited in SQLite's busy handler, which sleeps synchronously, so
// the first writer's transaction, paused at an await, could never commit; after five seconds of
// a frozen event loop the second failed with "database is locked".
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { days, eventRows, eventsContext, normalRows, useTempDirs } from "./helpers.js";

const tempDir = useTempDirs();
const opened: SQLiteDestination[] = [];
afterAll(async () => {
  for (const destination of opened) await destination.close();
});

function open(path: string): SQLiteDestination {
  const destination = new SQLiteDestination({ path });
  opened.push(destination);
  return destination;
}

describe("SQLite: several instances over one file in one process", () => {
  it("two instances writing the same partition at once both succeed, leaving one writer's rows", async () => {
    const path = join(await tempDir(), "one.sqlite");
    const [a, b] = [open(path), open(path)];
    const day = days("2024-03-05", "2024-03-05");
    // The second write runs while the first's transaction awaits its statements.
    await Promise.all([
      a.write(eventsContext(day), eventRows("2024-03-05", "w1")),
      b.write(eventsContext(day), eventRows("2024-03-05", "w2")),
    ]);
    const stored = normalRows(await a.read(eventsContext(day)));
    expect([JSON.stringify(eventRows("2024-03-05", "w1")), JSON.stringify(eventRows("2024-03-05", "w2"))]).toContain(
      JSON.stringify(stored),
    );
    expect(await b.partitionRowCounts(eventsContext())).toEqual({ "2024-03-05": stored.length });
  });

  it("three instances writing different partitions and datasets at once all succeed", async () => {
    const path = join(await tempDir(), "many.sqlite");
    const instances = [open(path), open(path), open(path)];
    const window = days("2024-03-01", "2024-03-06");
    await Promise.all(
      window.partitions.map((p, i) => instances[i % 3]!.write(eventsContext(p, i % 2 === 0 ? "rel" : "other"), eventRows(p.key, "w"))),
    );
    for (const [i, p] of window.partitions.entries()) {
      const reader = instances[(i + 1) % 3]!;
      expect(normalRows(await reader.read(eventsContext(p, i % 2 === 0 ? "rel" : "other")))).toEqual(eventRows(p.key, "w"));
    }
  });
});
