// The records of a few partitions come from those partitions alone (issue 41, item 10): a run
// looks up the records of the upstream partitions it reads just before reading them (see
// src/asset/provenance-draft.ts), and on the local file stores that lookup listed every partition
// folder of the upstream's table, which made each upstream read of a run cost many plain reads
// (bench UR1). The listing's work is made visible by a partition folder no listing can walk (a
// symbolic link to itself): a lookup of other partitions never comes near it, as a read does not.
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { makeTempDir } from "../contract/temp-dir.js";

let dir: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  dir = await makeTempDir("interloper-window-records-");
});
afterEach(async () => {
  await dir.remove();
});

const regional = () =>
  new il.MultiPartitionConfig({
    date: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    region: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }),
  });
const daily = () => new il.TimePartitionConfig({ column: "date", start: "2026-01-01" });

/**
 * Writes `s` over three days in `destination`, then (after `before`) gives the records of its
 * window `first..last` and the ids of the newest writes of that window's stored partitions.
 */
async function recordsOf(
  destination: il.Destination,
  partitioning: il.PartitionConfig,
  first: string,
  last: string,
  before?: () => Promise<void>,
) {
  const s = il.asset({ key: "s", partitioning, run: (ctx) => [{ key: ctx.partition!.key }] });
  const session = await il.openProject(
    il.defineConfig({ sources: [il.source({ key: "shop", assets: [s] })({ destinations: destination })] }),
  );
  expect((await session.materialize({ selection: "s", window: "2026-01-01..2026-01-03" })).status).toBe("completed");
  await before?.();
  const asset = session.project.dag.find("s")!;
  const scope = asset.partitioning!.window(first, last);
  const records = await asset.primaryDestination!.materializations!(asset.ioContext(scope));
  const newest = (await Promise.all(scope.keys.map(async (key) => [key, (await asset.history(key))[0]?.id] as const))).filter(
    ([, id]) => id,
  );
  await session.close();
  return { found: Object.entries(records).map(([key, record]) => [key, record.id]), newest };
}

describe("the records of a window of a few partitions", () => {
  for (const [name, make] of [
    ["CSVDestination", (path: string) => new il.CSVDestination({ basePath: path })],
    ["FileDestination", (path: string) => new il.FileDestination({ basePath: path })],
  ] as const) {
    it(`${name}, a day x region: come from their own files; another day's folder is never walked`, async () => {
      const table = join(dir.path, "shop", "s");
      const loop = () => symlink(join(table, "date=2026-01-09"), join(table, "date=2026-01-09"));
      const { found, newest } = await recordsOf(make(dir.path), regional(), "2026-01-02", "2026-01-02", loop);
      expect(found).toEqual(newest);
      expect(found.map(([key]) => key)).toEqual(["2026-01-02|eu", "2026-01-02|us"]);
    });

    it(`${name}, a day: the window's records, a partition not stored left out`, async () => {
      const { found, newest } = await recordsOf(make(dir.path), daily(), "2026-01-02", "2026-01-04");
      expect(found).toEqual(newest);
      expect(found.map(([key]) => key)).toEqual(["2026-01-02", "2026-01-03"]);
    });
  }
});
