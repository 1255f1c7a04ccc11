// Issue 31.15 and 31.20: writers of one asset and a full refresh of it take turns through the
// asset's lock (src/destination/asset-lock.ts). A drop racing a backfill used to fail with
// `ENOTEMPTY: directory not empty, rmdir` (a partition folder made under it), leaving CSV half
// dropped and SQLite not at all; two writers of one partition could leave one's rows in CSV and
// the other's in SQLite. Real destinations (CSV, SQLite) in one process: the lock's files are
// the same whichever process takes them.
import { writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { findAsset, projectOf } from "../../src/api/project.js";
import { dropPlannedAssets } from "../../src/api/full-refresh.js";
import { AssetLock } from "../../src/destination/asset-lock.js";
import { THIS_HOST } from "../../src/destination/store/local/atomic.js";
import { makeTempDir } from "../contract/temp-dir.js";

const ROUNDS = process.env["INTERLOPER_RELIABILITY_LONG"] ? 40 : 4;
// A round takes up to a few seconds on a loaded machine: the long variant (40 rounds) gets the
// time it needs instead of the suite's 20 s, so it never times out and runs on in the background.
const RACE_TIMEOUT = 10_000 + ROUNDS * 5_000;

let base: string;
let remove: () => Promise<void>;
beforeEach(async () => ({ path: base, remove } = await makeTempDir("interloper-lock-")));
afterEach(async () => remove());

/** A project with one asset stored in CSV and SQLite; each run stores `tag()` in every row. */
function project(tag: () => string, dir: string) {
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
    run: async (c) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return [1, 2, 3].map((id) => ({ date: c.partition!.key, id, tag: tag() }));
    },
  });
  const destinations = {
    csv: new il.CSVDestination({ basePath: join(dir, "csv") }),
    warehouse: new il.SQLiteDestination({ path: join(dir, "warehouse.db") }),
  };
  return projectOf(il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders] })({ destinations })] }));
}

/** Every partition's rows in each destination, as text: what each holds, to compare. */
async function held(p: il.Project): Promise<{ csv: Record<string, string>; warehouse: Record<string, string> }> {
  const asset = findAsset(p, "shop.orders");
  const out = { csv: {} as Record<string, string>, warehouse: {} as Record<string, string> };
  for (const [i, name] of (["csv", "warehouse"] as const).entries()) {
    const destination = asset.destinations[i]!;
    for (const key of Object.keys(await destination.partitionRowCounts(asset.ioContext(null)))) {
      const partition = il.TimePartition.fromKey(key);
      const rows = (await destination.readPartition(asset.ioContext(partition), partition)) as Array<Record<string, unknown>>;
      out[name][key] = rows.map((r) => `${String(r["id"])}:${String(r["tag"])}`).join(",");
    }
  }
  return out;
}

async function closeAll(p: il.Project): Promise<void> {
  for (const destination of findAsset(p, "shop.orders").destinations) await destination.close();
}

describe("the asset lock", () => {
  it(
    "issue 31.15: a drop racing a backfill of the same asset never fails half way; CSV and SQLite end up holding the same",
    async () => {
      // A test's own folder, held here: `base` is reassigned by the next test's beforeEach.
      const root = base;
      for (let round = 0; round < ROUNDS; round++) {
        const dir = join(root, `round${round}`);
        const p = project(() => "backfill", dir);
        const backfill = il.materialize(p, { window: "2026-01-01..2026-01-30", concurrency: 2 });
        // Once some partitions are stored, the drop runs while the backfill goes on writing.
        while ((await readdir(join(dir, "csv", "shop", "orders")).catch(() => [])).length < 4) await new Promise((r) => setTimeout(r, 1));
        await dropPlannedAssets(il.planMaterialize(p, { window: "2026-01-01..2026-01-30" }));
        expect((await backfill).status).toBe("completed");
        const { csv, warehouse } = await held(p);
        expect(csv).toEqual(warehouse);
        // The drop took partitions away: the backfill's later ones alone are left.
        expect(Object.keys(csv).length).toBeLessThan(30);
        await closeAll(p);
      }
    },
    RACE_TIMEOUT,
  );

  it(
    "issue 31.20: two writers of the same partitions leave one writer's rows in both destinations, never one's here and the other's there",
    async () => {
      const root = base;
      for (let round = 0; round < ROUNDS; round++) {
        const dir = join(root, `round${round}`);
        const [a, b] = [project(() => `a${round}`, dir), project(() => `b${round}`, dir)];
        const runs = await Promise.all([a, b].map((p) => il.materialize(p, { window: "2026-01-01..2026-01-06", concurrency: 3 })));
        expect(runs.map((r) => r.status)).toEqual(["completed", "completed"]);
        const { csv, warehouse } = await held(a);
        expect(Object.keys(csv)).toHaveLength(6);
        expect(csv).toEqual(warehouse);
        await Promise.all([a, b].map(closeAll));
      }
    },
    RACE_TIMEOUT,
  );

  it("a drop waits for the writes under way, and says who writes when they outlast its wait", async () => {
    const lock = AssetLock.of("shop.orders", [base], false);
    let release!: () => void;
    const writing = lock.writing(["2026-01-01"], () => new Promise<void>((resolve) => (release = resolve)));
    await expect(lock.dropping(async () => "dropped", 30)).rejects.toThrow(
      `asset "shop.orders" is being written by another writer (pid ${process.pid} on ${THIS_HOST}): nothing dropped; run the full refresh again once that write is done`,
    );
    const dropped = lock.dropping(async () => "dropped");
    setTimeout(() => release(), 20);
    expect(await dropped).toBe("dropped");
    await writing;
    // A writer waits for a drop under way, then writes.
    const order: string[] = [];
    await Promise.all([
      lock.dropping(async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push("drop");
      }),
      new Promise((resolve) => setTimeout(resolve, 5)).then(() => lock.writing([], async () => void order.push("write"))),
    ]);
    expect(order).toEqual(["drop", "write"]);
  });

  it("takes over the locks of a holder that is gone", async () => {
    const lock = AssetLock.of("shop.orders", [base], false);
    await lock.writing([], async () => undefined);
    // A writer and a dropper killed while holding their locks (no process has pid 2^22 + 1 here).
    writeFileSync(join(lock.folder, `w-${THIS_HOST}-4194305-00000000`), `${THIS_HOST} 4194305`);
    writeFileSync(join(lock.folder, "drop"), `${THIS_HOST} 4194305`);
    expect(await lock.dropping(async () => "dropped", 0)).toBe("dropped");
    expect(await lock.writing(["k"], async () => "written")).toBe("written");
  });
});
