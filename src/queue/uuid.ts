import { createHash } from "node:crypto";

// Deterministic ids (RFC 9562 version 5: SHA-1 of a namespace and a name), so that the same
// backfill enqueued twice gets the same ids and inserts nothing the second time.

/** The namespace of every id the queue derives (a fixed, random UUID). */
export const QUEUE_NAMESPACE = "5d3c7a52-3f0e-4f6b-9a5e-2b8c1d7e4a90";

/** The version 5 UUID of a name within a namespace. */
export function uuidV5(name: string, namespace: string = QUEUE_NAMESPACE): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ""), "hex");
  if (namespaceBytes.length !== 16) throw new Error(`uuidV5: the namespace ${JSON.stringify(namespace)} is not a UUID`);
  const hash = createHash("sha1").update(namespaceBytes).update(name, "utf8").digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
