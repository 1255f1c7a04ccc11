// MySQL/MariaDB writers at once. A backfill at concurrency 10 once failed 10 of 10 fresh runs
// (two disjoint shards at once: 3 of 3) with "Deadlock found when trying to get lock": the range
// deletes of neighbouring partitions took next-key and gap locks under REPEATABLE READ and
// waited on each other's inserts. Writes now run at READ COMMITTED, writers of one partition
// take turns on a lock of their own, and a transaction the server still picks as a deadlock's
// victim runs again whole.
import { randomBytes } from "node:crypto";
import { tracingChannel } from "node:diagnostics_channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseDestination } from "../../src/destination/database/index.js";
import { PARTITION_TABLE } from "../../src/destination/database/partition-table.js";
import type { PartitionFilter } from "../../src/destination/index.js";
import { TimePartition } from "../../src/partitioning/index.js";
import { MYSQL_CONNECTION, mysqlAvailable } from "../database/servers.js";
import { waitUntil } from "../e2e/pool-helpers.js";
import {
  checkStored,
  days,
  ensureBuilt,
  eventCount,
  eventRows,
  eventsContext,
  localDestination,
  normalRows,
  runCli,
  useTempDirs,
} from "./helpers.js";

const tempDir = useTempDirs();
/** Rows per day: 60 to 420 (the fixture's 1 to 7, times this). */
const SCALE = 60;

let available = false;
const datasets: string[] = [];
beforeAll(async () => {
  await ensureBuilt();
  available = await mysqlAvailable();
}, 180_000);
afterAll(async () => {
  if (!available) return;
  const admin = localDestination("mysql", "") as unknown as { run(sql: string): Promise<unknown>; close(): Promise<void> };
  for (const dataset of datasets) await admin.run(`DROP DATABASE IF EXISTS \`${dataset}\``);
  await admin.close();
});

function freshDataset(): string {
  const dataset = `il_rel_lock_${randomBytes(4).toString("hex")}`;
  datasets.push(dataset);
  return dataset;
}

/** A connection of the test's own, outside any destination. */
async function rawConnection() {
  const mysql = (await import("mysql2/promise")).default;
  return mysql.createConnection(MYSQL_CONNECTION);
}

describe("MySQL: a backfill at concurrency 10", () => {
  it("35 daily partitions of 60 to 420 rows: completes, no deadlock, every count exact", async () => {
    if (!available) return;
    const data = await tempDir();
    const dataset = freshDataset();
    const window = days("2024-01-01", "2024-02-04");
    const run = await runCli(["materialize", "events", "-w", "2024-01-01..2024-02-04", "--concurrency", "10"], data, {
      REL_DEST: "mysql",
      REL_DATASET: dataset,
      REL_SCALE: String(SCALE),
    });
    expect(run.stderr).not.toMatch(/deadlock|ER_LOCK/i);
    expect(run.stderr).toMatch(/^Done: 35 of 35 partitions completed/m);
    expect(run.code, run.stderr).toBe(0);
    const state = await checkStored("mysql", data, window, { dataset, scale: SCALE });
    expect(state.counts).toEqual(Object.fromEntries(window.partitions.map((p) => [p.key, eventCount(p.key, SCALE)])));
  }, 120_000);

  it("two disjoint shards at once into one table: both complete, no deadlock, every count exact", async () => {
    if (!available) return;
    const data = await tempDir();
    const dataset = freshDataset();
    const window = days("2024-03-01", "2024-04-29");
    const env = { REL_DEST: "mysql", REL_DATASET: dataset, REL_SCALE: String(SCALE) };
    const shard = (i: number) =>
      runCli(["materialize", "events", "-w", "2024-03-01..2024-04-29", "--concurrency", "10", "--shard", `${i}/2`], data, env);
    const runs = await Promise.all([shard(1), shard(2)]);
    for (const run of runs) {
      expect(run.stderr).not.toMatch(/deadlock|ER_LOCK/i);
      expect(run.stderr).toMatch(/^Done: 30 of 30 partitions completed/m);
      expect(run.code, run.stderr).toBe(0);
    }
    const state = await checkStored("mysql", data, window, { dataset, scale: SCALE });
    expect(state.counts).toEqual(Object.fromEntries(window.partitions.map((p) => [p.key, eventCount(p.key, SCALE)])));
  }, 120_000);
});

type Hooked = DatabaseDestination & { close(): Promise<void> };

/** Wraps a destination's delete and insert hooks: `calls` lists "delete events", "insert _interloper_partitions", ... */
function hook(destination: Hooked, afterDelete: (table: string, n: number) => Promise<void> = async () => undefined): string[] {
  const calls: string[] = [];
  const remove = destination.delete.bind(destination);
  const insert = destination.insert.bind(destination);
  Object.assign(destination, {
    delete: async (table: string, dataset: string | null, where: PartitionFilter | null) => {
      await remove(table, dataset, where);
      calls.push(`delete ${table}`);
      await afterDelete(table, calls.filter((c) => c === `delete ${table}`).length);
    },
    insert: async (...args: Parameters<DatabaseDestination["insert"]>) => {
      await insert(...args);
      calls.push(`insert ${args[0]}`);
    },
  });
  return calls;
}

/** A promise and the function that settles it. */
function gate(): { open: () => void; passed: Promise<void> } {
  let open!: () => void;
  const passed = new Promise<void>((resolve) => (open = resolve));
  return { open, passed };
}

describe("MySQL: a write transaction", () => {
  const X = "2024-05-01";
  const Y = "2024-05-02";
  const part = (day: string) => TimePartition.fromKey(day);

  it("picked as a deadlock's victim runs again whole (delete, insert, ledger) and commits", async () => {
    if (!available) return;
    const dataset = freshDataset();
    const writer = localDestination("mysql", "") as Hooked;
    const other = await rawConnection();
    const admin = await rawConnection();
    try {
      for (const day of [X, Y]) await writer.writePartition(eventsContext(part(day), dataset), part(day), eventRows(day, "w"));
      const deleted = gate();
      const resume = gate();
      const calls = hook(writer, async (table, n) => {
        if (table !== "events" || n !== 1) return;
        deleted.open();
        await resume.passed;
      });
      const write = writer.writePartition(eventsContext(part(X), dataset), part(X), eventRows(X, "w2"));
      await deleted.passed;
      // The other transaction: every ledger row locked, a few thousand rows inserted (so the
      // server rolls back the writer, the lighter of the two), then a wait for X's rows.
      const events = `\`${dataset}\`.\`events\``;
      await other.query("START TRANSACTION");
      await other.query(`SELECT entry FROM \`${dataset}\`.\`${PARTITION_TABLE}\` FOR UPDATE`);
      await other.query(`INSERT INTO ${events} (date, n, writer, text) VALUES ?`, [
        Array.from({ length: 3000 }, (_, n) => ["2024-06-01", n, "other", "x"]),
      ]);
      let otherDeleted = false;
      const otherDelete = other.query(`DELETE FROM ${events} WHERE date = ?`, [X]).finally(() => (otherDeleted = true));
      const state = async () => {
        const [rows] = await admin.query("SELECT trx_state AS s FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ?", [
          other.threadId,
        ]);
        return (rows as { s: string }[])[0]?.s;
      };
      // Usually the other is seen waiting for X's rows before the writer goes on. The deadlock
      // forms in either order, and the server rolls back the lighter transaction, the writer:
      // on a loaded machine (one CI run in four) the wait was not seen in 30 s, so the writer
      // goes on after 10 s whatever the other's state.
      await waitUntil(async () => otherDeleted || (await state()) === "LOCK WAIT", "the other transaction to wait", 10_000).catch(
        () => undefined,
      );
      expect(otherDeleted, "the other's delete of X went through while the writer held X's deleted rows").toBe(false);
      // The writer goes on to the ledger, which the other holds: a deadlock.
      resume.open();
      await otherDelete;
      await other.query("ROLLBACK");
      await write;

      // The first attempt failed at the ledger; the second sent it all again (the ledger's rows,
      // with their materialization records, are loaded by the driver, not through `insert`).
      expect(calls).toEqual(["delete events", "insert events", "delete events", "insert events", `delete ${PARTITION_TABLE}`]);
      const reader = localDestination("mysql", "") as Hooked;
      try {
        expect(normalRows(await reader.readPartition(eventsContext(part(X), dataset), part(X)))).toEqual(eventRows(X, "w2"));
        expect(normalRows(await reader.readPartition(eventsContext(part(Y), dataset), part(Y)))).toEqual(eventRows(Y, "w"));
        expect(await reader.partitionRowCounts(eventsContext(null, dataset))).toEqual({
          [X]: eventRows(X, "w2").length,
          [Y]: eventRows(Y, "w").length,
        });
        // The record of the attempt that committed, and none of the one rolled back.
        const record = (await reader.materializations!(eventsContext(null, dataset)))[X]!;
        expect(record.rows).toBe(eventRows(X, "w2").length);
        const history = await reader.materializationHistory!(eventsContext(null, dataset), { partition: part(X), limit: 10 });
        expect(history.map((r) => r.id)).toEqual([record.id, expect.any(String)]);
      } finally {
        await reader.close();
      }
    } finally {
      await writer.close();
      await other.end();
      await admin.end();
    }
  }, 60_000);

  it("of a partition that holds no row yet: a second writer waits for the first, and the partition holds one writer's rows", async () => {
    if (!available) return;
    const dataset = freshDataset();
    const first = localDestination("mysql", "") as Hooked;
    const second = localDestination("mysql", "") as Hooked;
    // Every statement sent, to see the second writer ask for the partition's lock.
    const sent: string[] = [];
    const subscriber = { start: (message: unknown) => void sent.push(String((message as { query: string }).query)) };
    const channels = [tracingChannel("mysql2:query"), tracingChannel("mysql2:execute")];
    for (const channel of channels) channel.subscribe(subscriber as never);
    try {
      // The table and ledger exist; partition X has never been written.
      await first.writePartition(eventsContext(part(Y), dataset), part(Y), eventRows(Y, "w"));
      const deleted = gate();
      const resume = gate();
      hook(first, async (table) => {
        if (table !== "events") return;
        deleted.open();
        await resume.passed;
      });
      const one = first.writePartition(eventsContext(part(X), dataset), part(X), eventRows(X, "w"));
      await deleted.passed;
      const mark = sent.length;
      let settled = false;
      const two = second.writePartition(eventsContext(part(X), dataset), part(X), eventRows(X, "w2")).finally(() => (settled = true));
      // The second writer either finishes (nothing made it wait: the first then adds its rows
      // too), or has sent what may hold it: the partition's lock, or its delete.
      await waitUntil(
        () => settled || sent.slice(mark).some((sql) => /^(SELECT GET_LOCK|DELETE FROM)/.test(sql)),
        "the second writer to finish or wait",
      );
      resume.open();
      await Promise.all([one, two]);
      const rows = normalRows(await second.readPartition(eventsContext(part(X), dataset), part(X)));
      expect(
        new Set(rows.map((row) => row.writer)).size,
        `partition ${X} holds rows of ${[...new Set(rows.map((row) => row.writer))].join(" and ")}`,
      ).toBe(1);
      expect(rows).toEqual(eventRows(X, "w2"));
    } finally {
      for (const channel of channels) channel.unsubscribe(subscriber as never);
      await first.close();
      await second.close();
    }
  }, 60_000);
});
