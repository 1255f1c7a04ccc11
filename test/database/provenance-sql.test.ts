// Issue 34: the SQL destinations keep each partition's materialization record in the partition
// table, beside the row count, written in the write's transaction, and every write's record in a
// history table beside it. On SQLite (a file), PostgreSQL and MariaDB; the servers skip with a
// printed reason when absent (`bash .ci/services` starts them).
import { afterEach, describe, expect, it } from "vitest";
import type { AssetRef } from "../../src/destination/index.js";
import { DatabaseDestination } from "../../src/destination/database/index.js";
import type { SqlDestination } from "../../src/destination/database/sql-destination.js";
import { PARTITION_TABLE } from "../../src/destination/database/partition-table.js";
import { HISTORY_TABLE } from "../../src/destination/database/provenance-statements.js";
import { createTableStatement } from "../../src/destination/database/sql-statements.js";
import { HISTORY_KEPT } from "../../src/destination/destination.js";
import type { Materialization } from "../../src/destination/provenance/materialization.js";
import { ConfigError } from "../../src/errors.js";
import type { PartitionFilter } from "../../src/partitioning/index.js";
import { cleanUp, contextOf, daily, days, ENGINES, type Place, places, rowsOf, sql } from "./provenance-places.js";
import { mysqlAvailable } from "./servers.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
afterEach(cleanUp);

/** The destination, its records stored through `around` (given the stored hook and the records). */
function overriding(
  destination: SqlDestination,
  around: (record: () => Promise<void>, records: readonly Materialization[]) => Promise<void>,
): SqlDestination {
  const stored = Object.getPrototypeOf(destination) as SqlDestination;
  destination.recordMaterializations = (table, dataset, records) =>
    around(() => stored.recordMaterializations.call(destination, table, dataset, records), records);
  return destination;
}

describe.each(ENGINES)("$name: materialization records", (engine) => {
  let up: boolean | undefined;
  const setUp = async (): Promise<{ place: Place; destination: SqlDestination; asset: AssetRef } | null> => {
    up ??= await engine.available();
    if (!up) return null;
    const place = await engine.place();
    places.push(place);
    return {
      place,
      destination: place.destination(),
      asset: { key: "shop.orders", table: "orders", dataset: place.dataset, partitioning: daily },
    };
  };
  const qualified = (destination: SqlDestination, table: string, dataset: string) => sql(destination).dialect.table(table, dataset);

  it("stores each partition's record with its data, in the write's transaction", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    await destination.write(contextOf(asset, days("2026-01-01", "2026-01-02")), [
      ...rowsOf("2026-01-01", "a", 3),
      ...rowsOf("2026-01-02", "a", 2),
    ]);
    const records = await destination.materializations(contextOf(asset, null));
    expect(Object.keys(records).sort()).toEqual(["2026-01-01", "2026-01-02"]);
    const first = records["2026-01-01"]!;
    expect(first.id).toMatch(UUID);
    expect(first).toMatchObject({
      asset: "shop.orders",
      partition: "2026-01-01",
      runId: "run-1",
      backfillId: "backfill-1",
      startedAt: "2026-03-01T10:00:00.000Z",
      rows: 3,
      codeVersion: "7",
      interloperVersion: "9.9.9",
      upstream: [{ asset: "shop.raw", partition: "2026-01-01", materialization: "raw-2026-01-01" }],
    });
    expect(records["2026-01-02"]!.rows).toBe(2);
    expect(first.id).not.toBe(records["2026-01-02"]!.id);
    expect(Date.parse(first.endedAt)).toBeGreaterThanOrEqual(Date.parse(first.startedAt));
    expect(await destination.partitionRowCounts(contextOf(asset, null))).toEqual({ "2026-01-01": 3, "2026-01-02": 2 });
  });

  it("gives a rewrite a new current record, and the history newest first, by partition and limited", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    for (const run of ["r1", "r2", "r3"]) await destination.write(contextOf(asset, days("2026-01-01"), run), rowsOf("2026-01-01", run, 1));
    await destination.write(contextOf(asset, days("2026-01-02"), "r4"), rowsOf("2026-01-02", "r4", 1));
    const current = await destination.materializations(contextOf(asset, days("2026-01-01")));
    expect(current["2026-01-01"]!.runId).toBe("r3");
    const day = await destination.materializationHistory(contextOf(asset, null), {
      partition: days("2026-01-01").partitions[0]!,
      limit: 2,
    });
    expect(day.map((r) => r.runId)).toEqual(["r3", "r2"]);
    expect(day[0]!.id).toBe(current["2026-01-01"]!.id);
    const all = await destination.materializationHistory(contextOf(asset, null), { limit: 10 });
    expect(all.map((r) => r.runId)).toEqual(["r4", "r3", "r2", "r1"]);
    expect(await destination.materializationHistory(contextOf(asset, null), { limit: 0 })).toEqual([]);
  });

  it(`keeps the last ${HISTORY_KEPT} records of each partition, pruned in the write's transaction`, async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    for (let i = 1; i <= HISTORY_KEPT + 2; i++)
      await destination.write(contextOf(asset, days("2026-01-01"), `r${i}`), rowsOf("2026-01-01", "x", 1));
    await destination.write(contextOf(asset, days("2026-01-02"), "other"), rowsOf("2026-01-02", "x", 1));
    const day = await destination.materializationHistory(contextOf(asset, null), {
      partition: days("2026-01-01").partitions[0]!,
      limit: 100,
    });
    expect(day.map((r) => r.runId)).toEqual(Array.from({ length: HISTORY_KEPT }, (_, i) => `r${HISTORY_KEPT + 2 - i}`));
    expect(await destination.materializationHistory(contextOf(asset, null), { limit: 100 })).toHaveLength(HISTORY_KEPT + 1);
  });

  it("filters by the context's window in one query, a long window included", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    await destination.write(
      contextOf(asset, days("2026-01-01", "2026-01-03")),
      ["2026-01-01", "2026-01-02", "2026-01-03"].flatMap((d) => rowsOf(d, "a", 1)),
    );
    expect(Object.keys(await destination.materializations(contextOf(asset, days("2026-01-02", "2026-01-05"))))).toEqual([
      "2026-01-02",
      "2026-01-03",
    ]);
    expect(Object.keys(await destination.materializations(contextOf(asset, days("2025-01-01", "2025-12-31"))))).toEqual([]);
    // Past 1,000 partitions the table's records are read and filtered: still one query.
    const long = await destination.materializations(contextOf(asset, days("2023-01-01", "2026-01-02")));
    expect(Object.keys(long).sort()).toEqual(["2026-01-01", "2026-01-02"]);
    // One statement per asset and window, however many partitions it holds.
    const driver = (destination as unknown as { driver: { run: (...args: unknown[]) => Promise<unknown> } }).driver;
    const run = driver.run.bind(driver);
    let statements = 0;
    driver.run = (...args: unknown[]) => (statements++, run(...args));
    for (const window of [null, days("2026-01-01", "2026-01-03"), days("2020-01-01", "2026-01-03")]) {
      statements = 0;
      await destination.materializations(contextOf(asset, window));
      expect(statements, `statements for the window ${String(window)}`).toBe(1);
    }
    driver.run = run;
    // Another asset of the dataset, whose table name the first's is a prefix of, is not mixed in.
    const other = { ...asset, key: "shop.orders_daily", table: "orders_daily" };
    await destination.write(contextOf(other, days("2026-01-09")), rowsOf("2026-01-09", "b", 1));
    expect(Object.keys(await destination.materializations(contextOf(asset, null))).sort()).toEqual([
      "2026-01-01",
      "2026-01-02",
      "2026-01-03",
    ]);
    expect(Object.keys(await destination.materializations(contextOf(other, null)))).toEqual(["2026-01-09"]);
  });

  it('keeps an unpartitioned asset\'s record under ""', async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    const whole = { ...asset, key: "shop.totals", table: "totals", partitioning: null };
    await destination.write(contextOf(whole, null, "u1"), [{ writer: "u1", n: 1 }]);
    await destination.write(contextOf(whole, null, "u2"), [
      { writer: "u2", n: 1 },
      { writer: "u2", n: 2 },
    ]);
    const records = await destination.materializations(contextOf(whole, null));
    expect(Object.keys(records)).toEqual([""]);
    expect(records[""]).toMatchObject({ partition: null, runId: "u2", rows: 2, upstream: [{ asset: "shop.raw", partition: null }] });
    const history = await destination.materializationHistory(contextOf(whole, null), { partition: null, limit: 5 });
    expect(history.map((r) => r.runId)).toEqual(["u2", "u1"]);
    await destination.dropAsset(contextOf(whole, null));
    expect(await destination.materializations(contextOf(whole, null))).toEqual({});
    expect(await destination.materializationHistory(contextOf(whole, null), { limit: 5 })).toEqual([]);
  });

  it("drops an asset's records and history with it, and nothing of another asset", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    const other = { ...asset, key: "shop.orders_daily", table: "orders_daily" };
    await destination.write(contextOf(asset, days("2026-01-01")), rowsOf("2026-01-01", "a", 1));
    await destination.write(contextOf(asset, days("2026-01-01")), rowsOf("2026-01-01", "a", 2));
    await destination.write(contextOf(other, days("2026-01-01")), rowsOf("2026-01-01", "b", 1));
    await destination.dropAsset(contextOf(asset, null));
    expect(await destination.materializations(contextOf(asset, null))).toEqual({});
    expect(await destination.materializationHistory(contextOf(asset, null), { limit: 10 })).toEqual([]);
    expect(Object.keys(await destination.materializations(contextOf(other, null)))).toEqual(["2026-01-01"]);
    expect(await destination.materializationHistory(contextOf(other, null), { limit: 10 })).toHaveLength(1);
  });

  it("leaves the old data and the old record when a row is refused mid-partition", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    await destination.write(contextOf(asset, days("2026-01-01"), "good"), rowsOf("2026-01-01", "good", 2));
    const before = await destination.materializations(contextOf(asset, null));
    // An integer past 64 bits: no engine stores it, refused once the partition's rows were deleted.
    const bad = [
      { date: "2026-01-01", writer: "bad", n: 1 },
      { date: "2026-01-01", writer: "bad", n: 2n ** 70n },
    ];
    await expect(destination.write(contextOf(asset, days("2026-01-01"), "bad"), bad)).rejects.toThrow();
    expect(await destination.materializations(contextOf(asset, null))).toEqual(before);
    expect(await destination.read(contextOf(asset, days("2026-01-01")))).toEqual(
      rowsOf("2026-01-01", "good", 2).map((r) => ({ ...r, date: expect.anything() })),
    );
    expect(await destination.materializationHistory(contextOf(asset, null), { limit: 10 })).toHaveLength(1);
  });

  it("leaves the old data and the old record when the write fails after storing its record", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    await destination.write(contextOf(asset, days("2026-01-01"), "good"), rowsOf("2026-01-01", "good", 2));
    const before = await destination.materializations(contextOf(asset, null));
    const failing = overriding(destination, async (record) => {
      await record();
      throw new Error("the connection went away after the record");
    });
    await expect(failing.write(contextOf(asset, days("2026-01-01"), "lost"), rowsOf("2026-01-01", "lost", 5))).rejects.toThrow(/went away/);
    expect(await destination.materializations(contextOf(asset, null))).toEqual(before);
    expect(await destination.partitionRowCounts(contextOf(asset, null))).toEqual({ "2026-01-01": 2 });
    expect(await destination.materializationHistory(contextOf(asset, null), { limit: 10 })).toHaveLength(1);
  });

  it("ends two writers of one partition at once with the record of the data that committed", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { place, destination, asset } = s;
    const second = place.destination();
    await destination.write(contextOf(asset, days("2026-01-01"), "seed"), rowsOf("2026-01-01", "seed", 1));
    for (let round = 0; round < 4; round++) {
      const a = `a${round}`;
      const b = `b${round}`;
      await Promise.all([
        destination.write(contextOf(asset, days("2026-01-01"), a), rowsOf("2026-01-01", a, 3)),
        second.write(contextOf(asset, days("2026-01-01"), b), rowsOf("2026-01-01", b, 5)),
      ]);
      const record = (await destination.materializations(contextOf(asset, null)))["2026-01-01"]!;
      const stored = (await destination.read(contextOf(asset, days("2026-01-01"), "reader", [], null))) as { writer: string }[];
      expect(new Set(stored.map((row) => row.writer))).toEqual(new Set([record.runId]));
      expect(stored).toHaveLength(record.rows!);
      const history = await destination.materializationHistory(contextOf(asset, null), { limit: 2 });
      expect(history[0]!.id).toBe(record.id);
      expect(history.map((r) => r.runId).sort()).toEqual([a, b]);
    }
  });

  it("upgrades a partition table an older version made, whose partitions read as provenance unknown", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset, place } = s;
    const d = sql(destination);
    // The partition table as main's code creates it: the insertion-order column and the entry.
    // MySQL's exact text type names the server's collation: learnt first, as a write would.
    await (destination as unknown as { driver: { prepareSchema?(): Promise<void> } }).driver.prepareSchema?.();
    for (const statement of place.createDataset()) await d.run(statement);
    const partitions = qualified(destination, PARTITION_TABLE, place.dataset);
    await d.run(
      createTableStatement(d.dialect, partitions, [`${d.dialect.quote("entry")} ${d.dialect.columnType("string", false, true)}`]),
    );
    for (const day of ["2026-01-01", "2026-01-02"]) {
      await d.insert("orders", place.dataset, rowsOf(day, "old", 2), contextOf(asset, days(day)));
      await d.run(`INSERT INTO ${partitions} (${d.dialect.quote("entry")}) VALUES (${d.dialect.param(1)})`, [
        JSON.stringify(["orders", day]),
      ]);
    }
    const warnings: string[] = [];
    expect(await destination.materializations(contextOf(asset, null, "x", warnings))).toEqual({});
    expect(await destination.materializationHistory(contextOf(asset, null, "x", warnings), { limit: 10 })).toEqual([]);
    expect(await destination.partitionRowCounts(contextOf(asset, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 2 });
    // A newer write adds the column (ADD COLUMN) and the history; the older row stays unknown.
    await destination.write(contextOf(asset, days("2026-01-02"), "new"), rowsOf("2026-01-02", "new", 1));
    const records = await destination.materializations(contextOf(asset, null, "x", warnings));
    expect(Object.keys(records)).toEqual(["2026-01-02"]);
    expect(await destination.partitionRowCounts(contextOf(asset, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 1 });
    expect(await destination.read(contextOf(asset, days("2026-01-01"), "x", [], null))).toHaveLength(2);
    // A second instance adding the column too finds it there: the upgrade is idempotent.
    await place.destination().write(contextOf(asset, days("2026-01-03"), "again"), rowsOf("2026-01-03", "again", 1));
    expect(Object.keys(await destination.materializations(contextOf(asset, null))).sort()).toEqual(["2026-01-02", "2026-01-03"]);
    expect(warnings).toEqual([]);
  });

  it("leaves out damaged records with one warning naming the table, dropping nothing", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset, place } = s;
    const d = sql(destination);
    await destination.write(
      contextOf(asset, days("2026-01-01", "2026-01-03")),
      ["2026-01-01", "2026-01-02", "2026-01-03"].flatMap((day) => rowsOf(day, "a", 2)),
    );
    const q = (name: string) => d.dialect.quote(name);
    // Hand edits: a record of the wrong shape, and one naming another partition than its entry's.
    for (const table of [PARTITION_TABLE, HISTORY_TABLE]) {
      const where = `${q("entry")} = ${d.dialect.param(2)}`;
      const update = `UPDATE ${qualified(destination, table, place.dataset)} SET ${q("record")} = ${d.dialect.param(1)} WHERE ${where}`;
      await d.run(update, ['{"id": 1, "rows": "many"}', JSON.stringify(["orders", "2026-01-01"])]);
      const moved = (await destination.materializations(contextOf(asset, null)))["2026-01-03"] ?? { partition: "2026-01-03" };
      await d.run(update, [JSON.stringify({ ...moved, partition: "2026-01-09" }), JSON.stringify(["orders", "2026-01-02"])]);
    }
    const warnings: string[] = [];
    const records = await destination.materializations(contextOf(asset, null, "x", warnings));
    expect(Object.keys(records)).toEqual(["2026-01-03"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${place.dataset}.${PARTITION_TABLE}`);
    expect(warnings[0]).toContain("2 materialization records");
    const history = await destination.materializationHistory(contextOf(asset, null, "x", warnings), { limit: 10 });
    expect(history.map((r) => r.partition)).toEqual(["2026-01-03"]);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain(`${place.dataset}.${HISTORY_TABLE}`);
    expect(await destination.partitionRowCounts(contextOf(asset, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 2, "2026-01-03": 2 });
    expect(await destination.read(contextOf(asset, days("2026-01-01", "2026-01-03"), "x", [], null))).toHaveLength(6);
  });

  it("issue 41.24: leaves out a well-formed record naming another asset, in the partition table and the history, with one warning each", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset, place } = s;
    const d = sql(destination);
    await destination.write(
      contextOf(asset, days("2026-01-01", "2026-01-02")),
      ["2026-01-01", "2026-01-02"].flatMap((day) => rowsOf(day, "a", 2)),
    );
    const q = (name: string) => d.dialect.quote(name);
    const mine = await destination.materializations(contextOf(asset, null));
    const foreign = JSON.stringify({ ...mine["2026-01-01"]!, asset: "sales.orders" });
    for (const table of [PARTITION_TABLE, HISTORY_TABLE]) {
      const update = `UPDATE ${qualified(destination, table, place.dataset)} SET ${q("record")} = ${d.dialect.param(1)} WHERE ${q("entry")} = ${d.dialect.param(2)}`;
      await d.run(update, [foreign, JSON.stringify(["orders", "2026-01-01"])]);
    }
    const warnings: string[] = [];
    expect(Object.keys(await destination.materializations(contextOf(asset, null, "x", warnings)))).toEqual(["2026-01-02"]);
    expect(warnings).toEqual([
      `${destination.displayName}: 1 materialization record in table ${place.dataset}.${PARTITION_TABLE} (${destination.location}) among those of asset "shop.orders" names another asset or partition (asset "sales.orders" partition 2026-01-01); left out, read as provenance unknown`,
    ]);
    const history = await destination.materializationHistory(contextOf(asset, null, "x", warnings), { limit: 10 });
    expect(history.map((r) => r.partition)).toEqual(["2026-01-02"]);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain(`${place.dataset}.${HISTORY_TABLE}`);
  });

  it("issue 41.23: a writer whose clock is a day ahead never puts the current write behind its own, nor prunes it", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    // The writer's clock, as a fault injected: its records end `skew` ms from now.
    let skew = 0;
    const stored = Object.getPrototypeOf(destination) as SqlDestination;
    destination.recordMaterializations = (table, dataset, records) =>
      stored.recordMaterializations.call(
        destination,
        table,
        dataset,
        records.map((record) => ({ ...record, endedAt: new Date(Date.parse(record.endedAt) + skew).toISOString() })),
      );
    const write = (runId: string) =>
      destination.write(contextOf(asset, days("2026-01-01", "2026-01-01"), runId), rowsOf("2026-01-01", "a", 1));
    skew = 24 * 60 * 60 * 1000;
    for (let i = 1; i <= HISTORY_KEPT; i++) await write(`ahead-${i}`);
    skew = 0;
    await write("on-time");
    const current = (await destination.materializations(contextOf(asset, null)))["2026-01-01"]!;
    expect(current.runId).toBe("on-time");
    const history = await destination.materializationHistory(contextOf(asset, null), { limit: 100 });
    expect(history.map((r) => r.runId)).toEqual([
      "on-time",
      ...Array.from({ length: HISTORY_KEPT - 1 }, (_, i) => `ahead-${HISTORY_KEPT - i}`),
    ]);
    // A host a day behind, then: its write is the newest too.
    skew = -24 * 60 * 60 * 1000;
    await write("behind");
    expect((await destination.materializationHistory(contextOf(asset, null), { limit: 2 })).map((r) => r.runId)).toEqual([
      "behind",
      "on-time",
    ]);
  });

  it("refuses a history limit that is not a whole number of 0 or more", async (t) => {
    const s = await setUp();
    if (!s) return t.skip(`${engine.name} is not available`);
    const { destination, asset } = s;
    for (const limit of [-1, 1.5, Number.NaN]) {
      await expect(destination.materializationHistory(contextOf(asset, null), { limit })).rejects.toThrow(ConfigError);
    }
    await expect(destination.materializationHistory(contextOf(asset, null), { limit: -1 })).rejects.toThrow(
      /the history's limit must be a whole number of 0 or more, got number -1$/,
    );
  });
});

describe("MariaDB: a deadlock's victim run again", () => {
  it("stores the record of the attempt that committed, none of the one rolled back", async (t) => {
    if (!(await mysqlAvailable())) return t.skip("MariaDB is not available");
    const place = await ENGINES[2]!.place();
    places.push(place);
    const destination = place.destination();
    const asset = { key: "shop.orders", table: "orders", dataset: place.dataset, partitioning: daily };
    const attempts: Materialization[][] = [];
    const victim = overriding(destination, async (record, records) => {
      attempts.push([...records]);
      await record();
      // As the server reports a deadlock's victim: the driver rolls back and runs the whole write again.
      if (attempts.length === 1) throw Object.assign(new Error("Deadlock found when trying to get lock"), { code: "ER_LOCK_DEADLOCK" });
    });
    await victim.write(contextOf(asset, days("2026-01-01"), "once"), rowsOf("2026-01-01", "once", 2));
    expect(attempts).toHaveLength(2);
    expect(attempts[0]![0]!.id).not.toBe(attempts[1]![0]!.id);
    const record = (await destination.materializations(contextOf(asset, null)))["2026-01-01"]!;
    expect(record.id).toBe(attempts[1]![0]!.id);
    expect((await destination.materializationHistory(contextOf(asset, null), { limit: 10 })).map((r) => r.id)).toEqual([record.id]);
    expect(await destination.partitionRowCounts(contextOf(asset, null))).toEqual({ "2026-01-01": 2 });
  });
});

describe("a DatabaseDestination of a user's own, without the provenance hooks", () => {
  // The four hooks over an array, as a user's backend would keep its rows somewhere.
  class ArrayDestination extends DatabaseDestination {
    readonly tables = new Map<string, Record<string, unknown>[]>();
    insert(table: string, dataset: string | null, data: unknown): void {
      const key = `${dataset}.${table}`;
      this.tables.set(key, [...(this.tables.get(key) ?? []), ...(data as Record<string, unknown>[])]);
    }
    delete(table: string, dataset: string | null, where: PartitionFilter | null): void {
      const key = `${dataset}.${table}`;
      this.tables.set(
        key,
        where && "value" in where ? (this.tables.get(key) ?? []).filter((row) => row[where.column] !== where.value) : [],
      );
    }
    select(table: string, dataset: string | null, where: PartitionFilter | null): unknown {
      const rows = this.tables.get(`${dataset}.${table}`);
      if (!rows) return null;
      if (where && "start" in where)
        return rows.filter((row) => new Date(String(row[where.column])) >= where.start && new Date(String(row[where.column])) < where.end);
      return where && "value" in where ? rows.filter((row) => row[where.column] === where.value) : rows;
    }
    count(table: string, dataset: string | null, column: string): Record<string, number> {
      const counts: Record<string, number> = {};
      for (const row of this.tables.get(`${dataset}.${table}`) ?? []) counts[String(row[column])] = (counts[String(row[column])] ?? 0) + 1;
      return counts;
    }
  }

  it("keeps writing and counting, and has no materializations: provenance unknown", async () => {
    const destination = new ArrayDestination();
    const asset = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
    await destination.write(contextOf(asset, days("2026-01-01")), rowsOf("2026-01-01", "a", 2));
    expect(await destination.partitionRowCounts(contextOf(asset, null))).toEqual({ "2026-01-01": 2 });
    expect(destination.materializations).toBeUndefined();
    expect(destination.materializationHistory).toBeUndefined();
    expect(destination.recordMaterializations).toBeUndefined();
  });
});
