// An object as a listing gives it, what provenance puts in its custom metadata, and where
// provenance keeps its own objects: the pieces the backends (S3, GCS) share with provenance.

/** The folder of an asset's provenance objects, under its table prefix. */
export const PROVENANCE_FOLDER = ".materializations";

/** One object a listing found: its name relative to the bucket root and its custom metadata. */
export interface StoredObject {
  readonly name: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** Whether an object is one of the provenance objects (a sidecar or a history entry): never data, and holding no metadata. */
export function isProvenanceObject(name: string): boolean {
  return name.startsWith(`${PROVENANCE_FOLDER}/`) || name.includes(`/${PROVENANCE_FOLDER}/`);
}

/** The bytes custom metadata takes on S3 and GCS: every name and value in UTF-8. */
export function metadataBytes(metadata: Record<string, string>): number {
  return Object.entries(metadata).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value), 0);
}

/** JSON with every character beyond ASCII escaped: metadata travels in HTTP headers (S3), which take ASCII only. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
