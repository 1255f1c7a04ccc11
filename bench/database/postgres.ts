// 1,000,000 rows over 30 daily partitions into PostgreSQL: PostgresDestination.write against a
// plain COPY FROM STDIN of the same rows through pg-copy-streams. Both end with the same table:
// the destination indexes the partition column (issue 8), so the plain load builds that index
// too, after its COPY, as a hand-written load would. Target: ratio <= 1.5.
//
// A workload module of the bench runner (`npm run bench -- --only DB-POSTGRES-LOAD`): each run
// is a fresh process that builds the rows and an empty schema in `setup` (untimed), times one
// load, and drops the schema in `teardown`. PostgreSQL on 127.0.0.1:5432, database test; the
// workload is skipped, with the reason printed, when the server does not answer.

import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import { PG_CONNECTION, postgresReachable } from "./shared/postgres-server.js";
import { dayKeys, loadContext, loadRows, type Order } from "./shared/load-rows.js";
// The built package, as the other workloads measure it.
import { PostgresDestination } from "../../dist/index.js";

const ROWS = 1_000_000;
const DAYS = 30;
const connection = PG_CONNECTION;
const SCHEMA = `il_bench_${process.pid}`;

const keys = dayKeys(DAYS);
let rows: Order[] = [];
let admin: pg.Client | undefined;
let destination: PostgresDestination | undefined;

async function plainCopy(): Promise<void> {
  await admin!.query(`CREATE TABLE "${SCHEMA}"."plain" (date date, id bigint, amount double precision, note text)`);
  function* chunks(): Generator<string> {
    let chunk = "";
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      chunk += `${r.date}\t${r.id}\t${r.amount}\t${r.note ?? "\\N"}\n`;
      if ((i + 1) % 2000 === 0) {
        yield chunk;
        chunk = "";
      }
    }
    if (chunk) yield chunk;
  }
  await pipeline(Readable.from(chunks()), admin!.query(copyStreams.from(`COPY "${SCHEMA}"."plain" (date, id, amount, note) FROM STDIN`)));
  await admin!.query(`CREATE INDEX ON "${SCHEMA}"."plain" (date)`);
}

async function viaDestination(): Promise<void> {
  await destination!.write(loadContext(SCHEMA, keys), rows);
}

export const workloads = [
  {
    name: "postgres-load",
    title: `${ROWS.toLocaleString("en")} rows over ${DAYS} daily partitions into PostgreSQL (PostgresDestination.write; baseline: plain COPY + the same index)`,
    target: 1.5,
    available: postgresReachable,
    async setup(): Promise<void> {
      rows = loadRows(ROWS, keys);
      admin = new pg.Client(connection);
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE; CREATE SCHEMA "${SCHEMA}"`);
      destination = new PostgresDestination({ connection });
    },
    run: viaDestination,
    baseline: plainCopy,
    async teardown(): Promise<void> {
      await admin?.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
      await admin?.end();
      await destination?.close();
    },
  },
];
