import type { S3Client } from "@aws-sdk/client-s3";
import { importOptional } from "../../optional-import.js";
import { checkHttpEndpoint } from "../endpoint.js";
import { ObjectStoreError } from "../errors.js";

/** The S3 SDK module, loaded on first use. */
export type S3Module = typeof import("@aws-sdk/client-s3");

/** How to reach S3 or an S3-compatible service; anything left out comes from the AWS environment. */
export interface S3ConnectionOptions {
  readonly region?: string;
  /** An S3-compatible endpoint: MinIO, Cloudflare R2, Google Cloud Storage's XML API, ... */
  readonly endpoint?: string;
  /** Addresses buckets as `endpoint/bucket` rather than `bucket.endpoint` (MinIO and most emulators need it). */
  readonly forcePathStyle?: boolean;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
}

/** Throws a ConfigError when `connection.endpoint` is not an http(s) URL. */
export function checkEndpoint(connection: S3ConnectionOptions): void {
  checkHttpEndpoint(connection.endpoint, "S3Destination: connection.endpoint", "http://localhost:9000");
}

/** A client and the SDK it came from, created once per destination. */
export interface S3Handle {
  readonly sdk: S3Module;
  readonly client: S3Client;
}

/**
 * Creates the client. Unset options fall back to the SDK's own chain (AWS_REGION,
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL_S3, ~/.aws/config, instance
 * roles). Checksums are computed only where S3 requires them: S3-compatible services
 * (and emulators) do not all accept the newer default checksum headers.
 */
export async function createS3Client(connection: S3ConnectionOptions): Promise<S3Handle> {
  const sdk = await importOptional<S3Module>("@aws-sdk/client-s3", "npm install @aws-sdk/client-s3", "S3Destination");
  // On Node below 22 the SDK warns, as each client is made, that its releases after January 2027
  // will need Node 22: printed by every command that touches S3, it says nothing about the data.
  // Its own switch turns that one warning off (no other); a user who set the switch keeps theirs.
  process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
  const client = new sdk.S3Client({
    ...(connection.region !== undefined && { region: connection.region }),
    ...(connection.endpoint !== undefined && { endpoint: connection.endpoint }),
    ...(connection.forcePathStyle !== undefined && { forcePathStyle: connection.forcePathStyle }),
    ...(connection.credentials !== undefined && { credentials: { ...connection.credentials } }),
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // The SDK waits forever by default. A server that does not accept the connection fails it
    // after 10 s, one that stops sending or reading for 60 s fails the request (each then
    // retried by the SDK, as a reset connection is). No limit on a whole request: an upload
    // or a download may rightly take long while bytes flow.
    requestHandler: { connectionTimeout: 10_000, socketTimeout: 60_000 },
  });
  return { sdk, client };
}

/** Whether an SDK error says the object (not the bucket) does not exist. */
export function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || (e?.$metadata?.httpStatusCode === 404 && e?.name !== "NoSuchBucket");
}

/**
 * An SDK error restated with the operation, bucket and key. The SDK's error object is not kept
 * as the cause (it may carry request details); only its name, status and message are, and any
 * secret that still shows up in them is cut out.
 */
export function storageError(operation: string, uri: string, error: unknown, secrets: readonly string[]): ObjectStoreError {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const detail = redact(`${e?.name ?? "Error"}${status ? ` (HTTP ${status})` : ""}: ${e?.message ?? String(error)}`, secrets);
  const cause = new Error(detail);
  cause.name = e?.name ?? "Error";
  return new ObjectStoreError(`S3Destination: ${operation} of ${uri} failed: ${detail}`, { cause });
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join("[redacted]");
  return out;
}
