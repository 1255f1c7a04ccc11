import type { Storage } from "@google-cloud/storage";
import { ConfigError } from "../../../errors.js";
import { describeKind, describeValue } from "../../../text/describe-value.js";
import { importOptional } from "../../optional-import.js";
import { checkHttpEndpoint } from "../endpoint.js";
import { ObjectStoreError } from "../errors.js";

/** The Google Cloud Storage client module, loaded on first use. */
export type GCSModule = typeof import("@google-cloud/storage");

/** A service account key, as in the JSON key file Google Cloud gives (only these two fields are needed). */
export interface GCSServiceAccountKey {
  readonly client_email: string;
  readonly private_key: string;
  readonly [field: string]: unknown;
}

/**
 * How to reach Google Cloud Storage. With none of it, the client uses Application Default
 * Credentials (GOOGLE_APPLICATION_CREDENTIALS, `gcloud auth application-default login`, the
 * service account of a Google Cloud machine) and the project they name.
 */
export interface GCSConnectionOptions {
  readonly projectId?: string;
  /** A service account key file (JSON). */
  readonly keyFilename?: string;
  /** A service account key given inline. */
  readonly credentials?: GCSServiceAccountKey;
  /**
   * Another endpoint of the JSON API: an emulator or a test server (`http://127.0.0.1:4443`),
   * or a private endpoint. Requests to it are signed only when `keyFilename` or `credentials`
   * is given too: an emulator wants none.
   */
  readonly apiEndpoint?: string;
}

const NAME = "GCSDestination";

/**
 * Throws a ConfigError naming the option for a connection the client would only fail on at the
 * first request (or misread). Values are never shown for `credentials`; an endpoint's user info is masked.
 */
export function checkGCSConnection(connection: unknown): void {
  if (connection === undefined) return;
  if (typeof connection !== "object" || connection === null || Array.isArray(connection)) {
    throw new ConfigError(
      `${NAME}: connection must be an object with projectId, keyFilename, credentials or apiEndpoint, got ${Array.isArray(connection) ? describeKind(connection) : describeValue(connection)}`,
    );
  }
  const given = connection as Record<string, unknown>;
  const known = ["projectId", "keyFilename", "credentials", "apiEndpoint"];
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) throw new ConfigError(`${NAME}: connection has no option "${key}" (known: ${known.join(", ")})`);
  }
  for (const key of ["projectId", "keyFilename"] as const) {
    const value = given[key];
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new ConfigError(`${NAME}: connection.${key} must be a non-empty string, got ${describeValue(value)}`);
    }
  }
  const credentials = given["credentials"];
  if (credentials !== undefined) {
    const key = credentials as Record<string, unknown> | null;
    const ok = typeof key === "object" && key !== null && typeof key["client_email"] === "string" && typeof key["private_key"] === "string";
    if (!ok) {
      throw new ConfigError(
        `${NAME}: connection.credentials must be a service account key with client_email and private_key strings (the JSON key file's contents), got ${kindOf(credentials)}`,
      );
    }
  }
  checkHttpEndpoint(given["apiEndpoint"], `${NAME}: connection.apiEndpoint`, "http://127.0.0.1:4443");
}

/** A client and the module it came from, created once per destination. */
export interface GCSHandle {
  readonly sdk: GCSModule;
  readonly storage: Storage;
}

/**
 * Creates the client. Per request it waits at most 60 s for an answer (the client's default
 * is unlimited for some calls); the client retries transient failures itself (429, 5xx,
 * resets), uploads included because every upload carries a generation precondition.
 */
export async function createGCSClient(connection: GCSConnectionOptions): Promise<GCSHandle> {
  const sdk = await importOptional<GCSModule>("@google-cloud/storage", "npm install @google-cloud/storage", NAME);
  const explicitKey = connection.keyFilename !== undefined || connection.credentials !== undefined;
  const storage = new sdk.Storage({
    ...(connection.projectId !== undefined && { projectId: connection.projectId }),
    ...(connection.keyFilename !== undefined && { keyFilename: connection.keyFilename }),
    ...(connection.credentials !== undefined && { credentials: { ...connection.credentials } }),
    ...(connection.apiEndpoint !== undefined && { apiEndpoint: connection.apiEndpoint, useAuthWithCustomEndpoint: explicitKey }),
    timeout: 60_000,
  });
  return { sdk, storage };
}

/** An error's HTTP status, as the client gives it (`code`). */
export function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "number" ? code : undefined;
}

/**
 * Whether a 404 says the object (not the bucket) does not exist. GCS answers both with 404 and
 * reason notFound; only the message tells them apart ("No such object: bucket/name" against
 * "The specified bucket does not exist."). A download's error carries the raw body as message.
 */
export function isObjectNotFound(error: unknown): boolean {
  return statusOf(error) === 404 && /No such object/i.test(String((error as { message?: unknown })?.message ?? ""));
}

/**
 * A client error restated on one line with the operation and object. The client's error object
 * is not kept as the cause (it carries the request, headers included); only its status and
 * message are, any secret in them cut out. A download's message is the JSON error body: its
 * `error.message` is taken from it.
 */
export function gcsStorageError(operation: string, uri: string, error: unknown, secrets: readonly string[]): ObjectStoreError {
  const status = statusOf(error);
  const detail = redact(`${status ? `HTTP ${status}: ` : ""}${messageOf(error)}`, secrets).replace(/\s*[\r\n]+\s*/g, " ");
  const cause = new Error(detail);
  return new ObjectStoreError(`${NAME}: ${operation} of ${uri} failed: ${detail}`, { cause });
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown })?.message;
  const text = typeof message === "string" ? message : String(error);
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof body?.error?.message === "string") return body.error.message;
  } catch {
    // Not a JSON body: the message as it is.
  }
  return text;
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join("[redacted]");
  return out;
}

/** The kind of a value, never the value: a credential given in the wrong shape may still be secret. */
/** What was given as credentials, without showing any of it (it may be a real key). */
function kindOf(value: unknown): string {
  const kind = describeKind(value);
  return kind === "an object" ? "an object without client_email and private_key strings" : kind;
}
