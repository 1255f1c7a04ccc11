// The materialization records a table's ledger holds, as readers want them: the current record of
// each file, and the records of past writes (see file-identity.ts for why they are exact).
import { mergeNewestFirst } from "../../provenance/history-order.js";
import { parseMaterialization, type Materialization } from "../../provenance/materialization.js";
import { namesFile } from "./file-identity.js";
import type { Ledger } from "./ledger.js";
import { changedOutside, recognizeCopy } from "./ledger-copies.js";
import { currentEntry, entriesOf, type LedgerEntry, type LedgerRead, RECORD_KEY, recordEntry } from "./ledger-lines.js";
import { folderState, historyPathOf, identityAt, readHistory, sinceDeletion } from "./ledger-history.js";

/** A data file and where its ledger line is: the ledger, and the line's folder (see LocalFolder.ledgerOf). */
export interface RecordedFile {
  readonly path: string;
  readonly ledger: Ledger;
  readonly folder: string;
}

/** Whether a record read for a file is that file's (see ForeignRecords); one that is not is left out. */
export type Owns = (file: RecordedFile, record: Materialization) => boolean;

/**
 * Records found, the ledgers (or histories) holding a record that could not be read (damaged,
 * edited by hand), and the files changed outside interloper (see `changedOutside`).
 */
export interface RecordsRead<T> {
  readonly records: T;
  readonly damaged: readonly string[];
  readonly changed: readonly string[];
}

/**
 * The record of each file's current content, by path: that of the newest line naming the file
 * there now and holding one. A file without one (written before records were kept, recounted,
 * replaced by hand) is left out, as is a file whose record cannot be read (its ledger named in
 * `damaged`). One read of each ledger, one stat of each file.
 */
export async function currentRecords(files: readonly RecordedFile[]): Promise<RecordsRead<Map<string, Materialization>>> {
  const reads = new Map<string, Promise<LedgerRead>>();
  const records = new Map<string, Materialization>();
  const damaged = new Set<string>();
  const changed: string[] = [];
  for (const file of files) {
    const known = await knownFile(reads, file);
    if (!known) continue;
    const { read, identity } = known;
    const entry = recordEntry(read, file.folder, identity);
    if (!entry) {
      // A line naming this file whose checksum fails: its record was changed in place.
      const rejected = read.rejected?.get(file.folder) ?? [];
      if (rejected.some((line) => line.metadata[RECORD_KEY] !== undefined && namesFile(line.file, identity))) damaged.add(file.ledger.path);
      else if (changedOutside(read, file.folder, identity)) changed.push(file.path);
      continue;
    }
    const record = recordOf(entry);
    if (record) records.set(file.path, record);
    else damaged.add(file.ledger.path);
  }
  return { records, damaged: [...damaged], changed };
}

/**
 * The identity of the file at a path (null: none there) and its ledger's lines, after a copy no
 * line named yet is given a line of its own (see `recognizeCopy`): the ledger read again then.
 */
async function knownFile(
  reads: Map<string, Promise<LedgerRead>>,
  file: RecordedFile,
): Promise<{ read: LedgerRead; identity: string } | null> {
  const identity = identityAt(file.path);
  if (identity === null) return null;
  const read = await readOnce(reads, file.ledger);
  if (currentEntry(read, file.folder, identity) || !(await recognizeCopy(file.ledger, read, file.folder, file.path)))
    return { read, identity };
  const again = file.ledger.read();
  reads.set(file.ledger.path, again);
  return { read: await again, identity: identityAt(file.path) ?? identity };
}

/**
 * The records of the writes of these files that landed, the current ones included, newest first
 * (see `folderState`): from each ledger, then from the history beside it (read after the ledger,
 * so that a compaction moving records between the two is seen in one or both, never neither; a
 * record in both is given once). A file no longer there has none.
 *
 * A file's records come in the order its writes landed, as far as the ledger tells it: the
 * current record first (its file was renamed in last), then the others by their lines, newest
 * first, the history's before the journal's (a compaction moves there the records of writes
 * already replaced by then). Not by end time: a record's end is taken in milliseconds before its line is appended,
 * so writes ending in one millisecond (one writer's consecutive writes, or two writers) would
 * come in the order of their random ids, and a writer whose record ended first may rename last
 * (the current record then came second). Several files' records are merged by end time (see
 * history-order.ts).
 */
export async function pastRecords(files: readonly RecordedFile[], owns: Owns = () => true): Promise<RecordsRead<Materialization[]>> {
  const reads = new Map<string, Promise<LedgerRead>>();
  const histories = new Map<string, Promise<LedgerRead>>();
  const damaged = new Set<string>();
  const changed: string[] = [];
  const lists: Materialization[][] = [];
  for (const file of files) {
    const known = await knownFile(reads, file);
    if (!known) continue;
    const { read: journal, identity } = known;
    if (changedOutside(journal, file.folder, identity)) changed.push(file.path);
    if (holdsRejectedRecord(journal, file.folder)) damaged.add(file.ledger.path);
    const { entries, deleted } = sinceDeletion(entriesOf(journal, file.folder));
    const state = folderState(entries, identity);
    // Oldest first: the history's lines, the journal's landed lines in their order, the current one.
    const texts: Array<[string, string]> = [];
    if (!deleted) {
      const historyPath = historyPathOf(file.ledger.path);
      let history = histories.get(historyPath);
      if (!history) histories.set(historyPath, (history = readHistory(historyPath)));
      if (holdsRejectedRecord(await history, file.folder)) damaged.add(historyPath);
      for (const entry of entriesOf(await history, file.folder)) {
        const text = entry.metadata[RECORD_KEY];
        if (text !== undefined) texts.push([historyPath, text]);
      }
    }
    const landed = [...state.landed].filter((at) => at !== state.record).sort((a, b) => a - b);
    if (state.record >= 0) landed.push(state.record);
    for (const at of landed) texts.push([file.ledger.path, entries[at]!.metadata[RECORD_KEY]!]);
    lists.push(newestFirstOf(texts, damaged).filter((record) => owns(file, record)));
  }
  return { records: mergeNewestFirst(lists), damaged: [...damaged], changed };
}

/** Whether a folder has a line holding a record whose checksum fails or is missing (changed in place: see ledger-lines.ts). */
function holdsRejectedRecord(read: LedgerRead, folder: string): boolean {
  return (read.rejected?.get(folder) ?? []).some((line) => line.metadata[RECORD_KEY] !== undefined);
}

/**
 * The records of `texts` (oldest first, each with where it is), newest first; a record given
 * twice (in the history and the journal, or a line written twice) takes its newest place. One
 * that cannot be read adds where it is to `damaged`.
 */
function newestFirstOf(texts: ReadonlyArray<readonly [string, string]>, damaged: Set<string>): Materialization[] {
  const seen = new Set<string>();
  const records: Materialization[] = [];
  for (let i = texts.length - 1; i >= 0; i--) {
    const [where, text] = texts[i]!;
    const record = parseMaterialization(text);
    if (!record) damaged.add(where);
    else if (!seen.has(record.id)) {
      seen.add(record.id);
      records.push(record);
    }
  }
  return records;
}

// A ledger's lines are kept between reads (see Ledger.read), and a line's record is parsed once:
// coverage marks stale partitions from thousands of records on every call, and parsing them
// afresh each time made it several times slower than the counts alone (bench ST10Y).
const parsed = new WeakMap<LedgerEntry, Materialization | null>();

/** The record a line holds, parsed the first time it is asked for; null when it cannot be read. */
export function recordOf(entry: LedgerEntry): Materialization | null {
  let record = parsed.get(entry);
  if (record === undefined) parsed.set(entry, (record = parseMaterialization(entry.metadata[RECORD_KEY]!)));
  return record;
}

function readOnce(reads: Map<string, Promise<LedgerRead>>, ledger: Ledger): Promise<LedgerRead> {
  let read = reads.get(ledger.path);
  if (!read) reads.set(ledger.path, (read = ledger.read()));
  return read;
}
