import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { dirname, basename, join } from "node:path";

/** The marker in every temporary file's name: listings skip names that hold it. */
export const TEMP_MARKER = ".tmp-";

/** A temporary name beside `path`, unique across processes. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}${TEMP_MARKER}${process.pid}-${randomBytes(4).toString("hex")}`);
}

/**
 * Writes a file so that readers see the old content or the new, never a part: the bytes go to
 * a temporary file in the same folder, which is then renamed over the target (rename within
 * one filesystem is atomic). A failure removes the temporary file and leaves the target as it was.
 * Returns the stats of the file written, taken before the rename, so that a caller recording
 * them describes its own file even when another writer replaces it a moment later.
 */
export async function writeFileAtomic(path: string, chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>): Promise<Stats> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPathFor(path);
  const handle = await open(temp, "wx");
  try {
    for await (const chunk of chunks) {
      if (typeof chunk === "string") await handle.write(chunk);
      else await handle.write(chunk);
    }
    const written = await handle.stat();
    await handle.close();
    await rename(temp, path);
    return written;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}
