// W1's backfill into S3, on a moto server: 365 daily partitions of the bench's orders
// (bench/lib/rows.mjs), `il.backfill` at its default concurrency (4) to S3Destination as CSV,
// against the same objects (same keys, bytes, content type and row-count metadata) put with the
// bare @aws-sdk/client-s3 client, 4 PutObject calls at a time, each body from csv-stringify.
// Target: ratio <= 1.5 (issue 20).
//
// A workload module of the bench runner (`npm run bench -- --only DB-S3-BACKFILL`): each run is a
// fresh process that starts its own moto server and creates an empty bucket in `setup`
// (untimed), times one load and stops the server in `teardown` (and, should the run fail
// first, when its process exits). Skipped, with the reason printed, where moto cannot run.

import { spawnSync } from "node:child_process";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { stringify } from "csv-stringify/sync";
import { type Moto, startMoto, TEST_CONNECTION } from "../../test/object-store/moto.js";
import { assertCompleted, il, shopProject } from "../lib/project.mjs";
import { COLUMNS, days, rowsForDay } from "../lib/rows.mjs";

const DAYS = 365;
const ROWS = Number(process.env["BENCH_S3_ROWS"] ?? 1_000);
const FIRST = "2025-01-01";
// il.backfill's default.
const CONCURRENCY = 4;
const BUCKET = "bench";
// The partition column lives in the object's key, not in its file (object-store-destination.ts).
const FILE_COLUMNS = COLUMNS.filter((column) => column !== "date");

let moto: Moto | undefined;

function motoInstalled(): true | string {
  const probe = spawnSync("python3", ["-c", "import moto.server"], { stdio: "ignore" });
  return probe.status === 0 ? true : "moto's server cannot run here (install Python 3 and `pip install 'moto[server]'`)";
}

const connection = () => ({ ...TEST_CONNECTION, endpoint: moto!.endpoint });

async function viaBackfill(): Promise<Record<string, number>> {
  const destination = new il.S3Destination({ bucket: BUCKET, format: "csv", connection: connection() });
  const { dag } = shopProject({ destination, rows: ROWS });
  const list = days(FIRST, DAYS);
  const result = await il.backfill(dag, il.TimePartitionWindow.parse(`${list[0]}..${list.at(-1)}`));
  assertCompleted(result, "backfill");
  return { partitions: DAYS, rows: DAYS * ROWS };
}

async function barePuts(): Promise<Record<string, number>> {
  const client = new S3Client({ ...connection(), requestChecksumCalculation: "WHEN_REQUIRED" });
  try {
    const queue = days(FIRST, DAYS);
    const put = async (day: string) => {
      const rows = rowsForDay(day, ROWS);
      const Body = stringify(rows, { header: true, columns: FILE_COLUMNS });
      const Metadata = { row_count: String(rows.length), "row-count": String(rows.length) };
      await client.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: `shop/orders/date=${day}/data.csv`, Body, ContentType: "text/csv", Metadata }),
      );
    };
    const worker = async () => {
      for (let day = queue.shift(); day !== undefined; day = queue.shift()) await put(day);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { partitions: DAYS, rows: DAYS * ROWS };
  } finally {
    client.destroy();
  }
}

export const workloads = [
  {
    name: "s3-backfill",
    title: `W1 to S3 (moto server): il.backfill of ${DAYS} daily partitions x ${ROWS.toLocaleString("en")} rows to S3Destination as CSV (baseline: the same objects put with the bare client, ${CONCURRENCY} at a time)`,
    target: 1.5,
    available: motoInstalled,
    async setup(): Promise<void> {
      moto = await startMoto();
      const running = moto;
      // A run that throws ends its process before teardown: the server must not outlive it.
      process.once("exit", () => void running.stop());
      await moto.createBucket(BUCKET);
    },
    run: viaBackfill,
    baseline: barePuts,
    async teardown(): Promise<void> {
      await moto?.stop();
      moto = undefined;
    },
  },
];
