import { importOptional } from "../../optional-import.js";
import { BucketDestination, type BucketOptions } from "../bucket-destination.js";
import type { StoredObject } from "../object-store-destination.js";
import type { NameRange } from "../name-range.js";
import { isProvenanceObject, metadataBytes } from "../object-metadata.js";
import { checkEndpoint, createS3Client, isNotFound, type S3ConnectionOptions, type S3Handle, storageError } from "./s3-client.js";

/** Options of `S3Destination`. */
export type S3DestinationOptions = BucketOptions<S3ConnectionOptions>;

// HeadObject calls per listing page run this many at a time.
const PARALLEL_HEADS = 16;

/**
 * Partitions as objects in an S3 bucket (or an S3-compatible service through `endpoint`), their
 * row counts as `x-amz-meta-row_count`. The client (`@aws-sdk/client-s3`, an optional peer
 * dependency) is created on first use. Credentials never appear in errors, `toJSON()` or `inspect`.
 */
export class S3Destination extends BucketDestination<S3ConnectionOptions, S3Handle> {
  static override destinationName = "S3";

  constructor(options: S3DestinationOptions) {
    super(options, (connection) => checkEndpoint({ ...(connection ?? {}) }));
  }

  protected redacted(connection: S3ConnectionOptions): S3ConnectionOptions {
    const { credentials, ...rest } = connection;
    return credentials ? { ...rest, credentials: { accessKeyId: "[redacted]", secretAccessKey: "[redacted]" } } : rest;
  }

  protected connect(connection: S3ConnectionOptions): Promise<S3Handle> {
    return createS3Client(connection);
  }

  override async loadDrivers(): Promise<void> {
    await super.loadDrivers();
    await importOptional("@aws-sdk/client-s3", "npm install @aws-sdk/client-s3", "S3Destination");
  }

  /** Destroys the client and its sockets. */
  protected override release(handle: S3Handle): void {
    handle.client.destroy();
  }

  /**
   * One PutObject: S3 stores the whole object or nothing, so a process killed mid-upload leaves
   * the previous object as it was and no temporary object behind (no multipart upload is ever
   * started), and there is nothing to sweep, unlike the file destinations.
   */
  async putObject(name: string, payload: Uint8Array, contentType: string, metadata: Record<string, string>): Promise<void> {
    await this.call("PutObject", name, ({ sdk, client }) =>
      client.send(
        new sdk.PutObjectCommand({
          Bucket: this.bucket,
          Key: name,
          Body: payload,
          ContentType: contentType,
          Metadata: withAliases(metadata),
        }),
      ),
    );
  }

  async getObject(name: string): Promise<Uint8Array | null> {
    return this.call("GetObject", name, async ({ sdk, client }) => {
      try {
        const response = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: name }));
        return response.Body ? await response.Body.transformToByteArray() : new Uint8Array();
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    });
  }

  /**
   * Every object under the prefix (see `keyPages`), each one's metadata from a HeadObject (S3 lists
   * none), but for provenance objects, put without metadata: a prefix holding other tables' history
   * (an asset `shop` beside the dataset `shop`) would otherwise cost a HeadObject per entry.
   */
  async *listObjects(prefix: string, range?: NameRange): AsyncIterable<StoredObject> {
    for await (const keys of this.keyPages(prefix, range)) {
      for (let start = 0; start < keys.length; start += PARALLEL_HEADS) {
        const batch = keys.slice(start, start + PARALLEL_HEADS);
        const heads = await Promise.all(
          batch.map((key) => (isProvenanceObject(key) ? { name: key, metadata: {} } : this.headMetadata(key))),
        );
        for (const object of heads) if (object) yield object;
      }
    }
  }

  /** S3 keeps 2 KB of user metadata, names and values, the dashed aliases (see `withAliases`) included. */
  protected override metadataFits(metadata: Record<string, string>): boolean {
    return metadataBytes(withAliases(metadata)) <= 2048;
  }

  /** The keys under a prefix, from the listing alone (no HeadObject). */
  protected override async *listNames(prefix: string): AsyncIterable<string> {
    for await (const keys of this.keyPages(prefix)) yield* keys;
  }

  /**
   * One DeleteObjects per call (the base passes at most 1000 names): S3 keeps no sidecar, the
   * metadata goes with its object. A key that fails to delete fails the call, naming it.
   */
  override async deleteObjects(names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await this.call("DeleteObjects", names[0]!, async ({ sdk, client }) => {
      const response = await client.send(
        new sdk.DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: names.map((Key) => ({ Key })), Quiet: true } }),
      );
      const failed = response.Errors?.[0];
      if (failed) {
        const error = new Error(
          `${failed.Code ?? "Error"}: ${failed.Message ?? "not deleted"} (${this.objectUri(failed.Key ?? "")}, ${response.Errors!.length} key(s) not deleted)`,
        );
        error.name = failed.Code ?? "Error";
        throw error;
      }
    });
  }

  /**
   * ListObjectsV2 page by page. Keys are asked for URL-encoded: in the XML of a plain listing a
   * `\r` in a key reads back as `\n` (XML parsers normalise line ends), and other control
   * characters cannot be written at all. Within `range`: from its start on (StartAfter), until a
   * key reaches its end (S3 lists keys in the order of their UTF-8 bytes).
   */
  private async *keyPages(prefix: string, range?: NameRange): AsyncIterable<string[]> {
    let token: string | undefined;
    do {
      const page = await this.call("ListObjectsV2", prefix, async ({ sdk, client }) => {
        const listed = await client.send(
          new sdk.ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: prefix,
            ContinuationToken: token,
            EncodingType: "url",
            ...(range ? { StartAfter: range.startAfter } : {}),
          }),
        );
        // A server that ignores the request (some S3-compatible ones do) says so by omitting
        // EncodingType. A key that is not valid encoding fails the call, as any bad answer would.
        const encoded = listed.EncodingType === "url";
        const keys = (listed.Contents ?? []).flatMap((item) =>
          typeof item.Key === "string" ? [encoded ? decodeListedKey(item.Key) : item.Key] : [],
        );
        return { keys, next: listed.IsTruncated ? listed.NextContinuationToken : undefined };
      });
      const end = range ? page.keys.findIndex((key) => Buffer.compare(Buffer.from(key), Buffer.from(range.before)) >= 0) : -1;
      yield end === -1 ? page.keys : page.keys.slice(0, end);
      token = end === -1 ? page.next : undefined;
    } while (token);
  }

  objectUri(name: string): string {
    return `s3://${this.bucket}/${name}`;
  }

  private async headMetadata(key: string): Promise<StoredObject | null> {
    return this.call("HeadObject", key, async ({ sdk, client }) => {
      try {
        const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
        return { name: key, metadata: fromAliases(head.Metadata ?? {}) };
      } catch (error) {
        // Deleted between the listing and the head: no longer an object.
        if (isNotFound(error)) return null;
        throw error;
      }
    });
  }

  /** Runs one SDK call; any failure becomes an ObjectStoreError naming the operation and object. */
  private async call<T>(operation: string, name: string, run: (handle: S3Handle) => Promise<T>): Promise<T> {
    const handle = await this.client();
    try {
      return await run(handle);
    } catch (error) {
      const { credentials } = this.settings;
      throw storageError(operation, this.objectUri(name), error, [credentials?.secretAccessKey ?? "", credentials?.sessionToken ?? ""]);
    }
  }
}

/**
 * A key as ListObjectsV2 gives it with `EncodingType: "url"`: percent-encoded, and a space may
 * come as `+` (S3 itself writes `a b` as `a+b` and `a+b` as `a%2Bb`; moto writes `%20`), so `+`
 * is a space and a literal `+` is always `%2B`.
 */
export function decodeListedKey(key: string): string {
  return decodeURIComponent(key.replaceAll("+", " "));
}

/**
 * Metadata with a dashed alias of every underscored name (`row-count` beside `row_count`).
 * S3 keeps underscores, but HTTP servers and proxies in front of S3-compatible services often
 * drop headers with underscores (nginx by default, moto's server), and the count would be lost.
 */
function withAliases(metadata: Record<string, string>): Record<string, string> {
  const out = { ...metadata };
  for (const [name, value] of Object.entries(metadata)) {
    const alias = name.replaceAll("_", "-");
    if (alias !== name && !Object.hasOwn(out, alias)) out[alias] = value;
  }
  return out;
}

/** The metadata as written: an underscored name a server dropped is restored from its alias. */
function fromAliases(metadata: Record<string, string>): Record<string, string> {
  const out = { ...metadata };
  for (const [name, value] of Object.entries(metadata)) {
    const original = name.replaceAll("-", "_");
    if (original !== name && !Object.hasOwn(out, original)) out[original] = value;
  }
  return out;
}
