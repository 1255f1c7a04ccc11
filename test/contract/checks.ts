// The checks part of the destination contract (issue 35): a failed "error" check leaves every
// destination as it was. The partition stored before keeps its rows, its row count and its
// record; a streamed write is discarded before anything becomes visible (a file store's
// temporary file removed, a SQL transaction rolled back, an object store's upload never
// completed): the storage's own listing (files, objects) is the same before and after.
import { describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import type { Row } from "../../src/representation/index.js";
import type { Harness } from "./destination.js";

type Day = { day: string; id: number; amount: number | null };

const good = (day: string): Day[] => [
  { day, id: 1, amount: 10 },
  { day, id: 2, amount: 20 },
];
const bad = (day: string): Day[] => [
  { day, id: 1, amount: 10 },
  { day, id: 1, amount: null },
];

async function* streamed(rows: readonly Day[]): AsyncGenerator<Day[]> {
  for (const row of rows) yield [row];
}

/** An `orders` asset over `destination` whose run returns what `data.current` says, as rows or a stream. */
function ordersAsset(
  destination: il.Destination,
  data: { current: (keys: string[]) => Day[] },
  stream: boolean,
  severity: il.CheckSeverity,
) {
  const definition = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "day", start: "2026-01-01", allowWindow: true }),
    checks: [il.checks.unique("id", { severity }), il.checks.notNull("amount", { severity })],
    run: (ctx) => {
      const rows = data.current(ctx.window!.keys);
      return stream ? streamed(rows) : rows;
    },
  });
  return il.source({ key: "shop", dataset: "shop", assets: [definition] })({ destinations: destination }).assets["orders"]!;
}

/** Everything a reader could see of the asset: its rows per partition, its row counts, its records. */
async function visible(asset: il.Asset, keys: readonly string[]) {
  const rows: Record<string, Row[]> = {};
  for (const key of keys) rows[key] = il.TableData.from(await asset.read(new il.TimePartition(key)))!.rows;
  const history = await asset.history();
  return { rows, counts: await asset.partitionRowCounts(), records: history.map((r) => [r.partition, r.id]) };
}

/** States the checks contract for one destination (called by destinationContract). */
export function checksContract(harness: () => Harness): void {
  describe("checks before the commit", () => {
    const snapshot = async () => (harness().snapshot ? await harness().snapshot!() : null);

    it.each([
      ["rows", false],
      ["a stream", true],
    ])("a failed error check on %s leaves the stored window as it was, everywhere", async (_label, stream) => {
      const data = { current: (keys: string[]) => keys.flatMap(good) };
      const asset = ordersAsset(harness().destination, data, stream, "error");
      const window = new il.TimePartitionWindow("2026-01-01", "2026-01-02", il.TimeGranularity.DAY);
      await asset.materialize(window);
      const before = await visible(asset, window.keys);
      const stored = await snapshot();

      // The first day would be fine; the second fails: neither is written.
      data.current = (keys) => [...good(keys[0]!).map((r) => ({ ...r, amount: 99 })), ...bad(keys[1]!)];
      const error = await asset.materialize(window).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(il.CheckError);
      expect((error as Error).message.split("\n")[0]).toBe(
        'asset "shop.orders" failed its checks, so nothing was written: 2026-01-02: unique(id) failed on 1 row (1); notNull(amount) failed on 1 row (row 1 (amount: null))',
      );
      expect(await visible(asset, window.keys)).toEqual(before);
      expect(await snapshot()).toEqual(stored);
    });

    it("a failed error check on a stream of one partition discards it: nothing appears where nothing was", async () => {
      const data = { current: (keys: string[]) => keys.flatMap(bad) };
      const asset = ordersAsset(harness().destination, data, true, "error");
      const stored = await snapshot();
      await expect(asset.materialize(new il.TimePartition("2026-01-05"))).rejects.toBeInstanceOf(il.CheckError);
      expect(await asset.partitionRowCounts()).toEqual({});
      expect(await asset.history()).toEqual([]);
      expect(await snapshot()).toEqual(stored);
    });

    it("a failed warn check writes the partition, and a record keeps the verdicts", async () => {
      const data = { current: (keys: string[]) => keys.flatMap(bad) };
      const asset = ordersAsset(harness().destination, data, true, "warn");
      await asset.materialize(new il.TimePartition("2026-01-05"), { emit: () => {} });
      expect(await asset.partitionRowCounts()).toEqual({ "2026-01-05": 2 });
      const records = await asset.history("2026-01-05");
      // A destination that keeps no records has none to show.
      for (const record of records) {
        expect(record.checks).toEqual([
          { name: "unique(id)", severity: "warn", passed: false, failures: 1, message: "1 row of 2 repeats the id of an earlier row" },
          { name: "notNull(amount)", severity: "warn", passed: false, failures: 1, message: "1 row of 2 with a null in amount" },
        ]);
      }
    });
  });
}
