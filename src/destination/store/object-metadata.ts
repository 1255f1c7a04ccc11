// What provenance puts in an object store's custom metadata, and where its own objects live: the
// pieces the backends (S3, GCS) ask of it without the records themselves.

/** The folder of an asset's provenance objects, under its table prefix. */
export const PROVENANCE_FOLDER = ".materializations";

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
