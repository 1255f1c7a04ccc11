// The lines of a table's ledger (see ledger.ts): how an entry is written, with its checksum, and
// how a journal's text is read back, skipping lines cut short, changed or not entries at all.
import { namesFile } from "./file-identity.js";

/**
 * What the ledger says of one data file: the folder holding it (a partition folder's name,
 * `date=2024-01-01`), the file's identity (see file-identity.ts) and its metadata
 * (`row_count`, and whatever else an object store put was given). Trusted only while the file
 * in that folder has exactly that identity.
 */
export interface LedgerEntry {
  readonly folder: string;
  readonly file: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** What a read of a journal gives: the last entry of each folder, and how many lines it holds. */
export interface LedgerRead {
  readonly entries: Map<string, LedgerEntry>;
  /**
   * The entries of each folder before its last one, oldest first (folders of one line have
   * none): the newest line naming the file at the path wins, which need not be the last (see
   * file-identity.ts and `currentEntry`).
   */
  readonly earlier: Map<string, LedgerEntry[]>;
  /**
   * Entries whose checksum does not hold (changed in place: edited by hand, a flipped bit), by
   * folder; absent when there are none. Never trusted: kept only so that a record lost this
   * way is reported rather than silently unknown (see ledger-records.ts).
   */
  readonly rejected?: Map<string, LedgerEntry[]>;
  readonly lines: number;
}

/**
 * `[folder, file, metadata, checksum]`: the checksum (see `checksumOf`) covers the line's text
 * before it, so that a line changed in place (a flipped bit, an edited digit) is told from a
 * written one, and its file counted again, as for a line cut short.
 */
export function entryLine(entry: LedgerEntry): string {
  const text = JSON.stringify([entry.folder, entry.file, entry.metadata]);
  return `\n${text.slice(0, -1)},"${checksumOf(text)}"]\n`;
}

/** The length of the checksum closing a line: a comma, the 8 hex digits in quotes, the bracket. */
const CHECKSUM_TAIL = 12;

/**
 * FNV-1a (32 bits) of a text's UTF-16 code units, as 8 hex digits. Not a defence against anyone
 * forging a line (the journal is a cache its writers trust), only against lines changed by
 * accident; a hash of 100,000 lines costs a few milliseconds.
 */
function checksumOf(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** Whether a line of 4 values ends with the checksum of the text before it. */
function checksumHolds(line: string, checksum: unknown): boolean {
  if (typeof checksum !== "string" || !line.endsWith(`,"${checksum}"]`) || checksum.length !== CHECKSUM_TAIL - 4) return false;
  return checksumOf(`${line.slice(0, -CHECKSUM_TAIL)}]`) === checksum;
}

/**
 * Lines that are not a well-formed entry (cut short by a crash, edited by hand, a checksum that
 * does not hold or is missing) are skipped. Every version of the ledger wrote its checksum (no
 * version without it was released), so a line without one was written or edited by hand: like
 * one whose checksum fails, it is kept apart in `rejected`, never trusted, and its file counted
 * again.
 */
export function parseLedger(text: string): LedgerRead {
  const lines = text.split("\n").filter((line) => line !== "");
  // One parse of the whole journal is several times faster than one a line; a line that is not
  // JSON (cut short by a crash) makes it fail, or gives another count of values, and then each
  // line is parsed on its own.
  let parsed: unknown[] | null = null;
  try {
    parsed = JSON.parse(`[${lines.join(",")}]`) as unknown[];
    if (parsed.length !== lines.length) parsed = null;
  } catch {
    // See above.
  }
  const read: FolderEntries = { entries: new Map<string, LedgerEntry>(), earlier: new Map<string, LedgerEntry[]>() };
  for (let i = 0; i < lines.length; i++) addEntry(read, parsed ? parsed[i] : parseLine(lines[i]!), lines[i]!);
  return { ...read, lines: lines.length };
}

export function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** Adds a parsed line when it is a well-formed entry whose checksum holds; one whose checksum fails or is missing to `rejected`. */
function addEntry(entries: FolderEntries, parsed: unknown, line: string): void {
  if (!Array.isArray(parsed) || (parsed.length !== 3 && parsed.length !== 4)) return;
  const [folder, file, metadata, checksum] = parsed as unknown[];
  if (typeof folder !== "string" || typeof file !== "string" || !isStringRecord(metadata)) return;
  if (parsed.length === 4 && checksumHolds(line, checksum)) setLast(entries, { folder, file, metadata });
  else addRejected(entries, [{ folder, file, metadata }]);
}

/** The entries of a read, by folder: the last one, and those before it (and those rejected). */
type FolderEntries = Pick<LedgerRead, "entries" | "earlier"> & { rejected?: Map<string, LedgerEntry[]> };

function addRejected(read: FolderEntries, rejected: Iterable<LedgerEntry>): void {
  for (const entry of rejected) {
    read.rejected ??= new Map();
    const before = read.rejected.get(entry.folder);
    if (before) before.push(entry);
    else read.rejected.set(entry.folder, [entry]);
  }
}

/**
 * Adds the folder's newest entry: re-inserted so that iteration follows the last write of each
 * folder, the one it supersedes kept in `earlier`.
 */
export function setLast(read: FolderEntries, entry: LedgerEntry): void {
  const previous = read.entries.get(entry.folder);
  if (previous) {
    const before = read.earlier.get(entry.folder);
    if (before) before.push(previous);
    else read.earlier.set(entry.folder, [previous]);
    read.entries.delete(entry.folder);
  }
  read.entries.set(entry.folder, entry);
}

/** Adds the entries of a later read of the same journal (the lines appended since) to `read`, in their order. */
export function addRead(read: FolderEntries, later: FolderEntries): void {
  if (later.rejected) addRejected(read, [...later.rejected.values()].flat());
  for (const entry of later.entries.values()) {
    for (const before of later.earlier.get(entry.folder) ?? []) setLast(read, before);
    setLast(read, entry);
  }
}

/** A folder's entries, oldest first. */
export function entriesOf(read: FolderEntries, folder: string): LedgerEntry[] {
  const last = read.entries.get(folder);
  if (!last) return [];
  const before = read.earlier.get(folder);
  return before ? [...before, last] : [last];
}

/**
 * The newest entry of a folder naming the file of `identity` (five parts, see `namesFile`), or
 * undefined: the line describing the file there now (see file-identity.ts for why the newest
 * matching line, not the newest line).
 */
export function currentEntry(read: FolderEntries, folder: string, identity: string): LedgerEntry | undefined {
  const last = read.entries.get(folder);
  if (!last) return undefined;
  if (namesFile(last.file, identity)) return last;
  const before = read.earlier.get(folder);
  if (!before) return undefined;
  for (let i = before.length - 1; i >= 0; i--) if (namesFile(before[i]!.file, identity)) return before[i];
  return undefined;
}

/** The metadata key of a line holding the write's materialization record (its JSON). */
export const RECORD_KEY = "materialization";

/**
 * The metadata key naming, in four parts (see `identityBeforeRename`), the file a write found at
 * its path before its rename: proof that that file landed (see `folderState` in ledger-history.ts).
 */
export const REPLACING_KEY = "replacing";

/** The metadata key of a write's line holding the SHA-256 (hex) of the file it wrote (see ledger-copies.ts). */
export const CONTENT_KEY = "sha256";

/** The metadata key of a line naming a copy: the file, as the line it matched names it, whose bytes it holds (see ledger-copies.ts). */
export const SAME_AS_KEY = "same_as";

/**
 * The file a line of a copy (SAME_AS_KEY) says the file of `identity` is the same as, from the
 * newest line naming it; null when that line names no other (or no line names it).
 */
export function sameAs(read: FolderEntries, folder: string, identity: string): string | null {
  return currentEntry(read, folder, identity)?.metadata[SAME_AS_KEY] ?? null;
}

/**
 * The newest entry of a folder naming the file of `identity`, or the file it is a copy of (see
 * `sameAs`), and holding a record (see `currentEntry`).
 */
export function recordEntry(read: FolderEntries, folder: string, identity: string): LedgerEntry | undefined {
  const entries = entriesOf(read, folder);
  const same = sameAs(read, folder, identity);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.metadata[RECORD_KEY] !== undefined && (namesFile(entry.file, identity) || entry.file === same)) return entry;
  }
  return undefined;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === "string");
}
