import { createHash } from "node:crypto";
import type { File } from "@google-cloud/storage";
import { ConfigError } from "../../../errors.js";
import { importOptional } from "../../optional-import.js";
import { BucketDestination, type BucketOptions } from "../bucket-destination.js";
import type { StoredObject } from "../object-store-destination.js";
import { metadataBytes } from "../object-metadata.js";
import {
  checkGCSConnection,
  createGCSClient,
  type GCSConnectionOptions,
  type GCSHandle,
  gcsStorageError,
  isObjectNotFound,
  statusOf,
} from "./gcs-client.js";

/** Options of `GCSDestination`. */
export type GCSDestinationOptions = BucketOptions<GCSConnectionOptions>;

// Objects up to this size go up in one multipart request; larger ones in a resumable upload of
// chunks this size (GCS wants chunks in multiples of 256 KiB), each retried on its own.
const CHUNK_BYTES = 8 * 1024 * 1024;
// Deletes run this many at a time.
const PARALLEL_DELETES = 16;
// A write that loses the race to other writers this many times in a row gives up.
const MAX_RACES = 5;

/**
 * Partitions as objects in a Google Cloud Storage bucket, their row counts as the custom
 * metadata `row_count`. The client (`@google-cloud/storage`, an optional peer dependency) is
 * created on first use, with Application Default Credentials unless a key is given.
 * Credentials never appear in errors, `toJSON()` or `inspect`.
 */
export class GCSDestination extends BucketDestination<GCSConnectionOptions, GCSHandle> {
  static override destinationName = "GCS";

  constructor(options: GCSDestinationOptions) {
    super(options, checkGCSConnection);
  }

  protected redacted(connection: GCSConnectionOptions): GCSConnectionOptions {
    const { credentials, ...rest } = connection;
    return credentials ? { ...rest, credentials: { client_email: "[redacted]", private_key: "[redacted]" } } : rest;
  }

  /** The client keeps no connection open between requests: closing forgets it. */
  protected connect(connection: GCSConnectionOptions): Promise<GCSHandle> {
    return createGCSClient(connection);
  }

  override async loadDrivers(): Promise<void> {
    await super.loadDrivers();
    await importOptional("@google-cloud/storage", "npm install @google-cloud/storage", "GCSDestination");
  }

  /**
   * One upload that replaces the object whole or not at all: GCS makes a new generation live only
   * once all its bytes arrived, so a process killed mid-upload leaves the previous object as it
   * was (an unfinished resumable session holds no object and expires by itself) and there is
   * nothing to sweep, as with S3.
   *
   * The upload carries `ifGenerationMatch` with the generation it replaces (0: none). That is what
   * lets the client retry it after a lost connection or a 5xx (it retries no unconditional
   * upload) without a late retry ever overwriting a newer write. A 412 then means either that
   * our own earlier attempt landed (the object now holds these very bytes and metadata: done),
   * or that another writer replaced the object meanwhile: the write is made again over the new
   * generation, so the last writer wins, as on S3.
   */
  async putObject(name: string, payload: Uint8Array, contentType: string, metadata: Record<string, string>): Promise<void> {
    const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    const md5 = createHash("md5").update(bytes).digest("base64");
    const resumable = bytes.length > CHUNK_BYTES;
    await this.call("objects.insert", name, async ({ storage }) => {
      const file = storage.bucket(this.bucket).file(name);
      for (let attempt = 1; ; attempt++) {
        const generation = (await liveResource(file))?.generation ?? 0;
        try {
          await file.save(bytes, {
            resumable,
            ...(resumable && { chunkSize: CHUNK_BYTES }),
            contentType,
            metadata: { contentType, metadata },
            preconditionOpts: { ifGenerationMatch: generation },
          });
          return;
        } catch (error) {
          if (statusOf(error) !== 412) throw error;
          const now = await liveResource(file);
          if (now && now.md5Hash === md5 && now.contentType === contentType && sameMetadata(now.metadata, metadata)) return;
          if (attempt === MAX_RACES)
            throw new Error(`other writers replaced the object ${MAX_RACES} times while this write was under way`, { cause: error });
        }
      }
    });
  }

  /** GCS keeps 8 KiB of custom metadata, names and values. */
  protected override metadataFits(metadata: Record<string, string>): boolean {
    return metadataBytes(metadata) <= 8192;
  }

  /**
   * A provenance object's name is new (an id) and never replaced: one upload on condition that no
   * object holds it, without first reading the live generation as `putObject` does. A 412 on a
   * retry is our own earlier attempt, landed.
   */
  protected override async putBookkeeping(name: string, text: string): Promise<void> {
    await this.call("objects.insert", name, async ({ storage }) => {
      const file = storage.bucket(this.bucket).file(name);
      const contentType = "application/json";
      await file
        .save(Buffer.from(text), { resumable: false, contentType, metadata: { contentType }, preconditionOpts: { ifGenerationMatch: 0 } })
        .catch((error: unknown) => {
          if (statusOf(error) !== 412) throw error;
        });
    });
  }

  async getObject(name: string): Promise<Uint8Array | null> {
    return this.call("objects.get", name, async ({ storage }) => {
      try {
        const [bytes] = await storage.bucket(this.bucket).file(name).download();
        return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      } catch (error) {
        if (isObjectNotFound(error)) return null;
        throw error;
      }
    });
  }

  /**
   * One objects.delete per name, a few at a time (the JSON API deletes one object a request); an
   * object already gone is no error. Any other failure fails the call, naming its object.
   */
  override async deleteObjects(names: readonly string[]): Promise<void> {
    for (let start = 0; start < names.length; start += PARALLEL_DELETES) {
      await Promise.all(
        names.slice(start, start + PARALLEL_DELETES).map((name) =>
          this.call("objects.delete", name, async ({ storage }) => {
            await storage.bucket(this.bucket).file(name).delete({ ignoreNotFound: true });
          }),
        ),
      );
    }
  }

  /** objects.list page by page: GCS lists each object's custom metadata, so one request per page is all. */
  async *listObjects(prefix: string): AsyncIterable<StoredObject> {
    let pageToken: string | undefined;
    do {
      const page = await this.call("objects.list", prefix, async ({ storage }) => {
        const [files, next] = await storage
          .bucket(this.bucket)
          .getFiles({ prefix, autoPaginate: false, ...(pageToken !== undefined && { pageToken }) });
        const objects = files.map((file): StoredObject => ({ name: file.name, metadata: stringValues(file.metadata.metadata) }));
        const token = (next as { pageToken?: unknown } | null)?.pageToken;
        return { objects, next: typeof token === "string" && token !== "" ? token : undefined };
      });
      yield* page.objects;
      pageToken = page.next;
    } while (pageToken !== undefined);
  }

  objectUri(name: string): string {
    return `gs://${this.bucket}/${name}`;
  }

  /** Runs client calls; any failure becomes one ObjectStoreError naming the operation and object. */
  private async call<T>(operation: string, name: string, run: (handle: GCSHandle) => Promise<T>): Promise<T> {
    checkObjectName(name, this.objectUri(name));
    const handle = await this.client();
    try {
      return await run(handle);
    } catch (error) {
      throw gcsStorageError(operation, printable(this.objectUri(name)), error, [this.settings.credentials?.private_key ?? ""]);
    }
  }
}

/**
 * GCS refuses object names holding a carriage return or a line feed (and so any prefix holding
 * one: a listing could never match). Said before any request, naming the object and the rule;
 * list values cannot hold them, but a prefix or dataset name can.
 */
function checkObjectName(name: string, uri: string): void {
  if (/[\r\n]/.test(name)) {
    throw new ConfigError(
      `GCSDestination: ${printable(uri)} holds a carriage return or line feed, which Google Cloud Storage does not allow in object names (check prefix and dataset)`,
    );
  }
}

/** A URI for a one-line message: control characters as \uXXXX escapes. */
function printable(uri: string): string {
  return uri.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

interface LiveResource {
  readonly generation: string | number;
  readonly md5Hash?: string;
  readonly contentType?: string;
  readonly metadata: Record<string, string>;
}

/** The live object's resource, or null when there is none. */
async function liveResource(file: File): Promise<LiveResource | null> {
  try {
    const [resource] = await file.getMetadata();
    return {
      generation: resource.generation ?? 0,
      ...(resource.md5Hash !== undefined && { md5Hash: resource.md5Hash }),
      ...(resource.contentType !== undefined && { contentType: resource.contentType }),
      metadata: stringValues(resource.metadata),
    };
  } catch (error) {
    if (isObjectNotFound(error)) return null;
    throw error;
  }
}

/** Custom metadata as strings (the client types values as string, number, boolean or null). */
function stringValues(metadata: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) if (value !== null && value !== undefined) out[key] = String(value);
  return out;
}

function sameMetadata(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}
