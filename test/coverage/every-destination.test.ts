// Issue 41.2: a partition's details (the explorer's Enter) and the HTML report's "last written"
// took every destination with a `pathOf` for a file store, and the local object store's
// `pathOf` takes an object's name: `coverage --html` crashed ("name.split is not a function").
// Over every built-in destination, on real storage: each partition's rows, record, time written
// and place (its file, its object's URI, the database), and the report, which renders.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import { findAsset, projectOf } from "../../src/api/project.js";
import { coverage } from "../../src/api/coverage/index.js";
import { lastWritten, partitionDetails } from "../../src/api/coverage/partition-details.js";
import { coverageHtml } from "../../src/cli/report/coverage-html.js";
import { makeTempDir } from "../contract/temp-dir.js";
import { type Moto, startMoto, TEST_CONNECTION } from "../object-store/moto.js";
import { type GcsServer, startGcsServer } from "../support/gcs-server.js";
import { isolatedMySQL, isolatedPostgres } from "../database/servers.js";

const NOW = new Date("2026-01-03T12:00:00Z");
let base: string;
let remove: () => Promise<void>;
let moto: Moto;
let gcs: GcsServer;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  ({ path: base, remove } = await makeTempDir("interloper-every-destination-"));
  moto = await startMoto();
  await moto.createBucket("details");
  gcs = await startGcsServer();
  gcs.createBucket("details");
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await moto?.stop();
  await gcs?.stop();
  await remove();
});

/** Where a partition is said to be: its file, its object's URI (by its scheme), else the destination's location. */
type Place = "file" | "s3://" | "gs://" | "database";

const DESTINATIONS: ReadonlyArray<readonly [string, () => il.Destination, Place]> = [
  ["CSVDestination", () => new il.CSVDestination({ basePath: join(base, "csv") }), "file"],
  ["FileDestination", () => new il.FileDestination({ basePath: join(base, "v8") }), "file"],
  ["LocalObjectStoreDestination (parquet)", () => new il.LocalObjectStoreDestination({ basePath: join(base, "parquet") }), "file"],
  [
    "LocalObjectStoreDestination (jsonl)",
    () => new il.LocalObjectStoreDestination({ basePath: join(base, "jsonl"), format: "jsonl" }),
    "file",
  ],
  ["MemoryDestination", () => new il.MemoryDestination(), "database"],
  [
    "S3Destination",
    () => new il.S3Destination({ bucket: "details", connection: { ...TEST_CONNECTION, endpoint: moto.endpoint } }),
    "s3://",
  ],
  [
    "GCSDestination",
    () => new il.GCSDestination({ bucket: "details", connection: { projectId: "test", apiEndpoint: gcs.endpoint } }),
    "gs://",
  ],
  ["SQLiteDestination", () => new il.SQLiteDestination({ path: join(base, "warehouse.db") }), "database"],
  [
    "PostgresDestination",
    () => {
      const { destination, cleanup } = isolatedPostgres();
      cleanups.push(cleanup);
      return destination;
    },
    "database",
  ],
  [
    "MySQLDestination",
    () => {
      const { destination, cleanup } = isolatedMySQL();
      cleanups.push(cleanup);
      return destination;
    },
    "database",
  ],
];

describe.each(DESTINATIONS)("%s", (_name, make, place) => {
  it("gives a partition's rows, record, time written and place, and the HTML report renders", async () => {
    const destination = make();
    const orders = il.asset({
      key: "orders",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      run: (c) => [1, 2].map((n) => ({ date: c.partition!.key, n })),
    });
    const project = projectOf(il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders] })({ destinations: destination })] }));
    expect((await il.materialize(project, { window: "2026-01-01..2026-01-02" })).status).toBe("completed");
    const asset = findAsset(project, "shop.orders");

    const [details] = await partitionDetails(asset, "2026-01-02");
    expect(details).toMatchObject({ rows: 2, record: { partition: "2026-01-02", rows: 2 } });
    expect(details!.writtenAt).toEqual(new Date(details!.record!.endedAt));
    if (place === "database") expect(details!.location).toBe(destination.location);
    else {
      expect(details!.location).toMatch(/date=2026-01-02\/data\.[a-z0-9]+$/);
      expect(details!.location!.startsWith(place === "file" ? base : `${place}details/`)).toBe(true);
    }
    // A partition it does not hold.
    expect((await partitionDetails(asset, "2026-01-03"))[0]).toMatchObject({ rows: null, writtenAt: null, record: null });

    const written = await lastWritten(asset, ["2026-01-01", "2026-01-02"]);
    // Files have a time of their own; elsewhere nothing says when, short of the records.
    if (place === "file") expect(written).toBeInstanceOf(Date);
    else expect(written).toBeNull();
    const report = coverageHtml(await coverage(project, undefined, { now: NOW }), NOW, {
      name: "shop",
      configPath: null,
      lastWritten: { "shop.orders": written },
    });
    expect(report).toContain('data-asset="shop.orders"');
    await destination.close();
  });
});
