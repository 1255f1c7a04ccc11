// The test GCS server holds to Google's documentation of the JSON API, not to what our
// destination sends: it refuses what GCS refuses, in GCS's error shape, and the real client
// (@google-cloud/storage) works against it unchanged, resumable uploads of many chunks included.
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crc32cBase64, type GcsServer, startGcsServer } from "./gcs-server.js";

let server: GcsServer;
let storage: Storage;
const bucket = "faithful";

beforeAll(async () => {
  server = await startGcsServer();
  server.createBucket(bucket);
  storage = new Storage({ apiEndpoint: server.endpoint, projectId: "test" });
});
afterAll(async () => {
  await server?.stop();
});

const api = (path: string, init?: RequestInit) => fetch(`${server.endpoint}${path}`, init);
const objectPath = (name: string, b = bucket) => `/storage/v1/b/${b}/o/${encodeURIComponent(name)}`;

/** The status and body of a failed call, which must have GCS's JSON error shape. */
async function gcsError(response: Response): Promise<{ status: number; message: string; reason: string }> {
  const body = (await response.json()) as {
    error: { code: number; message: string; errors: Array<{ message: string; domain: string; reason: string }> };
  };
  expect(body.error.code).toBe(response.status);
  expect(body.error.errors).toHaveLength(1);
  expect(body.error.errors[0]).toMatchObject({ domain: "global", message: body.error.message });
  return { status: response.status, message: body.error.message, reason: body.error.errors[0]!.reason };
}

/** The HTTP status of a client call's failure. */
async function failure(call: Promise<unknown>): Promise<number | undefined> {
  const error = await call.then(
    () => null,
    (e: unknown) => e as { code?: number },
  );
  expect(error, "the call should have failed").not.toBeNull();
  return error?.code;
}

it("computes CRC32C (Castagnoli) as GCS gives it: big-endian, base64", () => {
  // The check value of CRC-32C is 0xE3069283 for "123456789".
  expect(crc32cBase64(Buffer.from("123456789"))).toBe(Buffer.from([0xe3, 0x06, 0x92, 0x83]).toString("base64"));
  expect(crc32cBase64(Buffer.alloc(0))).toBe("AAAAAA==");
});

describe("refusals", () => {
  it("answers a missing bucket with 404 notFound, for every kind of request", async () => {
    const expected = { status: 404, message: "The specified bucket does not exist.", reason: "notFound" };
    expect(await gcsError(await api("/storage/v1/b/nope/o"))).toEqual(expected);
    expect(await gcsError(await api(objectPath("a", "nope")))).toEqual(expected);
    expect(await gcsError(await api(`${objectPath("a", "nope")}?alt=media`))).toEqual(expected);
    expect(await gcsError(await api("/upload/storage/v1/b/nope/o?uploadType=media&name=a", { method: "POST", body: "x" }))).toEqual(
      expected,
    );
    expect(await gcsError(await api("/upload/storage/v1/b/nope/o?uploadType=resumable&name=a", { method: "POST" }))).toEqual(expected);
    expect(await failure(storage.bucket("nope").getFiles())).toBe(404);
    expect(
      await failure(
        storage
          .bucket("nope")
          .file("a")
          .save("x", { resumable: false, preconditionOpts: { ifGenerationMatch: 0 } }),
      ),
    ).toBe(404);
  });

  it("answers a missing object with 404 'No such object'", async () => {
    expect(await gcsError(await api(objectPath("absent")))).toEqual({
      status: 404,
      message: `No such object: ${bucket}/absent`,
      reason: "notFound",
    });
    expect(await failure(storage.bucket(bucket).file("absent").download())).toBe(404);
    expect(await failure(storage.bucket(bucket).file("absent").delete())).toBe(404);
  });

  it("refuses a page token it did not issue, and a maxResults that is no positive integer, with 400", async () => {
    for (const token of ["bogus", "Zm9vYmFy", "%%%"]) {
      const answer = await gcsError(await api(`/storage/v1/b/${bucket}/o?pageToken=${encodeURIComponent(token)}`));
      expect(answer).toMatchObject({ status: 400, reason: "invalid" });
    }
    expect(await failure(storage.bucket(bucket).getFiles({ pageToken: "bogus", autoPaginate: false }))).toBe(400);
    expect((await gcsError(await api(`/storage/v1/b/${bucket}/o?maxResults=0`))).status).toBe(400);
    expect((await gcsError(await api(`/storage/v1/b/${bucket}/o?maxResults=ten`))).status).toBe(400);
  });

  it("answers an unknown upload session with 404", async () => {
    const answer = await api(`/upload/storage/v1/b/${bucket}/o?uploadType=resumable&upload_id=not-a-session`, {
      method: "PUT",
      headers: { "content-range": "bytes 0-0/1" },
      body: "x",
    });
    expect(await gcsError(answer)).toEqual({ status: 404, message: "No such upload session: not-a-session", reason: "notFound" });
  });

  it("refuses object names GCS does not allow with 400", async () => {
    for (const name of ["a\nb", "a\rb", "x".repeat(1025), "é".repeat(513)]) {
      const answer = await api(`/upload/storage/v1/b/${bucket}/o?uploadType=media&name=${encodeURIComponent(name)}`, {
        method: "POST",
        body: "x",
      });
      expect((await gcsError(answer)).status, JSON.stringify(name.slice(0, 10))).toBe(400);
    }
    expect((await gcsError(await api(`/upload/storage/v1/b/${bucket}/o?uploadType=media`, { method: "POST", body: "x" }))).status).toBe(
      400,
    );
    expect((await gcsError(await api(`/upload/storage/v1/b/${bucket}/o?name=a`, { method: "POST", body: "x" }))).status).toBe(400);
  });

  it("refuses bytes that do not match the X-Goog-Hash sent with them", async () => {
    const answer = await api(`/upload/storage/v1/b/${bucket}/o?uploadType=media&name=hashed`, {
      method: "POST",
      body: "abc",
      headers: { "x-goog-hash": `crc32c=${crc32cBase64(Buffer.from("abd"))}` },
    });
    expect((await gcsError(answer)).status).toBe(400);
    expect(server.objects(bucket).has("hashed")).toBe(false);
  });
});

describe("generation preconditions", () => {
  it("ifGenerationMatch=0 creates only what does not exist; another generation fails with 412 conditionNotMet", async () => {
    const file = storage.bucket(bucket).file("pre/a");
    await file.save("one", { resumable: false, preconditionOpts: { ifGenerationMatch: 0 } });
    const first = server.objects(bucket).get("pre/a")!;
    expect(await failure(file.save("two", { resumable: false, preconditionOpts: { ifGenerationMatch: 0 } }))).toBe(412);
    expect(
      await failure(file.save("two", { resumable: false, preconditionOpts: { ifGenerationMatch: Number(first.generation) + 1 } })),
    ).toBe(412);
    const raw = await api(`/upload/storage/v1/b/${bucket}/o?uploadType=media&name=pre%2Fa&ifGenerationMatch=0`, {
      method: "POST",
      body: "x",
    });
    expect(await gcsError(raw)).toEqual({
      status: 412,
      message: "At least one of the pre-conditions you specified did not hold.",
      reason: "conditionNotMet",
    });
    expect(
      await failure(
        file.save(Buffer.alloc(300 * 1024, 7), { resumable: true, chunkSize: 256 * 1024, preconditionOpts: { ifGenerationMatch: 0 } }),
      ),
    ).toBe(412);
    expect(server.objects(bucket).get("pre/a")!.data.toString()).toBe("one");
    await file.save("two", { resumable: false, preconditionOpts: { ifGenerationMatch: Number(first.generation) } });
    expect(BigInt(server.objects(bucket).get("pre/a")!.generation)).toBeGreaterThan(BigInt(first.generation));
  });

  it("ifGenerationNotMatch fails on the live generation and when there is no live object", async () => {
    const live = server.put(bucket, "pre/b", "x");
    expect((await gcsError(await api(`${objectPath("pre/b")}?ifGenerationNotMatch=${live.generation}`))).status).toBe(412);
    expect((await api(`${objectPath("pre/b")}?ifGenerationNotMatch=1`)).status).toBe(200);
    expect(
      (
        await gcsError(
          await api(`/upload/storage/v1/b/${bucket}/o?uploadType=media&name=pre%2Fnone&ifGenerationNotMatch=1`, {
            method: "POST",
            body: "x",
          }),
        )
      ).status,
    ).toBe(412);
    expect((await gcsError(await api(`${objectPath("pre/b")}?ifGenerationMatch=abc`))).status).toBe(400);
  });

  it("custom metadata: patched by key (null deletes one), each patch a new metageneration that ifMetagenerationMatch checks", async () => {
    const file = storage.bucket(bucket).file("pre/meta");
    await file.save("m", { resumable: false, metadata: { metadata: { a: "1", b: "2" } }, preconditionOpts: { ifGenerationMatch: 0 } });
    const [patched] = await file.setMetadata({ metadata: { a: null, c: "3" } }, { ifMetagenerationMatch: 1 });
    expect(patched.metadata).toEqual({ b: "2", c: "3" });
    expect(patched.metageneration).toBe("2");
    expect(await failure(file.setMetadata({ metadata: { d: "4" } }, { ifMetagenerationMatch: 1 }))).toBe(412);
    const [resource] = await file.getMetadata();
    expect(resource).toMatchObject({
      name: "pre/meta",
      bucket,
      size: "1",
      metageneration: "2",
      metadata: { b: "2", c: "3" },
      crc32c: crc32cBase64(Buffer.from("m")),
    });
    expect(resource.md5Hash).toBe("b49XcVCQ2iYyRTmI2aFQGw==");
  });

  it("deletes only under its preconditions", async () => {
    const live = server.put(bucket, "pre/del", "x");
    expect(
      (await gcsError(await api(`${objectPath("pre/del")}?ifGenerationMatch=${Number(live.generation) + 1}`, { method: "DELETE" }))).status,
    ).toBe(412);
    expect(server.objects(bucket).has("pre/del")).toBe(true);
    expect((await api(`${objectPath("pre/del")}?ifGenerationMatch=${live.generation}`, { method: "DELETE" })).status).toBe(204);
    expect(server.objects(bucket).has("pre/del")).toBe(false);
  });
});

describe("uploads, downloads and listings", () => {
  it("takes a media upload's content type from its header and serves the bytes with their hashes", async () => {
    const answer = await api(`/upload/storage/v1/b/${bucket}/o?uploadType=media&name=media%20one`, {
      method: "POST",
      body: "hello",
      headers: { "content-type": "text/plain" },
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      kind: "storage#object",
      name: "media one",
      contentType: "text/plain",
      size: "5",
      metageneration: "1",
    });
    const media = await api(`${objectPath("media one")}?alt=media`);
    expect(await media.text()).toBe("hello");
    expect(media.headers.get("x-goog-hash")).toBe(`crc32c=${crc32cBase64(Buffer.from("hello"))},md5=XUFAKrxLKna5cZ2REBfFkg==`);
    const [bytes] = await storage.bucket(bucket).file("media one").download();
    expect(bytes.toString()).toBe("hello");
  });

  it("drives a resumable upload of many chunks from the real client, 308 until the last", async () => {
    const data = Buffer.alloc(4 * 256 * 1024 + 10);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) % 251;
    const from = server.requests.length;
    const openBefore = server.openUploads;
    await storage
      .bucket(bucket)
      .file("big/one")
      .save(data, {
        resumable: true,
        chunkSize: 256 * 1024,
        metadata: { metadata: { row_count: "7" } },
        preconditionOpts: { ifGenerationMatch: 0 },
      });
    const sent = server.requests.slice(from);
    expect(sent.map((request) => `${request.method} ${request.status}`)).toEqual([
      "POST 200",
      "PUT 308",
      "PUT 308",
      "PUT 308",
      "PUT 308",
      "PUT 200",
    ]);
    const stored = server.objects(bucket).get("big/one")!;
    expect(stored.data.equals(data)).toBe(true);
    expect(stored.metadata).toEqual({ row_count: "7" });
    const [back] = await storage.bucket(bucket).file("big/one").download();
    expect(back.equals(data)).toBe(true);
    // This upload's session is finished (sessions other tests left open are theirs).
    expect(server.openUploads).toBe(openBefore);
  });

  it("speaks the documented session protocol: status queries, resent bytes, refused chunks, a finished session", async () => {
    const start = await api(`/upload/storage/v1/b/${bucket}/o?uploadType=resumable&name=session`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-upload-content-type": "text/plain" },
      body: JSON.stringify({ metadata: { k: "v" } }),
    });
    expect(start.status).toBe(200);
    const session = start.headers.get("location")!;
    expect(session).toMatch(/upload_id=/);
    const put = (range: string, body?: Buffer) =>
      fetch(session, { method: "PUT", headers: { "content-range": range }, ...(body && { body }) });
    const granule = Buffer.alloc(256 * 1024, 1);

    let answer = await put("bytes */*");
    expect(answer.status).toBe(308);
    expect(answer.headers.get("range")).toBeNull();
    // A non-final chunk that is not a multiple of 256 KiB is refused.
    expect((await gcsError(await put("bytes 0-9/*", Buffer.alloc(10)))).status).toBe(400);
    answer = await put(`bytes 0-${granule.length - 1}/*`, granule);
    expect(answer.status).toBe(308);
    expect(answer.headers.get("range")).toBe(`bytes=0-${granule.length - 1}`);
    // A gap is refused; bytes sent again are ignored.
    expect((await gcsError(await put(`bytes ${granule.length + 5}-${granule.length + 9}/*`, Buffer.alloc(5)))).status).toBe(400);
    answer = await put(`bytes 0-${2 * granule.length - 1}/*`, Buffer.concat([granule, Buffer.alloc(granule.length, 2)]));
    expect(answer.headers.get("range")).toBe(`bytes=0-${2 * granule.length - 1}`);
    answer = await put(`bytes ${2 * granule.length}-${2 * granule.length + 2}/${2 * granule.length + 3}`, Buffer.from("end"));
    expect(answer.status).toBe(200);
    const object = (await answer.json()) as Record<string, unknown>;
    expect(object).toMatchObject({
      name: "session",
      contentType: "text/plain",
      size: String(2 * granule.length + 3),
      metadata: { k: "v" },
    });
    // A finished session answers its object again (a client whose last answer was lost asks so).
    answer = await put(`bytes */${2 * granule.length + 3}`);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Record<string, unknown>)["generation"]).toBe(object["generation"]);
    // Cancelling a session: 499, then it is gone.
    const other = (await api(`/upload/storage/v1/b/${bucket}/o?uploadType=resumable&name=cancelled`, { method: "POST" })).headers.get(
      "location",
    )!;
    expect((await fetch(other, { method: "DELETE" })).status).toBe(499);
    expect((await gcsError(await fetch(other, { method: "PUT", headers: { "content-range": "bytes */*" } }))).status).toBe(404);
  });

  it("checks a resumable session's preconditions when its upload completes", async () => {
    server.put(bucket, "race", "first");
    const session = (
      await api(`/upload/storage/v1/b/${bucket}/o?uploadType=resumable&name=race&ifGenerationMatch=0`, { method: "POST" })
    ).headers.get("location")!;
    expect((await gcsError(await fetch(session, { method: "PUT", headers: { "content-range": "bytes 0-2/3" }, body: "new" }))).status).toBe(
      412,
    );
    expect(server.objects(bucket).get("race")!.data.toString()).toBe("first");
  });

  it("lists by prefix in pages, with common prefixes under a delimiter", async () => {
    for (const name of ["l/a/1", "l/a/2", "l/b", "l/c/1", "l/d", "m/x"]) server.put(bucket, name, name);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = (await (
        await api(`/storage/v1/b/${bucket}/o?prefix=l%2F&maxResults=2${token ? `&pageToken=${token}` : ""}`)
      ).json()) as { items?: Array<{ name: string }>; nextPageToken?: string };
      seen.push(...(page.items ?? []).map((item) => item.name));
      token = page.nextPageToken;
      pages++;
    } while (token);
    expect(seen).toEqual(["l/a/1", "l/a/2", "l/b", "l/c/1", "l/d"]);
    expect(pages).toBe(3);
    const grouped = (await (await api(`/storage/v1/b/${bucket}/o?prefix=l%2F&delimiter=%2F`)).json()) as {
      items: Array<{ name: string }>;
      prefixes: string[];
    };
    expect(grouped.items.map((item) => item.name)).toEqual(["l/b", "l/d"]);
    expect(grouped.prefixes).toEqual(["l/a/", "l/c/"]);
    const [files] = await storage.bucket(bucket).getFiles({ prefix: "l/" });
    expect(files.map((file) => file.name)).toEqual(seen);
  });
});
