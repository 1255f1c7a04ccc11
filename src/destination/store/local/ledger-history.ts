// What a folder's ledger lines say of the writes that landed, and what a compaction keeps of
// them: the materialization records of past writes (the history, see Destination.materializationHistory).
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { HISTORY_KEPT } from "../../destination.js";
import { ABANDONED_AFTER_MS } from "./atomic.js";
import { beforeRenamePart, fileIdentity, modifiedMs, namesFile } from "./file-identity.js";
import {
  entriesOf,
  entryLine,
  type LedgerEntry,
  type LedgerRead,
  parseLedger,
  RECORD_KEY,
  REPLACING_KEY,
  SAME_AS_KEY,
} from "./ledger-lines.js";

/**
 * What the lines of one folder (oldest first, from its last deletion on: see `sinceDeletion`)
 * say, given the identity of the file there now (null: none). A record is history only once its
 * file is known to have landed, never for a write killed before its rename:
 * - the file is the one there now (the current record);
 * - a later line was written when it was at the path: a write's line names the file it found
 *   there (`replacing`, taken before its own rename), and a line of five parts (a reader's recount,
 *   an older version's line, both written after the file was renamed in) names a file that was
 *   there. A line naming a four-part identity confirms the newest record before it naming the
 *   same one (a reused inode's older line was written before its file was freed).
 * A copy's line (SAME_AS_KEY, see ledger-copies.ts) stands for the file it names: the file there
 * now when it names it, the file a later line confirms when that names the copy. A file there
 * that no record names (changed outside interloper) was put there after the newest write's file
 * was, so that write landed too.
 * A write that landed and was replaced before any later writer or reader saw it (two writers of
 * one partition, the second renaming just after the first) is missing from the history.
 */
export interface FolderState {
  /** The index of the newest line naming the file there now (its row count); -1 for none. */
  readonly current: number;
  /** The index of the newest such line holding a record (the current record); -1 for none. */
  readonly record: number;
  /** The indexes of the records of writes that landed, the current one included. */
  readonly landed: ReadonlySet<number>;
}

export function folderState(entries: readonly LedgerEntry[], identity: string | null): FolderState {
  // A copy's line (SAME_AS_KEY) says which write's file it holds: lines naming that file name it too.
  let same: string | null = null;
  if (identity !== null)
    for (let i = entries.length - 1; i >= 0; i--)
      if (namesFile(entries[i]!.file, identity)) {
        same = entries[i]!.metadata[SAME_AS_KEY] ?? null;
        break;
      }
  const landed = new Set<number>();
  const lastRecordOf = new Map<string, number>();
  // The four parts of a copy's identity, to the file its line says it is the same as.
  const copies = new Map<string, string>();
  const confirm = (file: string | undefined) => {
    const at = file === undefined ? undefined : lastRecordOf.get(copies.get(file) ?? file);
    if (at !== undefined) landed.add(at);
  };
  let current = -1;
  let record = -1;
  let newestRecord = -1;
  for (let i = 0; i < entries.length; i++) {
    const { file, metadata } = entries[i]!;
    confirm(metadata[REPLACING_KEY]);
    const four = beforeRenamePart(file);
    if (four === null) continue;
    const holdsRecord = metadata[RECORD_KEY] !== undefined;
    const copyOf = metadata[SAME_AS_KEY];
    if (copyOf !== undefined) copies.set(four, copyOf);
    if (four !== file) confirm(four);
    else if (holdsRecord) {
      lastRecordOf.set(four, i);
      newestRecord = i;
    }
    if (identity !== null && (namesFile(file, identity) || file === same)) {
      current = i;
      if (holdsRecord) record = i;
    }
  }
  if (record >= 0) landed.add(record);
  // A file there that no record names was changed outside interloper (see ledger-copies.ts): the
  // newest write's file was there before it, so that write landed.
  else if (identity !== null && newestRecord >= 0) landed.add(newestRecord);
  return { current, record, landed };
}

/** The marker line of a deleted file (see LocalFolder.delete): the lines before it, and the history, are of files gone. */
export function isDeletion(entry: LedgerEntry): boolean {
  return entry.file === "";
}

/** A folder's lines since its file was last deleted (all of them when it never was), and whether it was. */
export function sinceDeletion(entries: readonly LedgerEntry[]): { entries: readonly LedgerEntry[]; deleted: boolean } {
  for (let i = entries.length - 1; i >= 0; i--) if (isDeletion(entries[i]!)) return { entries: entries.slice(i + 1), deleted: true };
  return { entries, deleted: false };
}

/** The history beside a ledger: the records compactions moved out of it, as ledger lines. */
export function historyPathOf(ledger: string): string {
  return `${ledger}.history`;
}

/** A history's lines (empty when there is none or it cannot be read). */
export async function readHistory(path: string): Promise<LedgerRead> {
  const bytes = await readFile(path).catch(() => null);
  return parseLedger(bytes ? bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1).toString("utf8") : "");
}

/** The data file a folder's lines name: `{dir}/{folder}/{fileName}` for the ledger `{dir}/.{fileName}.ledger` ("" : `{dir}/{fileName}`). */
export function dataFileOf(ledger: string, folder: string): string | null {
  if (folder.includes("/") || folder.includes("\\") || folder.includes("\0") || folder === "." || folder === "..") return null;
  const fileName = basename(ledger).slice(1, -".ledger".length);
  return folder === "" ? join(dirname(ledger), fileName) : join(dirname(ledger), folder, fileName);
}

/** The identity of the file at a path; null when there is none (or it cannot be stat'ed). */
export function identityAt(path: string | null): string | null {
  if (path === null) return null;
  try {
    const info = statSync(path, { bigint: true, throwIfNoEntry: false });
    return info && info.isFile() ? fileIdentity(info) : null;
  } catch {
    return null;
  }
}

/**
 * What a compaction of the journal at `ledger` writes: per folder, the lines naming the file
 * there now (its count and its record) and the lines after them of writes that may still be
 * under way (four parts, modified less than ABANDONED_AFTER_MS ago, not yet known to have
 * landed: a writer appends its line before its rename); and the history, with the records of
 * past writes that landed moved into it, the last HISTORY_KEPT of each folder whose file is
 * there, null when it is unchanged. Lines of a folder whose file is gone, records of writes
 * that never landed, superseded recounts are left out.
 */
export function compactedJournal(
  ledger: string,
  journal: LedgerRead,
  history: LedgerRead,
  /** The folders the caller found a data file in: one found gone since keeps its last line, as in older versions. */
  listed: ReadonlySet<string>,
): { journal: LedgerEntry[]; history: string | null } {
  const now = Date.now();
  const kept: LedgerEntry[] = [];
  const moved = new Map<string, LedgerEntry[]>();
  const identities = new Map<string, string | null>();
  const identityOf = (folder: string) => {
    if (!identities.has(folder)) identities.set(folder, identityAt(dataFileOf(ledger, folder)));
    return identities.get(folder)!;
  };
  // A deletion drops the folder's history; with it done, its marker is needed no more.
  const deletedFolders = new Set<string>();
  let changed = false;
  for (const folder of journal.entries.keys()) {
    const { entries, deleted } = sinceDeletion(entriesOf(journal, folder));
    const identity = identityOf(folder);
    const state = folderState(entries, identity);
    if (deleted) deletedFolders.add(folder);
    const last = identity === null && listed.has(folder) ? entries.length - 1 : -1;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (i === state.current || i === state.record || i === last) kept.push(entry);
      else if (state.landed.has(i)) {
        if (identity === null) continue;
        moved.set(folder, [...(moved.get(folder) ?? []), entry]);
        changed = true;
      } else if (i > state.current && mayBeUnderWay(entry, now)) kept.push(entry);
    }
  }
  const past: LedgerEntry[] = [];
  for (const folder of new Set([...history.entries.keys(), ...moved.keys(), ...deletedFolders])) {
    const earlier = deletedFolders.has(folder) ? [] : entriesOf(history, folder);
    changed ||= deletedFolders.has(folder) && entriesOf(history, folder).length > 0;
    if (identityOf(folder) === null) {
      changed ||= earlier.length > 0;
      continue;
    }
    const records = distinct([...earlier, ...(moved.get(folder) ?? [])]);
    if (records.length > HISTORY_KEPT) changed = true;
    past.push(...records.slice(-HISTORY_KEPT));
  }
  return { journal: kept, history: changed ? past.map(entryLine).join("") : null };
}

/** A line of a write that may not have renamed its file yet: four parts, its file modified recently. */
function mayBeUnderWay(entry: LedgerEntry, now: number): boolean {
  if (beforeRenamePart(entry.file) !== entry.file) return false;
  const modified = modifiedMs(entry.file);
  return modified !== null && now - modified < ABANDONED_AFTER_MS;
}

/** Records once each (a line is written twice when a compaction ran during its append), the last copy kept. */
function distinct(entries: readonly LedgerEntry[]): LedgerEntry[] {
  const seen = new Set<string>();
  const kept: LedgerEntry[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const record = entries[i]!.metadata[RECORD_KEY];
    if (record === undefined || seen.has(record)) continue;
    seen.add(record);
    kept.push(entries[i]!);
  }
  return kept.reverse();
}
