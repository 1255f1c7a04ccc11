import { readFileSync } from "node:fs";
import { type FileHandle, open, readdir, readFile } from "node:fs/promises";
import { basename, dirname, join, sep } from "node:path";
import { DataNotFoundError } from "../../../errors.js";
import type { Partition } from "../../../partitioning/index.js";
import type { IOContext } from "../../io-context.js";
import { partitionSegment, safeSegment, tableSegments } from "../../paths.js";
import { orderedCounts } from "../../row-count.js";
import type { DropTarget } from "../../destination.js";
import { sweepStaleTemps } from "./atomic.js";
import { describeTableFolder, dropTableFolder } from "./drop-table.js";
import { fileIdentity } from "./file-identity.js";
import { fileIdentities } from "./stat-files.js";
import { Ledger, parseCount } from "./ledger.js";
import { LocalFolder, type RecordedFile } from "./local-folder.js";
import { currentEntry, RECORD_KEY } from "./ledger-lines.js";
import { decoding, reasonOf, type PartitionCounts, type UnreadablePartition } from "../../unreadable.js";

/**
 * A row count as tables of older versions recorded it, beside each data file
 * (`.data.csv.rows.json`) and in a per-table index (`.data.csv.{column}.rows-index.json`): still
 * read, for the files they name, and carried into the ledger the first time a table is counted.
 */
interface LegacyCount {
  readonly rows: number;
  readonly file: string;
}

/** Counts the rows of an open data file (read from its start; the caller closes it). */
export type Recount = (file: FileHandle) => Promise<number>;

// Reading many small files at once hides per-file latency; a bound keeps descriptors in check.
const PARALLEL_READS = 64;

/**
 * One data file per partition in hive folders, shared by the file-based destinations:
 * `{base}/{dataset}/{table}/{file}` and `{base}/{dataset}/{table}/{column}={key}/{file}`.
 * Each write is a put of the local folder store (atomic, its row count appended to the table's
 * ledger: see local-folder.ts), so that counting thousands of partitions costs a listing and a
 * stat each, not a parse of every file.
 */
export class PartitionFiles {
  /** The local folder store the files are put in. */
  readonly local: LocalFolder;

  constructor(
    /** Resolves the absolute base folder; called once, at first use (see Destination.resolvePath). */
    resolveFolder: () => string,
    /** Each partition's file name (`data.csv`). */
    readonly fileName: string,
    /** Names the destination in messages, as users wrote it. */
    readonly owner: string,
    /** Data files survive a machine crash once written (see `AtomicWriteOptions.durable`). */
    durable: boolean,
  ) {
    this.local = new LocalFolder(resolveFolder, owner, durable);
  }

  /** The absolute base folder, resolved at first use and kept: data never moves while in use. */
  get folder(): string {
    return this.local.folder;
  }

  tableDir(context: IOContext): string {
    return join(this.folder, ...tableSegments(context, this.owner));
  }

  pathOf(context: IOContext, partition: Partition | null): string {
    const table = this.tableDir(context);
    return partition ? join(table, partitionSegment(context, partition, this.owner), this.fileName) : join(table, this.fileName);
  }

  /**
   * Replaces a partition's file, its row count and its materialization record (see
   * `IOContext.materialization`, made once the chunks are consumed) appended to the table's
   * ledger before the rename (see LocalFolder.put): one atomic file write and one small append,
   * whatever the table's size. An unpartitioned asset's line goes to the ledger in its own
   * folder (see `placeOf`). Temporary files of dead writers are then removed from the
   * partition's folder, when it existed before, and once per process from the table's folder:
   * see `sweepStaleTemps`. Reads never sweep.
   */
  async write(
    context: IOContext,
    partition: Partition | null,
    chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
    /** The row count, or a function giving it once the chunks are consumed (for streams). */
    rows: number | (() => number),
    /** Whether the value is a table: a record of any other value holds no rows (null). */
    tabular = true,
  ): Promise<void> {
    const place = this.placeOf(context, partition);
    const metadata = () => {
      const count = typeof rows === "number" ? rows : rows();
      const record = context.materialization(partition, tabular ? count : null);
      return { row_count: String(count), [RECORD_KEY]: JSON.stringify(record) };
    };
    await this.local.put(place.path, chunks, metadata, place);
    if (partition) await sweepTableOnce(this.tableDir(context));
  }

  /**
   * Where a partition's ledger line goes: the table's ledger, its folder `{column}={key}`; for an
   * unpartitioned asset, the ledger in the table's own folder, folder "" (the folder above holds
   * other assets' folders: a ledger there would be dropped with another asset, or outlive this one's drop).
   */
  placeOf(context: IOContext, partition: Partition | null): RecordedFile {
    const path = this.pathOf(context, partition);
    if (partition) return { path, ...this.local.ledgerOf(path) };
    return { path, ledger: Ledger.of(this.tableDir(context), this.fileName), folder: "" };
  }

  /** A partition's bytes; DataNotFoundError with the path when it was never written. */
  async read(context: IOContext, partition: Partition | null): Promise<Buffer> {
    const path = this.pathOf(context, partition);
    try {
      // Read directly, not through libuv's thread pool: its four round trips (open, stat, read,
      // close) took longer than the read itself of a file the page cache holds, and each reader
      // goes on to parse the bytes synchronously, for far longer than a read blocks (W3: 365
      // files of 500 kB read back about 10% faster).
      return readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        const what = partition ? `partition ${partition.key} of` : "";
        throw new DataNotFoundError(`no data for ${what} asset "${context.asset.key}": ${path} does not exist`.replace("  ", " "), {
          cause: error,
        });
      }
      throw error;
    }
  }

  /**
   * Rows per partition key: a listing of the table's folder, a stat of each partition's file and
   * one read of the table's ledger. A ledger line is trusted only while the file is the one it
   * names (see file-identity.ts); otherwise the file is counted from what older versions
   * recorded for it or by reading it, and the count appended to the ledger, so a file edited by
   * hand or replaced by a racing writer is still counted right. Every folder named
   * `{column}=...` is a partition, whatever its key holds (`.tmp-` included: temporary files
   * are files, never these folders).
   */
  async rowCounts(context: IOContext, recount: Recount): Promise<PartitionCounts> {
    const table = this.tableDir(context);
    const prefix = `${safeSegment(context.partitionColumn(), "partition column", this.owner)}=`;
    const ledger = this.ledger(context);
    const [listed, journal] = await Promise.all([
      readdir(table).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : Promise.reject(error))),
      ledger.read(),
    ]);
    if (listed === null) return { counts: {}, unreadable: {} };
    // Sorted here, as names: keys sort chronologically (or as declared) as strings, and the
    // counts come back in that order without sorting a table of 100,000 entries afterwards.
    const names = listed.filter((name) => name.startsWith(prefix)).sort();
    // Joined by hand: path.join normalizes every path it makes, and that took 0.2 s of a count of
    // 100,000 partitions; a readdir entry and the file name hold no separator to normalize.
    const paths = names.map((name) => `${table}${sep}${name}${sep}${this.fileName}`);
    const identities = await fileIdentities(paths);
    const found: Array<number | null | undefined> = new Array(names.length);
    const stale: number[] = [];
    // Files a recount could not parse (cut short, corrupted): reported, never counted.
    const unreadable: Record<string, UnreadablePartition> = Object.create(null);
    for (let i = 0; i < names.length; i++) {
      const identity = identities[i];
      if (!identity) continue;
      const entry = currentEntry(journal, names[i]!, identity);
      const rows = entry ? parseCount(entry.metadata["row_count"]) : null;
      if (rows === null) stale.push(i);
      else found[i] = rows;
    }
    if (stale.length > 0) {
      const legacy = await readLegacyIndex(this.legacyIndexPath(context));
      let next = 0;
      // Partitions whose line is missing or out of date are counted: a bounded number at once.
      const worker = async () => {
        while (next < stale.length) {
          const i = stale[next++]!;
          const key = names[i]!.slice(prefix.length);
          found[i] = await this.countStale(paths[i]!, legacy[key], recount).catch((error: unknown) => {
            unreadable[key] = { file: paths[i]!, error: reasonOf(error) };
            return null;
          });
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, stale.length) }, worker));
    }
    // A journal of an older version (lines without a checksum) is rewritten with checksums.
    await ledger.compactIfWorthIt(
      journal.lines,
      names.filter((_, i) => identities[i] !== null),
      journal.legacy > 0,
    );
    const counts: Array<[string, number]> = [];
    for (let i = 0; i < names.length; i++) if (typeof found[i] === "number") counts.push([names[i]!.slice(prefix.length), found[i]!]);
    return { counts: orderedCounts(counts, context.asset.partitioning), unreadable };
  }

  /**
   * A partition's bytes decoded by `decode`: a failure to decode becomes an UnreadableDataError
   * naming the file, the asset and the partition.
   */
  async decode<T>(context: IOContext, partition: Partition | null, decode: (bytes: Buffer) => T | Promise<T>): Promise<T> {
    const bytes = await this.read(context, partition);
    return decoding(context, partition, this.pathOf(context, partition), () => decode(bytes));
  }

  /** Removes the asset's files and partition folders, ledger included (see drop-table.ts). */
  async drop(context: IOContext): Promise<void> {
    await dropTableFolder(this.folder, this.tableDir(context), this.fileName, this.owner);
  }

  /** What `drop` would remove. */
  describeDrop(context: IOContext): Promise<DropTarget> {
    return describeTableFolder(this.folder, this.tableDir(context), this.fileName, this.owner, context.asset.partitioning !== null);
  }

  private ledger(context: IOContext): Ledger {
    return Ledger.of(this.tableDir(context), this.fileName);
  }

  /** The per-table index of counts older versions kept (see LegacyCount). */
  private legacyIndexPath(context: IOContext): string {
    return join(this.tableDir(context), `.${this.fileName}.${context.partitionColumn()}.rows-index.json`);
  }

  /**
   * The count of a file the ledger has no current line for: what an older version recorded for
   * this very file (its index entry, or its sidecar), or a recount (null: the file is gone since
   * the listing). The file is read through one handle, which names the file counted and holds
   * it open until its ledger line is appended (see file-identity.ts): whatever replaces the file
   * meanwhile, the line describes what was counted.
   */
  private async countStale(path: string, indexed: LegacyCount | undefined, recount: Recount): Promise<number | null> {
    let handle: FileHandle;
    try {
      handle = await open(path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    try {
      const file = fileIdentity(await handle.stat({ bigint: true }));
      const legacy = [indexed, await readLegacySidecar(path, this.fileName)].find((count) => isLegacyCount(count) && count.file === file);
      const rows = legacy ? legacy.rows : await recount(handle);
      await Ledger.of(dirname(dirname(path)), this.fileName).append([
        { folder: basename(dirname(path)), file, metadata: { row_count: String(rows) } },
      ]);
      return rows;
    } finally {
      await handle.close();
    }
  }
}

// The table folders this process has swept. Once is enough: the sweep judges a dead writer's
// file by its pid only when it predates this process (see isStaleTemp), so a second sweep could
// only find files past the age limit since; and a listing of a large table per partition write
// would make a backfill quadratic.
const sweptTables = new Set<string>();

async function sweepTableOnce(folder: string): Promise<void> {
  if (sweptTables.has(folder)) return;
  sweptTables.add(folder);
  await sweepStaleTemps(folder);
}

function isLegacyCount(value: unknown): value is LegacyCount {
  const record = value as LegacyCount | null | undefined;
  return (
    typeof record === "object" &&
    record !== null &&
    Number.isSafeInteger(record.rows) &&
    record.rows >= 0 &&
    typeof record.file === "string"
  );
}

/** An older version's index, by partition key, in an object without a prototype (keys are list values, `__proto__` included). */
async function readLegacyIndex(path: string): Promise<Record<string, LegacyCount>> {
  const index: Record<string, LegacyCount> = Object.create(null);
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) Object.assign(index, parsed);
  } catch {
    // None (a table this version wrote), or cut short: sidecars, then recounts.
  }
  return index;
}

/** An older version's sidecar beside a data file, when it holds a well-formed count. */
async function readLegacySidecar(path: string, fileName: string): Promise<LegacyCount | null> {
  try {
    const record = JSON.parse(await readFile(join(dirname(path), `.${fileName}.rows.json`), "utf8")) as unknown;
    return isLegacyCount(record) ? record : null;
  } catch {
    return null;
  }
}
