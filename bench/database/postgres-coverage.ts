// Row counts (coverage) of a PostgreSQL table of 3,000,000 distinct datetimes over 35 daily
// partitions: PostgresDestination.partitionRowCounts against the one statement a hand-written
// count would run (`date_trunc` by day, GROUP BY). Issue 16, item 8: counting grouped by every
// distinct value took 26.7 s and 1.87 GB; grouped by partition in SQL, one row per day comes back.
//
// A workload module of the bench runner (`npm run bench -- --only DB-POSTGRES-COVERAGE`): each run
// is a fresh process; `setup` (untimed) makes the table through the destination (a row per day,
// so the table, its index and the ledger are the destination's own) and fills it on the server
// with generate_series; `teardown` drops the schema. PostgreSQL on 127.0.0.1:5432, database test;
// skipped, with the reason printed, when the server does not answer.

import pg from "pg";
import { PG_CONNECTION, postgresReachable } from "./shared/postgres-server.js";
// The built package, as the other workloads measure it.
import {
  type FieldSpec,
  IOContext,
  PostgresDestination,
  TimeGranularity,
  TimePartitionConfig,
  TimePartitionWindow,
} from "../../dist/index.js";

const ROWS = Number(process.env["BENCH_COVERAGE_ROWS"] ?? 3_000_000);
const DAYS = Math.ceil(ROWS / 86_400);
const connection = PG_CONNECTION;
const SCHEMA = `il_bench_cov_${process.pid}`;

const fields: FieldSpec[] = [
  { name: "at", type: "datetime", nullable: false },
  { name: "id", type: "integer", nullable: false },
];
const asset = {
  key: "bench.events",
  table: "events",
  dataset: SCHEMA,
  partitioning: new TimePartitionConfig({ column: "at", allowWindow: true }),
};
let admin: pg.Client | undefined;
let destination: PostgresDestination | undefined;

export const workloads = [
  {
    name: "postgres-coverage",
    title: `row counts of ${ROWS.toLocaleString("en")} distinct datetimes over ${DAYS} daily partitions in PostgreSQL (PostgresDestination.partitionRowCounts; baseline: one date_trunc GROUP BY)`,
    available: postgresReachable,
    async setup(): Promise<void> {
      admin = new pg.Client(connection);
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
      destination = new PostgresDestination({ connection });
      const start = Date.UTC(2024, 0, 1);
      const days = Array.from({ length: DAYS }, (_, d) => new Date(start + d * 86_400_000));
      const window = new TimePartitionWindow(days[0]!, days.at(-1)!, TimeGranularity.DAY);
      // A row per day through the destination, then the rest on the server: one a second.
      await destination.write(
        new IOContext({ asset, window, schema: fields }),
        days.map((at, id) => ({ at, id: -1 - id })),
      );
      await admin.query(`DELETE FROM "${SCHEMA}"."events"`);
      await admin.query(
        `INSERT INTO "${SCHEMA}"."events" (at, id) SELECT timestamptz '2024-01-01 00:00:00+00' + i * interval '1 second', i FROM generate_series(0, ${ROWS - 1}) AS i`,
      );
      await admin.query(`ANALYZE "${SCHEMA}"."events"`);
    },
    async run(): Promise<{ partitions: number }> {
      const counts = await destination!.partitionRowCounts(new IOContext({ asset, schema: fields }));
      return { partitions: Object.keys(counts).length };
    },
    async baseline(): Promise<void> {
      await admin!.query(`SELECT date_trunc('day', at AT TIME ZONE 'UTC') AS day, COUNT(*) AS n FROM "${SCHEMA}"."events" GROUP BY 1`);
    },
    async teardown(): Promise<void> {
      await admin?.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
      await admin?.end();
      await destination?.close();
    },
  },
];
