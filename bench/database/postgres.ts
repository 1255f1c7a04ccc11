// 1,000,000 rows over 30 daily partitions into PostgreSQL: PostgresDestination.write against a
// plain COPY FROM STDIN of the same rows through pg-copy-streams, in the same run. Each run
// starts from an empty schema; the figure is the median of 3 runs. Target: ratio <= 1.5.
// Both end with the same table: the destination indexes the partition column (issue 8), so the
// plain load builds that index too, after its COPY, as a hand-written load would.
//
//   npx jiti bench/database/postgres.ts        (PostgreSQL on 127.0.0.1:5432, database test)

import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import { PostgresDestination } from "../../src/destination/database/index.js";
import { IOContext } from "../../src/destination/index.js";
import { TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";

const ROWS = 1_000_000;
const DAYS = 30;
const RUNS = 3;
const connection = { host: "127.0.0.1", port: 5432, user: "postgres", database: "test" };
const SCHEMA = `il_bench_${process.pid}`;

const fields: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
  { name: "amount", type: "number", nullable: false },
  { name: "note", type: "string", nullable: true },
];
const keys = Array.from({ length: DAYS }, (_, d) => new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10));
const rows = Array.from({ length: ROWS }, (_, i) => ({ date: keys[i % DAYS]!, id: i, amount: i * 0.25, note: i % 7 === 0 ? null : `note ${i}` }));

const admin = new pg.Client(connection);
await admin.connect();
const reset = () => admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE; CREATE SCHEMA "${SCHEMA}"`);

async function plainCopy(): Promise<void> {
  await admin.query(`CREATE TABLE "${SCHEMA}"."plain" (date date, id bigint, amount double precision, note text)`);
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
  await pipeline(Readable.from(chunks()), admin.query(copyStreams.from(`COPY "${SCHEMA}"."plain" (date, id, amount, note) FROM STDIN`)));
  await admin.query(`CREATE INDEX ON "${SCHEMA}"."plain" (date)`);
}

const destination = new PostgresDestination({ connection });
const asset = { key: "bench.orders", table: "orders", dataset: SCHEMA, partitioning: new TimePartitionConfig({ column: "date", allowWindow: true }) };
const window = new TimePartitionWindow(keys[0]!, keys[DAYS - 1]!, TimeGranularity.DAY);
const viaDestination = () => destination.write(new IOContext({ asset, window, schema: fields }), rows);

async function time(run: () => Promise<void>): Promise<number> {
  await reset();
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const plain: number[] = [];
const ours: number[] = [];
for (let run = 0; run < RUNS; run++) {
  plain.push(await time(plainCopy));
  ours.push(await time(viaDestination));
}
const [p, o] = [median(plain), median(ours)];
console.log(`rows: ${ROWS} over ${DAYS} daily partitions, median of ${RUNS} runs`);
console.log(`plain COPY:          ${p.toFixed(0)} ms   (runs: ${plain.map((x) => x.toFixed(0)).join(", ")})`);
console.log(`PostgresDestination: ${o.toFixed(0)} ms   (runs: ${ours.map((x) => x.toFixed(0)).join(", ")})`);
console.log(`ratio: ${(o / p).toFixed(2)} (target <= 1.5)`);
await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
await admin.end();
await destination.close();
