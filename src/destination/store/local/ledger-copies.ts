// A data file copied with its folder (`cp -a` to another folder or disk, a restored backup, a CI
// cache) keeps its bytes, size and modification time, but not its device and inode, which every
// ledger line names (see file-identity.ts): no line names the copy. Its bytes say what it is: a
// write records the SHA-256 of the file it wrote in its line (CONTENT_KEY), and a file no line
// names, of the size a line of its folder names, is hashed once and compared with those lines.
// One that matches gets a line of its own naming it (SAME_AS_KEY: the line it is the same file
// as), appended with the file held open as a recount's is, so that from then on the cheap identity
// names it again and the record of that line is its record. A file that matches none, in a folder
// whose lines hold records, was changed outside interloper.
import { createHash } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";
import { fileIdentity, namesFile } from "./file-identity.js";
import type { Ledger } from "./ledger.js";
import {
  CONTENT_KEY,
  currentEntry,
  entriesOf,
  type LedgerEntry,
  type LedgerRead,
  RECORD_KEY,
  recordEntry,
  SAME_AS_KEY,
} from "./ledger-lines.js";
import { identityAt, isDeletion } from "./ledger-history.js";

/** Hashes chunks as they pass on to a writer: the digest of what was written, once they are consumed. */
export function hashing(chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>): {
  chunks: AsyncIterable<string | Uint8Array>;
  digest: () => string;
} {
  const hash = createHash("sha256");
  async function* passed(): AsyncIterable<string | Uint8Array> {
    for await (const chunk of chunks) {
      hash.update(chunk);
      yield chunk;
    }
  }
  let digest: string | undefined;
  return { chunks: passed(), digest: () => (digest ??= hash.digest("hex")) };
}

/**
 * Whether the file at `path` is a copy of a file a line of `folder` names (same size, same
 * SHA-256): then a line naming it is appended, and true. False when a line names it already,
 * when none could (no line of its size holds a hash), or when its bytes match none.
 */
export async function recognizeCopy(ledger: Ledger, read: LedgerRead, folder: string, path: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch {
    return false;
  }
  try {
    const info = await handle.stat({ bigint: true });
    const identity = fileIdentity(info);
    if (currentEntry(read, folder, identity)) return false;
    const candidates = linesSinceDeletion(read, folder).filter(
      (entry) => entry.metadata[CONTENT_KEY] !== undefined && sizeOf(entry.file) === info.size,
    );
    if (candidates.length === 0) return false;
    const digest = await digestOf(handle);
    const same = candidates.findLast((entry) => entry.metadata[CONTENT_KEY] === digest);
    if (!same) return false;
    const metadata: Record<string, string> = { [SAME_AS_KEY]: same.file };
    if (same.metadata["row_count"] !== undefined) metadata["row_count"] = same.metadata["row_count"];
    await ledger.append([{ folder, file: identity, metadata }]);
    return true;
  } finally {
    await handle.close();
  }
}

/**
 * The line describing the file of `identity` at `path`, in `folder` of `ledger`: the newest
 * holding its record, else the newest naming it. A copy no line names yet is recognized first,
 * and the ledger read again; `reads` keeps one read a ledger (a listing's).
 */
export async function describingEntry(
  reads: Map<string, Promise<LedgerRead>>,
  ledger: Ledger,
  folder: string,
  path: string,
  identity: string,
): Promise<LedgerEntry | undefined> {
  const readAgain = () => {
    const read = ledger.read();
    reads.set(ledger.path, read);
    return read;
  };
  let read = await (reads.get(ledger.path) ?? readAgain());
  let named = identity;
  if (!currentEntry(read, folder, identity) && (await recognizeCopy(ledger, read, folder, path))) {
    read = await readAgain();
    named = identityAt(path) ?? identity;
  }
  return recordEntry(read, folder, named) ?? currentEntry(read, folder, named);
}

/** Recognizes the copies among these files (see `recognizeCopy`), a few at a time; whether any was. */
export async function recognizeCopies(
  ledger: Ledger,
  read: LedgerRead,
  files: ReadonlyArray<{ folder: string; path: string }>,
): Promise<boolean> {
  let next = 0;
  let any = false;
  const worker = async () => {
    while (next < files.length) {
      const { folder, path } = files[next++]!;
      if (await recognizeCopy(ledger, read, folder, path)) any = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_HASHES, files.length) }, worker));
  return any;
}

/** Files hashed at once: enough to hide a disk's latency on two cores, few enough to hold their buffers. */
const PARALLEL_HASHES = 8;

/**
 * Whether the file of `identity` was changed outside interloper: no line holding a record names
 * it (directly or as a copy: see `recordEntry`), none whose checksum fails does either (a damaged
 * record, reported as such), and lines of its folder since its last deletion hold records.
 */
export function changedOutside(read: LedgerRead, folder: string, identity: string): boolean {
  if (recordEntry(read, folder, identity)) return false;
  if ((read.rejected?.get(folder) ?? []).some((line) => line.metadata[RECORD_KEY] !== undefined && namesFile(line.file, identity)))
    return false;
  return linesSinceDeletion(read, folder).some((entry) => entry.metadata[RECORD_KEY] !== undefined);
}

/** A folder's lines since its file was last deleted, oldest first. */
function linesSinceDeletion(read: LedgerRead, folder: string): LedgerEntry[] {
  const entries = entriesOf(read, folder);
  for (let i = entries.length - 1; i >= 0; i--) if (isDeletion(entries[i]!)) return entries.slice(i + 1);
  return entries;
}

/** The size an identity of four or five parts names (see file-identity.ts); null for anything else. */
function sizeOf(identity: string): bigint | null {
  const parts = identity.split(":");
  return (parts.length === 4 || parts.length === 5) && /^\d+$/.test(parts[2]!) ? BigInt(parts[2]!) : null;
}

/** The SHA-256 of an open file's bytes, read from its start. */
async function digestOf(handle: FileHandle): Promise<string> {
  const hash = createHash("sha256");
  const buffer = Buffer.alloc(1 << 16);
  for (let at = 0; ;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, at);
    if (bytesRead === 0) return hash.digest("hex");
    hash.update(buffer.subarray(0, bytesRead));
    at += bytesRead;
  }
}
