import { inspect } from "node:util";
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatFor } from "../../src/destination/format/format-for.js";
import { ObjectStoreError, S3Destination } from "../../src/destination/index.js";
import { inferFieldSpecs } from "../../src/schema/index.js";
import * as il from "../../src/index.js";
import { projectOf } from "../../src/api/project.js";
import { coverage } from "../../src/api/coverage/index.js";
import type { S3ConnectionOptions, S3Handle } from "../../src/destination/store/s3/s3-client.js";
import { ctx, days, orderRows, orders } from "./helpers.js";
import { motoAvailable, motoWithBucket, TEST_CONNECTION } from "./moto.js";

const SECRET = "SECRET-zq8XK2v9recognisable";
const TOKEN = "TOKEN-session-9f7e6d-recognisable";
const KEY_ID = "AKIA-RECOGNISABLE-ID";
const secretConnection = (endpoint: string) => ({
  region: "us-east-1",
  endpoint,
  forcePathStyle: true,
  credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET, sessionToken: TOKEN },
});

function expectNoSecrets(text: string): void {
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(KEY_ID);
}

describe("S3Destination secrets", () => {
  it("never appear in JSON.stringify or util.inspect of the destination", () => {
    const dest = new S3Destination({ bucket: "b", prefix: "p", format: "csv", connection: secretConnection("http://127.0.0.1:1") });
    const json = JSON.stringify(dest);
    expectNoSecrets(json);
    expect(JSON.parse(json)).toEqual({
      destination: "S3Destination",
      bucket: "b",
      prefix: "p",
      format: "csv",
      connection: {
        region: "us-east-1",
        endpoint: "http://127.0.0.1:1",
        forcePathStyle: true,
        credentials: { accessKeyId: "[redacted]", secretAccessKey: "[redacted]" },
      },
    });
    expectNoSecrets(inspect(dest, { depth: null, showHidden: true }));
    expectNoSecrets(String(dest));
    expectNoSecrets(JSON.stringify(dest.connection));
  });

  it("never appear in the error of a failed call, which names the operation and the object", async () => {
    // Port 1 refuses connections: the SDK fails without any server.
    const dest = new S3Destination({ bucket: "nowhere", connection: secretConnection("http://127.0.0.1:1") });
    const error = await dest.read(ctx(orders, days("2026-01-01", "2026-01-01"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObjectStoreError);
    expect((error as Error).message).toContain("GetObject of s3://nowhere/shop/orders/date=2026-01-01/data.parquet failed");
    expectNoSecrets(inspect(error, { depth: null, showHidden: true }));
  });
});

const available = motoAvailable();

describe.skipIf(!available)("S3Destination on a moto server", () => {
  let s3: S3Client;
  const bucket = "objects";
  const moto = motoWithBucket(bucket);
  let run = 0;
  const make = (format: "parquet" | "jsonl" | "csv" = "parquet") =>
    new S3Destination({ bucket, prefix: `case-${++run}`, format, connection: { ...TEST_CONNECTION, endpoint: moto().endpoint } });
  const body = async (key: string): Promise<Uint8Array> =>
    (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray();

  beforeAll(() => {
    s3 = new S3Client({ ...TEST_CONNECTION, endpoint: moto().endpoint });
  });
  afterAll(() => {
    s3?.destroy();
  });

  it("closes its client, and opens a new one when used again", async () => {
    const dest = make("jsonl");
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1));
    await dest.close();
    await dest.close();
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1 });
    await dest.close();
  });

  it("stores each partition under the prefix with x-amz-meta-row_count, the partition column left out", async () => {
    const dest = make("jsonl");
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    const key = `${dest.prefix}/shop/orders/date=2026-01-01/data.jsonl`;
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    // moto's HTTP server drops underscored headers, as nginx does by default: the dashed alias survives.
    expect(head.Metadata?.["row-count"] ?? head.Metadata?.["row_count"]).toBe("2");
    expect(head.ContentType).toBe("application/x-ndjson");
    const text = new TextDecoder().decode(await body(key));
    expect(text.split("\n")[0]).toBe('{"id":1,"amount":9.5,"paid":true,"note":"first","at":"2026-01-01T08:00:00.000Z","tags":["a"]}');
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-02")))).toEqual(orderRows());
  });

  it.each(["parquet", "jsonl", "csv"] as const)(
    "%s: leaves the partition column of a daily asset with no declared schema out of the object",
    async (format) => {
      const dest = make(format);
      const rows = [
        { date: "2026-01-01", id: 1 },
        { date: "2026-01-02", id: 2 },
      ];
      const dated = [{ date: new Date(Date.UTC(2026, 0, 3)), id: 3 }];
      // The schema conform infers: the strings as string, the Dates as datetime.
      await dest.write(ctx(orders, days("2026-01-01", "2026-01-02"), inferFieldSpecs(rows)), rows);
      await dest.write(ctx(orders, days("2026-01-03", "2026-01-03"), inferFieldSpecs(dated)), dated);
      for (const day of ["2026-01-01", "2026-01-02", "2026-01-03"]) {
        const bytes = await body(`${dest.prefix}/shop/orders/date=${day}/data.${format}`);
        const stored = await formatFor(format, "test").deserialize(bytes, null);
        expect(Object.keys(stored[0]!)).toEqual(["id"]);
      }
      expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-02"), inferFieldSpecs(rows)))).toEqual(rows);
      expect(await dest.read(ctx(orders, days("2026-01-03", "2026-01-03"), inferFieldSpecs(dated)))).toEqual(dated);
    },
  );

  it("counts rows from metadata alone: corrupt bytes that keep row_count still count", async () => {
    const dest = make();
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    const key = `${dest.prefix}/shop/orders/date=2026-01-01/data.parquet`;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: "garbage", Metadata: { "row-count": "2" } }));
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 1 });
  });

  it("downloads and counts an object another tool wrote without row_count", async () => {
    const dest = make("csv");
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `${dest.prefix}/shop/orders/date=2026-02-01/data.csv`,
        Body: 'id,note\n1,a\n2,"multi\nline"\n',
      }),
    );
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1));
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1, "2026-02-01": 2 });
  });

  it("wraps a missing bucket as ObjectStoreError naming bucket, key and operation, secrets left out", async () => {
    const dest = new S3Destination({ bucket: "no-such-bucket", connection: secretConnection(moto().endpoint) });
    const error = await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObjectStoreError);
    expect((error as Error).message).toContain("PutObject of s3://no-such-bucket/shop/orders/date=2026-01-01/data.parquet failed");
    expect((error as Error).message).toContain("NoSuchBucket");
    expectNoSecrets(inspect(error, { depth: null, showHidden: true }));
    const counts = await dest.partitionRowCounts(ctx(orders, null)).catch((e: unknown) => e);
    expect((counts as Error).message).toContain("ListObjectsV2 of s3://no-such-bucket/shop/orders/ failed");
  });

  it("connects from the standard AWS environment variables alone", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
      AWS_REGION: "us-east-1",
      AWS_ENDPOINT_URL_S3: moto().endpoint,
    });
    try {
      const dest = new S3Destination({ bucket, prefix: `case-${++run}` });
      await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 2));
      expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2 });
    } finally {
      for (const name of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_ENDPOINT_URL_S3"]) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

// Issue 41.9: coverage made two HEAD requests per object (one to count, one more for the
// records staleness reads), whatever the window. Requests counted through the real client.
describe.skipIf(!available)("S3 coverage's requests", () => {
  const bucket = "requests";
  const moto = motoWithBucket(bucket);
  const sent = new Map<string, number>();
  const count = (command: string) => sent.get(command) ?? 0;

  /** An S3Destination whose client counts the commands it sends. */
  class Counting extends S3Destination {
    protected override async connect(connection: S3ConnectionOptions): Promise<S3Handle> {
      const handle = await super.connect(connection);
      handle.client.middlewareStack.add(
        (next, context) => (args) => {
          sent.set(context.commandName!, count(context.commandName!) + 1);
          return next(args);
        },
        { step: "initialize" },
      );
      return handle;
    }
  }

  function project(prefix: string) {
    const daily = new il.TimePartitionConfig({ column: "date", start: "2026-01-01" });
    const orders = il.asset({ key: "orders", partitioning: daily, run: (c) => [{ date: c.partition!.key, n: 1 }] });
    const totals = il.asset({ key: "totals", partitioning: daily, requires: { orders }, run: (c) => [{ date: c.partition!.key, n: 1 }] });
    const destination = new Counting({ bucket, prefix, connection: { ...TEST_CONNECTION, endpoint: moto().endpoint } });
    return {
      destination,
      project: projectOf(
        il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders, totals] })({ destinations: destination })] }),
      ),
    };
  }
  const NOW = new Date("2026-01-11T12:00:00Z");

  it("makes at most one HEAD per object, the records staleness reads included", async () => {
    const { destination, project: p } = project("one-head");
    expect((await il.materialize(p, { window: "2026-01-01..2026-01-10" })).status).toBe("completed");
    sent.clear();
    const [orders, totals] = await coverage(p, undefined, { now: NOW });
    expect([orders!.materialized, totals!.materialized, totals!.stale]).toEqual([10, 10, 0]);
    // 20 data objects, each HEADed once: their metadata holds the count and the record.
    expect(count("HeadObjectCommand")).toBe(20);
    await destination.close();
  });

  it("lists and HEADs only a window's objects when coverage has one, and never an object twice", async () => {
    const { destination, project: p } = project("window");
    expect((await il.materialize(p, { window: "2026-01-01..2026-01-10" })).status).toBe("completed");
    sent.clear();
    const [orders] = await coverage(p, "shop.orders", { now: NOW, window: "2026-01-04..2026-01-05" });
    expect([orders!.expected, orders!.materialized, orders!.rows]).toEqual([2, 2, 2]);
    // Listed from the window's first partition on, to its last: its two objects HEADed, no others.
    expect([count("ListObjectsV2Command"), count("HeadObjectCommand")]).toEqual([1, 2]);
    // An asset another asset of the coverage reads (orders, read by totals) is counted whole, its
    // records coming with the counts: its 10 objects HEADed once each, and totals' 2 of the window.
    sent.clear();
    const [, totals] = await coverage(p, undefined, { now: NOW, window: "2026-01-04..2026-01-05" });
    expect([totals!.expected, totals!.materialized, totals!.stale]).toEqual([2, 2, 0]);
    expect(count("HeadObjectCommand")).toBe(12);
    await destination.close();
  });
});
