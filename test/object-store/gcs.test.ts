// GCSDestination through the real client (@google-cloud/storage) against the JSON API server of
// test/support/gcs-server.ts: layout and metadata, listings of many pages, resumable uploads of
// large objects, generation preconditions under lost responses and concurrent writers, errors.
import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { GCSDestination, ObjectStoreError } from "../../src/destination/index.js";
import { makeTempDir } from "../contract/temp-dir.js";
import { type GcsServer, startGcsServer } from "../support/gcs-server.js";
import { ctx, days, orderRows, orders } from "./helpers.js";

const PRIVATE_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const KEY_BODY = PRIVATE_KEY.split("\n")[5]!;
const EMAIL = "loader-recognisable@example-project.iam.gserviceaccount.com";

function expectNoSecrets(text: string): void {
  expect(text).not.toContain(KEY_BODY);
  expect(text).not.toContain("PRIVATE KEY");
  expect(text).not.toContain(EMAIL);
}

describe("GCSDestination options", () => {
  it("never shows credentials in JSON.stringify, util.inspect or String", () => {
    const dest = new GCSDestination({
      bucket: "b",
      prefix: "p",
      format: "csv",
      connection: { projectId: "proj", credentials: { client_email: EMAIL, private_key: PRIVATE_KEY } },
    });
    const json = JSON.stringify(dest);
    expectNoSecrets(json);
    expect(JSON.parse(json)).toEqual({
      destination: "GCSDestination",
      bucket: "b",
      prefix: "p",
      format: "csv",
      connection: { projectId: "proj", credentials: { client_email: "[redacted]", private_key: "[redacted]" } },
    });
    expectNoSecrets(inspect(dest, { depth: null, showHidden: true }));
    expectNoSecrets(String(dest));
    expect(String(dest)).toBe("GCS");
    expect(dest.location).toBe("gs://b/p");
  });

  it.each([
    [{ bucket: "" }, "GCSDestination: bucket must be a non-empty bucket name"],
    [
      { bucket: "b", connection: { apiEndpoint: "localhost:4443" } },
      'GCSDestination: connection.apiEndpoint has the scheme "localhost:": expected an http(s) URL such as http://127.0.0.1:4443, got "localhost:4443"',
    ],
    [{ bucket: "b", connection: { apiEndpoint: "http://local host" } }, "GCSDestination: connection.apiEndpoint is not a valid URL"],
    [
      { bucket: "b", connection: { keyfilename: "/k.json" } },
      'GCSDestination: connection has no option "keyfilename" (known: projectId, keyFilename, credentials, apiEndpoint)',
    ],
    [{ bucket: "b", connection: { keyFilename: "" } }, 'GCSDestination: connection.keyFilename must be a non-empty string, got string ""'],
    [{ bucket: "b", connection: { projectId: 7 } }, "GCSDestination: connection.projectId must be a non-empty string, got number 7"],
    [
      { bucket: "b", connection: "gs://b" },
      'GCSDestination: connection must be an object with projectId, keyFilename, credentials or apiEndpoint, got string "gs://b"',
    ],
  ])("refuses %j with a one-line ConfigError", (options, message) => {
    const error = (() => {
      try {
        new GCSDestination(options as never);
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toContain(message);
    expect(error!.message).not.toContain("\n");
  });

  it("refuses credentials of the wrong shape without showing them", () => {
    // A key file's text given where its parsed contents belong: it holds the key itself.
    const text = JSON.stringify({ client_email: EMAIL, private_key: PRIVATE_KEY });
    const error = (() => {
      try {
        new GCSDestination({ bucket: "b", connection: { credentials: text as never } });
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toBe(
      "GCSDestination: connection.credentials must be a service account key with client_email and private_key strings (the JSON key file's contents), got a string",
    );
  });
});

/** An upload of data, not of a provenance object (a history entry each write puts after its data). */
const dataUpload = (request: { readonly url: string }) => request.url.startsWith("/upload/") && !request.url.includes(".materializations");

describe("GCSDestination on the test JSON API server", () => {
  let server: GcsServer;
  const bucket = "objects";
  let run = 0;
  const make = (format: "parquet" | "jsonl" | "csv" = "parquet", prefix = `case-${++run}`) =>
    new GCSDestination({ bucket, prefix, format, connection: { projectId: "test", apiEndpoint: server.endpoint } });
  const text = (name: string) => server.objects(bucket).get(name)!.data.toString("utf8");

  beforeAll(async () => {
    server = await startGcsServer({ maxPageSize: 7 });
    server.createBucket(bucket);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("stores each partition under the prefix with row_count metadata and its content type, the partition column left out", async () => {
    const dest = make("jsonl");
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    const name = `${dest.prefix}/shop/orders/date=2026-01-01/data.jsonl`;
    const object = server.objects(bucket).get(name)!;
    expect(object.metadata).toEqual({ row_count: "2", materialization: expect.stringContaining('"rows":2') });
    expect(object.contentType).toBe("application/x-ndjson");
    expect(text(name).split("\n")[0]).toBe('{"id":1,"amount":9.5,"paid":true,"note":"first","at":"2026-01-01T08:00:00.000Z","tags":["a"]}');
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-02")))).toEqual(orderRows());
    // Without a key, a custom endpoint gets no Authorization header (an emulator wants none).
    expect(server.requests.every((request) => request.authorization === undefined)).toBe(true);
  });

  it("sends no unconditional upload: each carries ifGenerationMatch, 0 for a new object", async () => {
    const dest = make("csv");
    const from = server.requests.length;
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1));
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 2));
    const uploads = server.requests.slice(from).filter(dataUpload);
    expect(uploads.map((request) => new URL(request.url, server.endpoint).searchParams.get("ifGenerationMatch"))).toEqual([
      "0",
      expect.stringMatching(/^[1-9]\d*$/),
    ]);
    expect(uploads.map((request) => new URL(request.url, server.endpoint).searchParams.get("uploadType"))).toEqual([
      "multipart",
      "multipart",
    ]);
  });

  it("counts rows from metadata alone: corrupt bytes that keep row_count still count", async () => {
    const dest = make();
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-02")), orderRows());
    server.put(bucket, `${dest.prefix}/shop/orders/date=2026-01-01/data.parquet`, "garbage", { row_count: "2" });
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2, "2026-01-02": 1 });
  });

  it("downloads and counts an object another tool wrote without row_count", async () => {
    const dest = make("csv");
    server.put(bucket, `${dest.prefix}/shop/orders/date=2026-02-01/data.csv`, 'id,note\n1,a\n2,"multi\nline"\n', {}, "text/csv");
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1));
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1, "2026-02-01": 2 });
  });

  it("lists a table of many pages through page tokens", async () => {
    const dest = make("csv");
    const window = days("2026-01-01", "2026-01-20");
    const rows = window.partitions.map((partition, i) => ({ date: partition.key, id: i }));
    await dest.write(ctx(orders, window, null), rows);
    const from = server.requests.length;
    const counts = await dest.partitionRowCounts(ctx(orders, null));
    expect(Object.keys(counts)).toEqual(window.partitions.map((partition) => partition.key));
    expect(Object.values(counts).every((count) => count === 1)).toBe(true);
    const lists = server.requests.slice(from).filter((request) => request.method === "GET" && /\/o\?/.test(request.url));
    // 20 objects, 7 a page: three pages, the last two asked for with a token.
    expect(lists).toHaveLength(3);
    expect(lists.filter((request) => request.url.includes("pageToken="))).toHaveLength(2);
  });

  it("uploads a large partition as a resumable upload in several chunks, and reads it back whole", async () => {
    const dest = make("csv");
    const filler = "x".repeat(2000);
    const rows = Array.from({ length: 9_000 }, (_, i) => ({ date: "2026-03-01", id: i, note: `${i}:${filler}` }));
    const from = server.requests.length;
    await dest.write(ctx(orders, days("2026-03-01", "2026-03-01"), null), rows);
    const name = `${dest.prefix}/shop/orders/date=2026-03-01/data.csv`;
    const size = server.objects(bucket).get(name)!.data.length;
    expect(size).toBeGreaterThan(16 * 1024 * 1024);
    const sent = server.requests.slice(from).filter(dataUpload);
    expect(sent[0]).toMatchObject({ method: "POST", status: 200 });
    expect(sent[0]!.url).toContain("uploadType=resumable");
    expect(sent[0]!.url).toContain("ifGenerationMatch=0");
    const chunks = sent.slice(1);
    expect(chunks.length).toBe(Math.ceil(size / (8 * 1024 * 1024)));
    expect(chunks.map((request) => request.status)).toEqual([...chunks.slice(1).map(() => 308), 200]);
    expect(server.openUploads).toBe(0);
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-03-01": 9_000 });
    const back = (await dest.read(ctx(orders, days("2026-03-01", "2026-03-01"), null))) as Array<Record<string, unknown>>;
    expect(back).toHaveLength(9_000);
    expect(back[8_999]).toEqual({ date: "2026-03-01", id: "8999", note: `8999:${filler}` });
  }, 60_000);

  it("retries an upload whose response was lost, and takes the 412 of its own landed write as done", async () => {
    const dest = make("jsonl");
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1));
    const from = server.requests.length;
    server.dropResponse((method, url) => method === "POST" && url.pathname.startsWith("/upload/"));
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 2));
    // The first upload landed unanswered (the log holds answered requests only); the client's
    // retry met that very generation: 412, taken as done since the object holds these bytes.
    expect(
      server.requests
        .slice(from)
        .filter(dataUpload)
        .map((request) => request.status),
    ).toEqual([412]);
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-01")))).toEqual(orderRows().slice(0, 2));
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2 });
  });

  it("writes again over another writer that replaced the object meanwhile: the last writer wins, as on S3", async () => {
    const dest = make("jsonl");
    const name = `${dest.prefix}/shop/orders/date=2026-01-01/data.jsonl`;
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1));
    const from = server.requests.length;
    server.beforeCommit((b, n) => server.put(b, n, '{"id":99}\n', { row_count: "1" }, "application/x-ndjson"));
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 2));
    expect(server.requests.slice(from).filter((request) => request.status === 412)).toHaveLength(1);
    expect(server.objects(bucket).get(name)!.metadata).toEqual({ row_count: "2", materialization: expect.stringContaining('"rows":2') });
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-01")))).toEqual(orderRows().slice(0, 2));
  });

  it("reads and counts an object name with spaces, plus signs, percent signs and non-ASCII text", async () => {
    const dest = make("jsonl", `odd name+plus %41/ünï`);
    await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 2));
    expect([...server.objects(bucket).keys()]).toContain("odd name+plus %41/ünï/shop/orders/date=2026-01-01/data.jsonl");
    expect(await dest.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 2 });
    expect(await dest.read(ctx(orders, days("2026-01-01", "2026-01-01")))).toEqual(orderRows().slice(0, 2));
  });

  it("wraps a missing bucket as one-line ObjectStoreErrors naming the operation and object, never as missing data", async () => {
    const dest = new GCSDestination({ bucket: "no-such-bucket", connection: { apiEndpoint: server.endpoint } });
    const write = await dest.write(ctx(orders, days("2026-01-01", "2026-01-01")), orderRows().slice(0, 1)).catch((e: unknown) => e);
    expect(write).toBeInstanceOf(ObjectStoreError);
    expect((write as Error).message).toBe(
      "GCSDestination: objects.insert of gs://no-such-bucket/shop/orders/date=2026-01-01/data.parquet failed: HTTP 404: The specified bucket does not exist.",
    );
    const read = await dest.read(ctx(orders, days("2026-01-01", "2026-01-01"))).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(ObjectStoreError);
    expect((read as Error).message).toBe(
      "GCSDestination: objects.get of gs://no-such-bucket/shop/orders/date=2026-01-01/data.parquet failed: HTTP 404: The specified bucket does not exist.",
    );
    const counts = await dest.partitionRowCounts(ctx(orders, null)).catch((e: unknown) => e);
    expect((counts as Error).message).toBe(
      "GCSDestination: objects.list of gs://no-such-bucket/shop/orders/ failed: HTTP 404: The specified bucket does not exist.",
    );
  });

  it("with a key file beside a custom endpoint, signs with it before any request; a key that cannot sign fails locally, never shown", async () => {
    const dir = await makeTempDir();
    try {
      // A key that is no key: signing the token request fails here, before anything goes out
      // (a valid key would next ask Google's token endpoint, which no test may reach).
      const broken = `-----BEGIN PRIVATE KEY-----\n${KEY_BODY}\n-----END PRIVATE KEY-----\n`;
      const keyFilename = join(dir.path, "key.json");
      await writeFile(
        keyFilename,
        JSON.stringify({ type: "service_account", project_id: "p", client_email: EMAIL, private_key: broken, private_key_id: "k1" }),
      );
      const from = server.requests.length;
      for (const connection of [{ keyFilename }, { credentials: { client_email: EMAIL, private_key: broken } }]) {
        const dest = new GCSDestination({ bucket, connection: { ...connection, apiEndpoint: server.endpoint } });
        const error = await dest.read(ctx(orders, days("2026-01-01", "2026-01-01"))).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ObjectStoreError);
        expect((error as Error).message).toMatch(
          /^GCSDestination: objects\.get of gs:\/\/objects\/shop\/orders\/date=2026-01-01\/data\.parquet failed: /,
        );
        expect((error as Error).message).not.toContain("\n");
        expectNoSecrets(inspect(error, { depth: null, showHidden: true }));
      }
      // Nothing reached the server unsigned.
      expect(server.requests.slice(from)).toEqual([]);
    } finally {
      await dir.remove();
    }
  });

  it("names a key file that does not exist", async () => {
    const dest = new GCSDestination({
      bucket,
      connection: { keyFilename: "/nonexistent/interloper-key.json", apiEndpoint: server.endpoint },
    });
    const error = await dest.read(ctx(orders, days("2026-01-01", "2026-01-01"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObjectStoreError);
    expect((error as Error).message).toMatch(
      /^GCSDestination: objects\.get of gs:\/\/objects\/.* failed: .*\/nonexistent\/interloper-key\.json/,
    );
    expect((error as Error).message).not.toContain("\n");
  });
});
