// 300,000 rows over 30 daily partitions into MariaDB (or MySQL): MySQLDestination.write against
// a plain load of the same rows through mysql2, multi-row INSERTs of 1,000 rows (`VALUES ?`,
// the driver escaping the values), in one transaction. Both end with the same table: the
// destination's columns, types and index on the partition column (the plain load builds the
// index after its INSERTs, as a hand-written load would). Target: ratio <= 1.5 (issue 20).
//
// A workload module of the bench runner (`npm run bench -- --only DB-MARIADB-LOAD`): each run is
// a fresh process that builds the rows and an empty database in `setup` (untimed), times one
// load and drops the database in `teardown`. MariaDB on 127.0.0.1:3306 as root, database test;
// the workload is skipped, with the reason printed, when the server does not answer.

import mysql from "mysql2/promise";
import { dayKeys, loadContext, loadRows, type Order } from "./shared/load-rows.js";
// The built package, as the other workloads measure it.
import { MySQLDestination } from "../../dist/index.js";

const ROWS = 300_000;
const DAYS = 30;
const BATCH = 1_000;
const connection = { host: "127.0.0.1", port: 3306, user: "root", database: "test" };
const DATABASE = `il_bench_${process.pid}`;
// The table MySQLDestination creates for these fields on MariaDB 10.11 (SHOW CREATE TABLE).
const CREATE = `CREATE TABLE \`${DATABASE}\`.\`plain\` (\`_interloper_row\` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, \`date\` date, \`id\` bigint, \`amount\` double, \`note\` text) CHARACTER SET utf8mb4`;

const keys = dayKeys(DAYS);
let rows: Order[] = [];
let admin: mysql.Connection | undefined;
let destination: MySQLDestination | undefined;

async function reachable(): Promise<true | string> {
  try {
    const probe = await mysql.createConnection({ ...connection, connectTimeout: 3_000 });
    await probe.end();
    return true;
  } catch (error) {
    return `MariaDB is not reachable at ${connection.host}:${connection.port} (${(error as Error).message})`;
  }
}

async function plainInserts(): Promise<void> {
  await admin!.query(CREATE);
  await admin!.beginTransaction();
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH).map((r) => [r.date, r.id, r.amount, r.note]);
    await admin!.query(`INSERT INTO \`${DATABASE}\`.\`plain\` (\`date\`, \`id\`, \`amount\`, \`note\`) VALUES ?`, [batch]);
  }
  await admin!.commit();
  await admin!.query(`CREATE INDEX \`plain_date\` ON \`${DATABASE}\`.\`plain\` (\`date\`)`);
}

async function viaDestination(): Promise<void> {
  await destination!.write(loadContext(DATABASE, keys), rows);
}

export const workloads = [
  {
    name: "mariadb-load",
    title: `${ROWS.toLocaleString("en")} rows over ${DAYS} daily partitions into MariaDB (MySQLDestination.write; baseline: mysql2 multi-row INSERTs of ${BATCH.toLocaleString("en")} rows + the same index)`,
    target: 1.5,
    available: reachable,
    async setup(): Promise<void> {
      rows = loadRows(ROWS, keys);
      admin = await mysql.createConnection(connection);
      await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
      await admin.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4`);
      destination = new MySQLDestination({ connection });
    },
    run: viaDestination,
    baseline: plainInserts,
    async teardown(): Promise<void> {
      await admin?.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
      await admin?.end();
      await destination?.close();
    },
  },
];
