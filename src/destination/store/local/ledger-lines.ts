// The lines of a table's ledger (see ledger.ts): how an entry is written, with its checksum, and
// how a journal's text is read back, skipping lines cut short, changed or not entries at all.

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
  readonly lines: number;
  /** Lines of older versions, without a checksum: trusted as they were, and rewritten with one (see `upgradeOnce` in ledger.ts). */
  readonly legacy: number;
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
 * does not hold) are skipped. Lines of older versions, without a checksum, are read as before
 * and counted in `legacy`, for the journal to be rewritten with checksums.
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
  const entries = new Map<string, LedgerEntry>();
  let legacy = 0;
  for (let i = 0; i < lines.length; i++) {
    if (addEntry(entries, parsed ? parsed[i] : parseLine(lines[i]!), lines[i]!) === "legacy") legacy++;
  }
  return { entries, lines: lines.length, legacy };
}

export function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** Adds a parsed line when it is a well-formed entry; "legacy" for one without a checksum. */
function addEntry(entries: Map<string, LedgerEntry>, parsed: unknown, line: string): "added" | "legacy" | "skipped" {
  if (!Array.isArray(parsed) || (parsed.length !== 3 && parsed.length !== 4)) return "skipped";
  const [folder, file, metadata, checksum] = parsed as unknown[];
  if (typeof folder !== "string" || typeof file !== "string" || !isStringRecord(metadata)) return "skipped";
  if (parsed.length === 4 && !checksumHolds(line, checksum)) return "skipped";
  setLast(entries, { folder, file, metadata });
  return parsed.length === 3 ? "legacy" : "added";
}

/** Re-inserted so that iteration follows the last write of each folder. */
export function setLast(entries: Map<string, LedgerEntry>, entry: LedgerEntry): void {
  entries.delete(entry.folder);
  entries.set(entry.folder, entry);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === "string");
}
