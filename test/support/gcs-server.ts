// A Google Cloud Storage server for the tests: the subset of the JSON API (v1) that object
// stores use, on 127.0.0.1, written from Google's documentation of that API
// (cloud.google.com/storage/docs/json_api/v1, .../uploading-objects, .../resumable-uploads,
// .../request-preconditions) rather than from what our destination happens to send. No GCS
// server runs offline on these machines, so the real client (@google-cloud/storage) is pointed
// at this one through its `apiEndpoint`.
//
// What it serves:
//   GET    /storage/v1/b/{bucket}/o                    objects.list: prefix, delimiter, pageToken, maxResults
//   GET    /storage/v1/b/{bucket}/o/{object}           objects.get: the resource, or the bytes with alt=media
//   GET    /download/storage/v1/b/{bucket}/o/{object}  the same bytes (the download endpoint)
//   PATCH  /storage/v1/b/{bucket}/o/{object}           objects.patch: custom metadata, content type
//   DELETE /storage/v1/b/{bucket}/o/{object}           objects.delete
//   POST   /upload/storage/v1/b/{bucket}/o             objects.insert: uploadType=media, multipart or resumable
//   PUT    /upload/storage/v1/b/{bucket}/o?upload_id=  a resumable session's chunks and status queries
//   DELETE /upload/storage/v1/b/{bucket}/o?upload_id=  cancels a session (499)
// Every request that names an object takes the generation preconditions ifGenerationMatch,
// ifGenerationNotMatch, ifMetagenerationMatch and ifMetagenerationNotMatch (412 when one does not
// hold). It rejects what GCS rejects: a missing bucket or object (404), a bad page token or
// parameter (400), an unknown upload session (404), an object name GCS does not allow (400), a
// chunk that does not continue the session (400), a wrong X-Goog-Hash (400). Errors have GCS's
// JSON shape: {"error":{"code","message","errors":[{"message","domain","reason"}]}}.
// Buckets are made by the test (createBucket), not through the API. No auth is checked: the
// client sends none to a custom endpoint.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A live object: one generation of it (this server keeps no noncurrent versions). */
export interface GcsObject {
  readonly name: string;
  readonly generation: string;
  readonly metageneration: string;
  readonly contentType: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly data: Buffer;
  /** The data's MD5 and CRC32C in base64, as GCS gives them. */
  readonly md5Hash: string;
  readonly crc32c: string;
  readonly timeCreated: string;
  readonly updated: string;
}

/** Every request the server answered, for tests that check what the client sent. */
export interface GcsRequestLog {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly authorization: string | undefined;
}

/** Options of the server. */
export interface GcsServerOptions {
  /**
   * The most items a list page holds, below what `maxResults` asks (1000 by default). GCS may
   * return fewer results than asked ("the next page may be empty"): a small page makes a short
   * listing take several pages and page tokens.
   */
  readonly maxPageSize?: number;
}

export interface GcsServer {
  /** The `apiEndpoint` to give the client: `http://127.0.0.1:PORT`. */
  readonly endpoint: string;
  createBucket(name: string): void;
  /** Stores an object directly, as another writer would (a new generation, no preconditions). */
  put(bucket: string, name: string, data: string | Uint8Array, metadata?: Record<string, string>, contentType?: string): GcsObject;
  /**
   * Faults, each for the next request that matches: `dropResponse` does the request's work, then
   * cuts the connection instead of answering (a response lost on the way); `beforeCommit` runs
   * just before the next upload makes an object live (another writer getting in between).
   */
  dropResponse(matches: (method: string, url: URL) => boolean): void;
  beforeCommit(run: (bucket: string, name: string) => void): void;
  /** The live objects of a bucket, by name (for assertions). */
  objects(bucket: string): ReadonlyMap<string, GcsObject>;
  /** Open resumable sessions. */
  readonly openUploads: number;
  readonly requests: readonly GcsRequestLog[];
  stop(): Promise<void>;
}

const CHUNK_GRANULE = 256 * 1024;
const MAX_RESULTS = 1000;
const MAX_NAME_BYTES = 1024;
const MAX_METADATA_BYTES = 8 * 1024;
const TOKEN_MARK = "gcs-test-page:";

interface Upload {
  readonly bucket: string;
  readonly name: string;
  readonly contentType: string;
  readonly metadata: Record<string, string>;
  readonly preconditions: URLSearchParams;
  readonly declaredLength: number | null;
  received: Buffer[];
  size: number;
  done: GcsObject | null;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

const notFoundBucket = () => new HttpError(404, "The specified bucket does not exist.", "notFound");
const invalid = (message: string) => new HttpError(400, message, "invalid");

export async function startGcsServer(options: GcsServerOptions = {}): Promise<GcsServer> {
  const pageSize = Math.min(options.maxPageSize ?? MAX_RESULTS, MAX_RESULTS);
  let dropNext: ((method: string, url: URL) => boolean) | null = null;
  let beforeNextCommit: ((bucket: string, name: string) => void) | null = null;
  const buckets = new Map<string, Map<string, GcsObject>>();
  const uploads = new Map<string, Upload>();
  const requests: GcsRequestLog[] = [];
  let lastGeneration = 0;
  let endpoint = "";

  // GCS generations are microsecond timestamps; here they only have to grow.
  const nextGeneration = (): string => {
    lastGeneration = Math.max(lastGeneration + 1, Date.now() * 1000);
    return String(lastGeneration);
  };

  const bucketOf = (name: string): Map<string, GcsObject> => {
    const bucket = buckets.get(name);
    if (!bucket) throw notFoundBucket();
    return bucket;
  };

  const resource = (bucket: string, object: GcsObject): Record<string, unknown> => {
    const path = `b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(object.name)}`;
    return {
      kind: "storage#object",
      id: `${bucket}/${object.name}/${object.generation}`,
      selfLink: `${endpoint}/storage/v1/${path}`,
      mediaLink: `${endpoint}/download/storage/v1/${path}?generation=${object.generation}&alt=media`,
      name: object.name,
      bucket,
      generation: object.generation,
      metageneration: object.metageneration,
      contentType: object.contentType,
      storageClass: "STANDARD",
      size: String(object.data.length),
      md5Hash: object.md5Hash,
      crc32c: object.crc32c,
      etag: createHash("sha1").update(`${object.generation}/${object.metageneration}`).digest("base64").slice(0, 14),
      timeCreated: object.timeCreated,
      updated: object.updated,
      timeStorageClassUpdated: object.timeCreated,
      ...(Object.keys(object.metadata).length > 0 && { metadata: { ...object.metadata } }),
    };
  };

  /** Stores a new generation of an object, if the preconditions hold against the live one. */
  const insert = (
    bucketName: string,
    name: string,
    data: Buffer,
    contentType: string,
    metadata: Record<string, string>,
    preconditions: URLSearchParams,
  ): GcsObject => {
    const bucket = bucketOf(bucketName);
    const hook = beforeNextCommit;
    beforeNextCommit = null;
    hook?.(bucketName, name);
    checkPreconditions(bucket.get(name), preconditions);
    const now = new Date().toISOString();
    const hashes = { md5Hash: md5(data), crc32c: crc32cBase64(data) };
    const object: GcsObject = {
      name,
      generation: nextGeneration(),
      metageneration: "1",
      contentType,
      metadata,
      data,
      ...hashes,
      timeCreated: now,
      updated: now,
    };
    bucket.set(name, object);
    return object;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", endpoint);
    const query = url.searchParams;
    const method = request.method ?? "GET";
    const route = matchRoute(url.pathname);
    if (!route) throw new HttpError(404, `Not Found: ${url.pathname}`, "notFound");

    if (route.kind === "upload") {
      const uploadId = query.get("upload_id");
      if (uploadId !== null) {
        const upload = uploads.get(uploadId);
        if (!upload || upload.bucket !== route.bucket) throw new HttpError(404, `No such upload session: ${uploadId}`, "notFound");
        if (method === "DELETE") {
          uploads.delete(uploadId);
          response.writeHead(499, { "content-length": "0" }).end();
          return;
        }
        if (method !== "PUT" && method !== "POST")
          throw new HttpError(405, `Method ${method} is not allowed on an upload session`, "methodNotAllowed");
        return continueUpload(upload, request, response);
      }
      if (method !== "POST") throw new HttpError(405, `Method ${method} is not allowed here`, "methodNotAllowed");
      return startUpload(route.bucket, request, response, query);
    }

    if (route.kind === "list") {
      if (method !== "GET") throw new HttpError(405, `Method ${method} is not allowed here`, "methodNotAllowed");
      return sendJson(response, 200, list(route.bucket, query));
    }

    // One object.
    const bucket = bucketOf(route.bucket);
    const live = bucket.get(route.object);
    const generation = query.get("generation");
    if (generation !== null) checkInteger("generation", generation);
    const missing = () => new HttpError(404, `No such object: ${route.bucket}/${route.object}`, "notFound");
    if (!live || (generation !== null && generation !== live.generation)) throw missing();
    checkPreconditions(live, query);

    if (method === "GET" || method === "HEAD") {
      if (route.kind === "download" || query.get("alt") === "media") return sendMedia(response, live, method === "HEAD");
      return sendJson(response, 200, resource(route.bucket, live));
    }
    if (method === "DELETE") {
      bucket.delete(route.object);
      response.writeHead(204).end();
      return;
    }
    if (method === "PATCH" && route.kind === "object") {
      const body = parseJson(await readBody(request));
      const metadata = { ...live.metadata };
      const patch = body["metadata"];
      if (patch !== undefined && patch !== null) {
        if (typeof patch !== "object" || Array.isArray(patch)) throw invalid("Invalid value for metadata: expected an object");
        for (const [key, value] of Object.entries(patch)) {
          if (value === null) delete metadata[key];
          else metadata[key] = String(value);
        }
      } else if (patch === null) {
        for (const key of Object.keys(metadata)) delete metadata[key];
      }
      checkMetadataSize(metadata);
      const contentType = typeof body["contentType"] === "string" ? body["contentType"] : live.contentType;
      const patched: GcsObject = {
        ...live,
        metadata,
        contentType,
        metageneration: String(Number(live.metageneration) + 1),
        updated: new Date().toISOString(),
      };
      bucket.set(route.object, patched);
      return sendJson(response, 200, resource(route.bucket, patched));
    }
    throw new HttpError(405, `Method ${method} is not allowed on an object`, "methodNotAllowed");
  };

  const list = (bucketName: string, query: URLSearchParams): Record<string, unknown> => {
    const bucket = bucketOf(bucketName);
    const prefix = query.get("prefix") ?? "";
    const delimiter = query.get("delimiter") ?? "";
    let maxResults = pageSize;
    const asked = query.get("maxResults");
    if (asked !== null) {
      if (!/^\d+$/.test(asked) || Number(asked) < 1) throw invalid(`Invalid value for maxResults: ${asked}`);
      maxResults = Math.min(Number(asked), pageSize);
    }
    const token = query.get("pageToken");
    const after = token === null || token === "" ? null : decodePageToken(token);
    const names = [...bucket.keys()].filter((name) => name.startsWith(prefix)).sort(compareBytes);
    const items: GcsObject[] = [];
    const prefixes = new Set<string>();
    let last: string | null = null;
    let more = false;
    for (const name of names) {
      // An entry is the object itself or the common prefix it falls under (with a delimiter).
      const cut = delimiter === "" ? -1 : name.indexOf(delimiter, prefix.length);
      const entry = cut < 0 ? name : name.slice(0, cut + delimiter.length);
      if (after !== null && compareBytes(entry, after) <= 0) continue;
      if (cut >= 0 && prefixes.has(entry)) continue;
      if (items.length + prefixes.size === maxResults) {
        more = true;
        break;
      }
      if (cut < 0) items.push(bucket.get(name)!);
      else prefixes.add(entry);
      last = entry;
    }
    return {
      kind: "storage#objects",
      ...(more && last !== null && { nextPageToken: encodePageToken(last) }),
      ...(prefixes.size > 0 && { prefixes: [...prefixes] }),
      ...(items.length > 0 && { items: items.map((object) => resource(bucketName, object)) }),
    };
  };

  const startUpload = async (
    bucketName: string,
    request: IncomingMessage,
    response: ServerResponse,
    query: URLSearchParams,
  ): Promise<void> => {
    const type = query.get("uploadType");
    if (type === null) throw invalid("Upload requests must include an uploadType URL parameter and a URL specified for /upload/.");
    if (type !== "media" && type !== "multipart" && type !== "resumable") throw invalid(`Invalid upload type: ${type}`);
    bucketOf(bucketName);
    for (const name of ["ifGenerationMatch", "ifGenerationNotMatch", "ifMetagenerationMatch", "ifMetagenerationNotMatch"]) {
      const value = query.get(name);
      if (value !== null) checkInteger(name, value);
    }
    const body = await readBody(request);

    if (type === "media") {
      const name = objectName(query.get("name"));
      checkHash(headerOf(request, "x-goog-hash"), body);
      const object = insert(bucketName, name, body, headerOf(request, "content-type") ?? "application/octet-stream", {}, query);
      return sendJson(response, 200, resource(bucketName, object));
    }
    if (type === "multipart") {
      const [first, second] = multipartParts(headerOf(request, "content-type"), body);
      const meta = parseJson(first.body);
      const name = objectName(stringField(meta, "name") ?? query.get("name"));
      const contentType = stringField(meta, "contentType") ?? second.contentType ?? "application/octet-stream";
      checkHash(headerOf(request, "x-goog-hash"), second.body);
      checkMd5AndCrc(meta, second.body);
      const object = insert(bucketName, name, second.body, contentType, customMetadata(meta), query);
      return sendJson(response, 200, resource(bucketName, object));
    }
    // Resumable: the session takes its metadata now and its bytes later.
    const meta = body.length > 0 ? parseJson(body) : {};
    const name = objectName(stringField(meta, "name") ?? query.get("name"));
    const contentType = stringField(meta, "contentType") ?? headerOf(request, "x-upload-content-type") ?? "application/octet-stream";
    const declared = headerOf(request, "x-upload-content-length");
    if (declared !== undefined) checkInteger("X-Upload-Content-Length", declared);
    const uploadId = randomBytes(18).toString("base64url");
    uploads.set(uploadId, {
      bucket: bucketName,
      name,
      contentType,
      metadata: customMetadata(meta),
      preconditions: new URLSearchParams(query),
      declaredLength: declared === undefined ? null : Number(declared),
      received: [],
      size: 0,
      done: null,
    });
    const location = `${endpoint}/upload/storage/v1/b/${encodeURIComponent(bucketName)}/o?uploadType=resumable&name=${encodeURIComponent(name)}&upload_id=${uploadId}`;
    response.writeHead(200, { location, "content-length": "0" }).end();
  };

  /**
   * One PUT to a session: a chunk (`bytes a-b/total` or `bytes a-b/*`), the rest in one go
   * (`bytes a-* /total`), or a status query (`bytes * /total` or `bytes * /*`, no body). An
   * incomplete session answers 308 with the Range it has persisted; the final request answers the
   * object's resource, and so does any later request to the finished session.
   */
  const continueUpload = async (upload: Upload, request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readBody(request);
    if (upload.done) return sendJson(response, 200, resource(upload.bucket, upload.done));
    const range = parseContentRange(headerOf(request, "content-range"));
    const finish = (): Promise<void> | void => {
      const data = Buffer.concat(upload.received, upload.size);
      checkHash(headerOf(request, "x-goog-hash"), data);
      if (upload.declaredLength !== null && upload.declaredLength !== data.length) {
        throw invalid(`The upload declared X-Upload-Content-Length ${upload.declaredLength} but sent ${data.length} bytes`);
      }
      const object = insert(upload.bucket, upload.name, data, upload.contentType, upload.metadata, upload.preconditions);
      // A finished session stays: it answers any later request with its object, as GCS's do
      // (a client whose final response was lost asks again).
      upload.done = object;
      upload.received = [];
      return sendJson(response, 200, resource(upload.bucket, object));
    };
    const incomplete = () => {
      const headers: Record<string, string> = { "content-length": "0" };
      if (upload.size > 0) headers["range"] = `bytes=0-${upload.size - 1}`;
      response.writeHead(308, headers).end();
    };

    if (range.first === null) {
      if (body.length > 0) throw invalid("A status query (Content-Range: bytes */...) carries no bytes");
      if (range.total !== null && range.total === upload.size) return finish();
      if (range.total !== null && range.total < upload.size)
        throw invalid(`The total ${range.total} is less than the ${upload.size} bytes already received`);
      return incomplete();
    }
    const last = range.last ?? range.first + body.length - 1;
    if (range.last !== null && range.last - range.first + 1 !== body.length) {
      throw invalid(
        `Content-Range bytes ${range.first}-${range.last} names ${range.last - range.first + 1} bytes, but the request carried ${body.length}`,
      );
    }
    if (range.first > upload.size) throw invalid(`The chunk starts at byte ${range.first}, but only ${upload.size} bytes were received`);
    const final = range.last === null || (range.total !== null && last + 1 === range.total);
    if (range.total !== null && last + 1 > range.total) throw invalid(`The chunk ends at byte ${last}, past the total ${range.total}`);
    if (!final && body.length % CHUNK_GRANULE !== 0) {
      throw invalid(
        `Invalid request. The number of bytes uploaded is required to be a multiple of ${CHUNK_GRANULE}, except for the final request. The received request contained ${body.length} bytes.`,
      );
    }
    // Bytes resent from before the persisted offset are ignored, as GCS does.
    const fresh = body.subarray(upload.size - range.first);
    if (fresh.length > 0) {
      upload.received.push(fresh);
      upload.size += fresh.length;
    }
    if (final) return finish();
    return incomplete();
  };

  const server = createServer((request, response) => {
    if (dropNext?.(request.method ?? "", new URL(request.url ?? "/", endpoint))) {
      dropNext = null;
      // The work is done; the answer never arrives.
      response.writeHead = (() => response) as typeof response.writeHead;
      response.end = (() => {
        request.socket.destroy();
        return response;
      }) as typeof response.end;
    }
    const log = () =>
      requests.push({
        method: request.method ?? "",
        url: request.url ?? "",
        status: response.statusCode,
        authorization: headerOf(request, "authorization"),
      });
    response.once("finish", log);
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const known =
        error instanceof HttpError
          ? error
          : new HttpError(500, `Internal error: ${(error as Error)?.message ?? String(error)}`, "backendError");
      // The body is drained first: a client still sending would otherwise see a reset.
      request.resume();
      sendJson(response, known.status, {
        error: { code: known.status, message: known.message, errors: [{ message: known.message, domain: "global", reason: known.reason }] },
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    endpoint,
    createBucket: (name) => {
      if (!buckets.has(name)) buckets.set(name, new Map());
    },
    objects: (name) => bucketOf(name),
    put: (bucket, name, data, metadata = {}, contentType = "application/octet-stream") =>
      insert(bucket, objectName(name), Buffer.from(data), contentType, { ...metadata }, new URLSearchParams()),
    dropResponse: (matches) => {
      dropNext = matches;
    },
    beforeCommit: (run) => {
      beforeNextCommit = run;
    },
    get openUploads() {
      return [...uploads.values()].filter((upload) => upload.done === null).length;
    },
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Route =
  { kind: "list"; bucket: string } | { kind: "upload"; bucket: string } | { kind: "object" | "download"; bucket: string; object: string };

function matchRoute(pathname: string): Route | null {
  const match = /^\/(storage|upload\/storage|download\/storage)\/v1\/b\/([^/]+)\/o(?:\/(.+))?$/.exec(pathname);
  if (!match) return null;
  const [, base, rawBucket, rawObject] = match;
  const bucket = decodePath(rawBucket!);
  if (base === "upload/storage") return rawObject === undefined ? { kind: "upload", bucket } : null;
  if (rawObject === undefined) return base === "storage" ? { kind: "list", bucket } : null;
  return { kind: base === "storage" ? "object" : "download", bucket, object: objectName(decodePath(rawObject)) };
}

function decodePath(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalid(`Invalid percent-encoding in the path: ${segment}`);
  }
}

/** An object name as GCS allows it: 1 to 1024 bytes of UTF-8, no carriage return or line feed. */
function objectName(name: string | null | undefined): string {
  if (name === null || name === undefined || name === "") throw new HttpError(400, "Required", "required");
  if (Buffer.byteLength(name, "utf8") > MAX_NAME_BYTES) throw invalid("The object name is longer than 1024 bytes");
  if (/[\r\n]/.test(name)) throw invalid("Object names cannot contain carriage return or line feed characters");
  if (name.includes("\uFFFD") || name.isWellFormed?.() === false) throw invalid("The object name is not valid UTF-8");
  if (name === "." || name === "..") throw invalid(`The object name cannot be ${name}`);
  return name;
}

function checkInteger(name: string, value: string): void {
  if (!/^-?\d+$/.test(value)) throw invalid(`Invalid value for ${name}: ${value}`);
}

/**
 * The generation and metageneration preconditions against the live object (undefined: none).
 * ifGenerationMatch=0 holds only when there is no live object; ifGenerationNotMatch fails when
 * there is none; the metageneration ones fail when there is none.
 */
function checkPreconditions(live: GcsObject | undefined, query: URLSearchParams): void {
  const failed = () => new HttpError(412, "At least one of the pre-conditions you specified did not hold.", "conditionNotMet");
  const value = (name: string): string | null => {
    const given = query.get(name);
    if (given !== null) checkInteger(name, given);
    return given === null ? null : String(BigInt(given));
  };
  const generationMatch = value("ifGenerationMatch");
  const generationNotMatch = value("ifGenerationNotMatch");
  const metagenerationMatch = value("ifMetagenerationMatch");
  const metagenerationNotMatch = value("ifMetagenerationNotMatch");
  if (generationMatch !== null && (live ? live.generation !== generationMatch : generationMatch !== "0")) throw failed();
  if (generationNotMatch !== null && (!live || live.generation === generationNotMatch)) throw failed();
  if (metagenerationMatch !== null && (!live || live.metageneration !== metagenerationMatch)) throw failed();
  if (metagenerationNotMatch !== null && (!live || live.metageneration === metagenerationNotMatch)) throw failed();
}

function customMetadata(resource: Record<string, unknown>): Record<string, string> {
  const given = resource["metadata"];
  if (given === undefined || given === null) return {};
  if (typeof given !== "object" || Array.isArray(given)) throw invalid("Invalid value for metadata: expected an object");
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) if (value !== null) out[key] = String(value);
  checkMetadataSize(out);
  return out;
}

function checkMetadataSize(metadata: Record<string, string>): void {
  const bytes = Object.entries(metadata).reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0);
  if (bytes > MAX_METADATA_BYTES) throw invalid(`Custom metadata is ${bytes} bytes; the limit is ${MAX_METADATA_BYTES}`);
}

function stringField(resource: Record<string, unknown>, name: string): string | undefined {
  const value = resource[name];
  return typeof value === "string" ? value : undefined;
}

/** Page tokens are opaque to clients; anything this server did not issue is refused. */
function encodePageToken(after: string): string {
  return Buffer.from(TOKEN_MARK + after, "utf8").toString("base64url");
}

function decodePageToken(token: string): string {
  const text = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, "base64url").toString("utf8") : "";
  if (!text.startsWith(TOKEN_MARK)) throw invalid("Invalid argument: the page token is not valid");
  return text.slice(TOKEN_MARK.length);
}

/** GCS lists names in the byte order of their UTF-8. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

interface ContentRange {
  readonly first: number | null;
  readonly last: number | null;
  readonly total: number | null;
}

/** `bytes a-b/total`, `bytes a-b/*`, `bytes a-* /total`, `bytes * /total`, `bytes * /*`. */
function parseContentRange(header: string | undefined): ContentRange {
  // A PUT without Content-Range sends the whole object at once.
  if (header === undefined) return { first: 0, last: null, total: null };
  const match = /^bytes (?:(\d+)-(\d+|\*)|\*)\/(\d+|\*)$/.exec(header.trim());
  if (!match) throw invalid(`Failed to parse Content-Range header: ${header}`);
  const [, first, last, total] = match;
  const range = {
    first: first === undefined ? null : Number(first),
    last: last === undefined || last === "*" ? null : Number(last),
    total: total === "*" ? null : Number(total),
  };
  if (range.first !== null && range.last !== null && range.last < range.first)
    throw invalid(`Content-Range ${header} ends before it starts`);
  return range;
}

interface Part {
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

/** The two parts of a multipart/related upload: the resource as JSON, then the bytes. */
function multipartParts(contentType: string | undefined, body: Buffer): [Part, Part] {
  const boundary = /^multipart\/related;.*\bboundary="?([^";]+)"?/i.exec(contentType ?? "")?.[1];
  if (!boundary) throw invalid(`A multipart upload needs Content-Type multipart/related with a boundary, got ${contentType ?? "none"}`);
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) throw invalid("The multipart body is not terminated by its closing boundary");
    // Each part: CRLF, headers, blank line, content, CRLF before the next boundary.
    const part = body.subarray(start + 2, body[next - 2] === 0x0d && body[next - 1] === 0x0a ? next - 2 : next);
    const split = part.indexOf("\r\n\r\n");
    if (split < 0) throw invalid("A multipart part has no header section");
    const headers = part.subarray(0, split).toString("utf8");
    parts.push({ contentType: /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim(), body: part.subarray(split + 4) });
    at = next;
  }
  if (parts.length !== 2) throw invalid(`A multipart upload has two parts (metadata, media), got ${parts.length}`);
  return [parts[0]!, parts[1]!];
}

/** An X-Goog-Hash header (`crc32c=...,md5=...`) the bytes must match: 400 otherwise. */
function checkHash(header: string | undefined, data: Buffer): void {
  if (!header) return;
  for (const pair of header.split(",")) {
    const at = pair.indexOf("=");
    const [kind, value] = [pair.slice(0, at).trim().toLowerCase(), pair.slice(at + 1).trim()];
    if (kind === "crc32c" && value !== crc32cBase64(data))
      throw invalid(`Provided CRC32C "${value}" doesn't match calculated CRC32C "${crc32cBase64(data)}".`);
    if (kind === "md5" && value !== md5(data))
      throw invalid(`Provided MD5 hash "${value}" doesn't match calculated MD5 hash "${md5(data)}".`);
  }
}

/** The md5Hash and crc32c of a multipart upload's resource, when given, must match too. */
function checkMd5AndCrc(resource: Record<string, unknown>, data: Buffer): void {
  const crc = stringField(resource, "crc32c");
  const hash = stringField(resource, "md5Hash");
  checkHash([crc && `crc32c=${crc}`, hash && `md5=${hash}`].filter(Boolean).join(",") || undefined, data);
}

function md5(data: Buffer): string {
  return createHash("md5").update(data).digest("base64");
}

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC32C (Castagnoli), as GCS gives it: the 4 bytes big-endian, in base64. */
export function crc32cBase64(data: Uint8Array): string {
  const table = CRC32C_TABLE;
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((crc ^ 0xffffffff) >>> 0);
  return out.toString("base64");
}

function sendMedia(response: ServerResponse, object: GcsObject, headOnly: boolean): void {
  response.writeHead(200, {
    "content-type": object.contentType,
    "content-length": String(object.data.length),
    "x-goog-hash": `crc32c=${object.crc32c},md5=${object.md5Hash}`,
    "x-goog-generation": object.generation,
    "x-goog-metageneration": object.metageneration,
    "x-goog-stored-content-encoding": "identity",
    "x-goog-stored-content-length": String(object.data.length),
  });
  response.end(headOnly ? undefined : object.data);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json; charset=UTF-8", "content-length": String(Buffer.byteLength(text)) });
  response.end(text);
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function parseJson(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    throw new HttpError(400, "Parse Error", "parseError");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid("The request body must be a JSON object");
  return value as Record<string, unknown>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
