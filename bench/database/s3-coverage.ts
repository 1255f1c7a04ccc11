// Coverage of 365 daily partitions in S3, on a moto server (issue 41.9: coverage HEADed every
// object twice, 10 to 13 s for 330 objects). `il.assetCoverage` of 2025 (365 partitions of the
// bench's orders, 10 rows each, put by `il.backfill` to S3Destination as CSV in `setup`,
// untimed), one call after a warm one in the same process. Baseline: what counting needs at least, with the
// bare @aws-sdk/client-s3 client: ListObjectsV2 of the table's prefix, then a HeadObject of each
// object 16 at a time (S3 lists no metadata; the count is in it), also after a warm one. Target 1.5x.
//
// A workload module of the bench runner (`npm run bench -- --only DB-S3-COVERAGE`): each run is a
// fresh process that starts its own moto server in `setup` and stops it in `teardown`. Skipped,
// with the reason printed, where moto cannot run.

import { spawnSync } from "node:child_process";
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { type Moto, startMoto, TEST_CONNECTION } from "../../test/object-store/moto.js";
import type { Asset } from "../../dist/index.js";
import { assertCompleted, il, shopProject } from "../lib/project.mjs";

const DAYS = 365;
const ROWS = 10;
const YEAR = "2025-01-01..2025-12-31";
const BUCKET = "bench";
const PREFIX = "shop/orders/";
// As many HeadObject calls at once as S3Destination makes.
const PARALLEL_HEADS = 16;

let moto: Moto | undefined;

function motoInstalled(): true | string {
  const probe = spawnSync("python3", ["-c", "import moto.server"], { stdio: "ignore" });
  return probe.status === 0 ? true : "moto's server cannot run here (install Python 3 and `pip install 'moto[server]'`)";
}

const connection = () => ({ ...TEST_CONNECTION, endpoint: moto!.endpoint });
const project = () =>
  shopProject({
    destination: new il.S3Destination({ bucket: BUCKET, format: "csv", connection: connection() }),
    rows: ROWS,
    start: "2025-01-01",
  });

let orders: Asset | undefined;
let client: S3Client | undefined;

/** The rows the objects' `row_count` metadata holds, from a listing of the table and a HeadObject of each object. */
async function listAndHead(s3: S3Client): Promise<{ objects: number; rows: number }> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: PREFIX, ContinuationToken: token }));
    for (const item of page.Contents ?? []) if (item.Key) keys.push(item.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  let rows = 0;
  for (let start = 0; start < keys.length; start += PARALLEL_HEADS) {
    const batch = keys.slice(start, start + PARALLEL_HEADS);
    const heads = await Promise.all(batch.map((Key) => s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key }))));
    for (const head of heads) rows += Number(head.Metadata?.["row_count"] ?? 0);
  }
  return { objects: keys.length, rows };
}

async function viaCoverage(): Promise<Record<string, unknown>> {
  const value = await il.assetCoverage(orders!, { window: YEAR });
  if (value.materialized !== DAYS) throw new Error(`expected ${DAYS} partitions materialized, got ${value.materialized}`);
  return { materialized: value.materialized, rows: value.rows };
}

export const workloads = [
  {
    name: "s3-coverage",
    title: `coverage of ${DAYS} daily partitions in S3 (moto server): il.assetCoverage of 2025, warm (baseline: ListObjectsV2 of the table plus a HeadObject of each object, ${PARALLEL_HEADS} at a time, with the bare client)`,
    target: 1.5,
    available: motoInstalled,
    async setup({ role }: { role: "run" | "baseline" }): Promise<void> {
      moto = await startMoto();
      const running = moto;
      // A run that throws ends its process before teardown: the server must not outlive it.
      process.once("exit", () => void running.stop());
      await moto.createBucket(BUCKET);
      const made = project();
      assertCompleted(await il.backfill(made.dag, il.TimePartitionWindow.parse(YEAR)), "backfill");
      // Warm, as a session that counted before: the SDK loaded, its client connected.
      if (role === "run") await il.assetCoverage((orders = made.orders as Asset), { window: YEAR });
      else await listAndHead((client = new S3Client({ ...connection(), requestChecksumCalculation: "WHEN_REQUIRED" })));
    },
    run: viaCoverage,
    baseline: () => listAndHead(client!),
    async teardown(): Promise<void> {
      client?.destroy();
      await moto?.stop();
      moto = undefined;
    },
  },
];
