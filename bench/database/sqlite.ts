// W1's backfill into SQLite: 365 daily partitions of the bench's orders (bench/lib/rows.mjs),
// `il.backfill` at its default concurrency to SQLiteDestination, against the same rows inserted
// with one prepared statement in one transaction through better-sqlite3, into the same table
// (the destination's columns and types, and its index on the partition column, built after the
// load as a hand-written load would). Target: ratio <= 1.3 (issue 20).
//
// A workload module of the bench runner (`npm run bench -- --only DB-SQLITE-BACKFILL`): each run
// is a fresh process that makes an empty folder for the database file in `setup` (untimed),
// times one load and removes the folder in `teardown`.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { assertCompleted, il, shopProject } from "../lib/project.mjs";
import { COLUMNS, days, rowsForDay } from "../lib/rows.mjs";

const DAYS = 365;
// 2,000 rather than W1's 10,000: one run stays under 30 s on a shared 2-core machine.
const ROWS = Number(process.env["BENCH_SQLITE_ROWS"] ?? 2_000);
const FIRST = "2025-01-01";
const TABLE = `"shop.orders"`;
// The table SQLiteDestination creates for the orders' zod schema (see sqlite-dialect.ts).
const CREATE = `CREATE TABLE ${TABLE} ("_interloper_row" INTEGER PRIMARY KEY, "date" DATE, "order_id" INTEGER, "customer" TEXT, "amount" REAL, "status" TEXT)`;

let folder: string | undefined;
const databaseFile = () => join(folder!, "bench.db");

async function viaBackfill(): Promise<Record<string, number>> {
  const destination = new il.SQLiteDestination({ path: databaseFile() });
  try {
    const { dag } = shopProject({ destination, rows: ROWS });
    const list = days(FIRST, DAYS);
    const result = await il.backfill(dag, il.TimePartitionWindow.parse(`${list[0]}..${list.at(-1)}`));
    assertCompleted(result, "backfill");
    return { partitions: DAYS, rows: DAYS * ROWS };
  } finally {
    await destination.close();
  }
}

function preparedInserts(): Record<string, number> {
  const db = new Database(databaseFile());
  try {
    // better-sqlite3's defaults, as a plain load would run: the rollback journal. (The
    // destination's WAL mode is slower here: one transaction of millions of rows outgrows the
    // page cache, and every page it spills is then looked up in the WAL's index.)
    db.exec(CREATE);
    const insert = db.prepare(`INSERT INTO ${TABLE} (${COLUMNS.map((c) => `"${c}"`).join(", ")}) VALUES (?, ?, ?, ?, ?)`);
    db.transaction(() => {
      for (const day of days(FIRST, DAYS)) {
        for (const row of rowsForDay(day, ROWS)) insert.run(row.date, row.order_id, row.customer, row.amount, row.status);
      }
    })();
    db.exec(`CREATE INDEX "orders_date" ON ${TABLE} ("date")`);
    return { partitions: DAYS, rows: DAYS * ROWS };
  } finally {
    db.close();
  }
}

export const workloads = [
  {
    name: "sqlite-backfill",
    title: `W1 to SQLite: il.backfill of ${DAYS} daily partitions x ${ROWS.toLocaleString("en")} rows to SQLiteDestination (baseline: prepared inserts in one transaction, better-sqlite3, same table and index)`,
    target: 1.3,
    setup(): void {
      folder = mkdtempSync(join(tmpdir(), "il-bench-sqlite-"));
    },
    run: viaBackfill,
    baseline: preparedInserts,
    teardown(): void {
      if (folder) rmSync(folder, { recursive: true, force: true });
    },
  },
];
