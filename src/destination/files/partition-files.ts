import type { BigIntStats } from "node:fs";
import { type FileHandle, open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { DataNotFoundError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import type { IOContext } from "../io-context.js";
import { partitionSegment, safeSegment, tableSegments } from "../paths.js";
import { orderedCounts } from "../row-count.js";
import type { DropTarget } from "../destination.js";
import { sweepStaleTemps, writeFileAtomic } from "./atomic.js";
import { describeTableFolder, dropTableFolder } from "./drop-table.js";
import { fileIdentity } from "./file-identity.js";

/**
 * What the sidecar beside a data file (and the table's index) remembers: its row count, valid
 * only while the file at that path is exactly the one counted (`file`: see file-identity.ts).
 */
interface CountRecord {
  readonly rows: number;
  readonly file: string;
}

/** Counts the rows of an open data file (read from its start; the caller closes it). */
export type Recount = (file: FileHandle) => Promise<number>;

// Reading many small files at once hides per-file latency; a bound keeps descriptors in check.
const PARALLEL_READS = 64;
const PARALLEL_STATS = 1_024;

/**
 * One data file per partition in hive folders, shared by the file-based destinations:
 * `{base}/{dataset}/{table}/{file}` and `{base}/{dataset}/{table}/{column}={key}/{file}`.
 * Each write is atomic, and the row count is kept in a hidden sidecar so that counting
 * thousands of partitions costs a listing, not a parse of every file.
 */
export class PartitionFiles {
  #folder: string | undefined;

  constructor(
    /** Resolves the absolute base folder; called once, at first use (see Destination.resolvePath). */
    private readonly resolveFolder: () => string,
    private readonly fileName: string,
    private readonly owner: string,
    /** Data files survive a machine crash once written (see `AtomicWriteOptions.durable`). */
    private readonly durable: boolean,
  ) {}

  /** The absolute base folder, resolved at first use and kept: data never moves while in use. */
  get folder(): string {
    this.#folder ??= this.resolveFolder();
    return this.#folder;
  }

  tableDir(context: IOContext): string {
    return join(this.folder, ...tableSegments(context, this.owner));
  }

  pathOf(context: IOContext, partition: Partition | null): string {
    const table = this.tableDir(context);
    return partition ? join(table, partitionSegment(context, partition, this.owner), this.fileName) : join(table, this.fileName);
  }

  /**
   * Replaces a partition's file atomically, then records its row count beside it and in the
   * table's index, while the file is still open (see file-identity.ts). Temporary files of dead
   * writers (a process killed mid-write) are then removed from the partition's folder, when it
   * existed before, and once per process from the table's folder (the index's temporary files
   * live there): see `sweepStaleTemps`. Reads never sweep.
   *
   * Only the data file is synced (when durable): the records are caches. One lost in a crash,
   * or left older than the file, names another file (or none, or is not JSON) and the file is
   * recounted; a record that survives names a file whose bytes were synced before the record
   * was written.
   */
  async write(
    context: IOContext,
    partition: Partition | null,
    chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
    /** The row count, or a function giving it once the chunks are consumed (for streams). */
    rows: number | (() => number),
  ): Promise<void> {
    const path = this.pathOf(context, partition);
    const whileOpen = async (file: string) => {
      const record = { rows: typeof rows === "number" ? rows : rows(), file };
      await this.recordCount(path, record);
      if (partition) await updateIndex(this.indexPath(context), partition.key, record);
    };
    await writeFileAtomic(path, chunks, { durable: this.durable, sweep: true, whileOpen });
    if (partition) await sweepTableOnce(this.tableDir(context));
  }

  /** A partition's bytes; DataNotFoundError with the path when it was never written. */
  async read(context: IOContext, partition: Partition | null): Promise<Buffer> {
    const path = this.pathOf(context, partition);
    try {
      return await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        const what = partition ? `partition ${partition.key} of` : "";
        throw new DataNotFoundError(`no data for ${what} asset "${context.asset.key}": ${path} does not exist`.replace("  ", " "), { cause: error });
      }
      throw error;
    }
  }

  /**
   * Rows per partition key. A recorded count is trusted only while the file at its path is the
   * one it names (see file-identity.ts); otherwise the file is recounted (and its sidecar
   * refreshed), so a file edited by hand or replaced by a racing writer is still counted right.
   * Records come from a per-table index that writes keep (one read for the whole table), falling
   * back to each partition's sidecar: counting thousands of partitions costs about a listing
   * and a stat each. Every folder named `{column}=...` is a partition, whatever its key holds
   * (`.tmp-` included: temporary files are files, never these folders).
   */
  async rowCounts(context: IOContext, recount: Recount): Promise<Record<string, number>> {
    const table = this.tableDir(context);
    const prefix = `${safeSegment(context.partitionColumn(), "partition column", this.owner)}=`;
    const [listed, index] = await Promise.all([readdir(table).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : Promise.reject(error))), readIndex(this.indexPath(context))]);
    if (listed === null) return {};
    const names = listed.filter((name) => name.startsWith(prefix));
    const paths = names.map((name) => join(table, name, this.fileName));
    // A stat holds no file descriptor: many at once, in slices that bound what is queued.
    const infos: Array<BigIntStats | null> = [];
    for (let start = 0; start < paths.length; start += PARALLEL_STATS) {
      infos.push(...(await Promise.all(paths.slice(start, start + PARALLEL_STATS).map((path) => stat(path, { bigint: true }).catch(() => null)))));
    }
    // Keys are list values too: no prototype, so that a key such as `__proto__` is an own entry.
    const counts: Record<string, number> = Object.create(null);
    const stale: number[] = [];
    const keys = names.map((name) => name.slice(prefix.length));
    keys.forEach((key, i) => {
      const info = infos[i];
      if (!info) return;
      const indexed = index[key];
      if (describes(indexed, info)) counts[key] = indexed.rows;
      else stale.push(i);
    });
    // Partitions whose record is missing or out of date are read: a bounded number at once.
    let next = 0;
    const worker = async () => {
      while (next < stale.length) {
        const i = stale[next++]!;
        const rows = await this.countStale(paths[i]!, infos[i]!, recount);
        if (rows !== null) counts[keys[i]!] = rows;
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, stale.length) }, worker));
    // Listing order is the filesystem's.
    return orderedCounts(Object.entries(counts), context.asset.partitioning);
  }

  /** Removes the asset's files and partition folders, count records included (see drop-table.ts). */
  async drop(context: IOContext): Promise<void> {
    await dropTableFolder(this.folder, this.tableDir(context), this.fileName, this.owner);
  }

  /** What `drop` would remove. */
  describeDrop(context: IOContext): Promise<DropTarget> {
    return describeTableFolder(this.folder, this.tableDir(context), this.fileName, this.owner, context.asset.partitioning !== null);
  }

  /** The table's index of recorded counts, kept by writes (reads never write it). */
  private indexPath(context: IOContext): string {
    return join(this.tableDir(context), `.${this.fileName}.${context.partitionColumn()}.rows-index.json`);
  }

  /**
   * The count of a file the index has no current record of: its sidecar's, or a recount (null:
   * the file is gone since the listing). The recount reads the file through one handle, which
   * names the file counted and holds it open until its refreshed sidecar is written (see
   * file-identity.ts): whatever replaces the file meanwhile, the record describes what was counted.
   */
  private async countStale(path: string, info: BigIntStats, recount: Recount): Promise<number | null> {
    const record = await this.readCount(path);
    if (describes(record, info)) return record.rows;
    let handle: FileHandle;
    try {
      handle = await open(path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    try {
      const file = fileIdentity(await handle.stat({ bigint: true }));
      const rows = await recount(handle);
      await this.recordCount(path, { rows, file }).catch(() => undefined);
      return rows;
    } finally {
      await handle.close();
    }
  }

  private sidecarOf(path: string): string {
    return join(path, "..", `.${this.fileName}.rows.json`);
  }

  private async readCount(path: string): Promise<CountRecord | null> {
    try {
      const record = JSON.parse(await readFile(this.sidecarOf(path), "utf8")) as CountRecord;
      return Number.isInteger(record.rows) ? record : null;
    } catch {
      return null;
    }
  }

  private async recordCount(path: string, record: CountRecord): Promise<void> {
    await writeFileAtomic(this.sidecarOf(path), [JSON.stringify(record)], { durable: false });
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

// Index updates of one table are merged and written one at a time in this process: concurrent
// partition writes share a flush. Another process's flush may overwrite this one's entries; the
// index is only a cache, and a missing or stale entry falls back to the partition's sidecar.
const pendingEntries = new Map<string, Map<string, CountRecord>>();
const flushing = new Map<string, Promise<void>>();

async function updateIndex(path: string, key: string, record: CountRecord): Promise<void> {
  let pending = pendingEntries.get(path);
  if (!pending) pendingEntries.set(path, (pending = new Map()));
  pending.set(key, record);
  while (pendingEntries.get(path)?.has(key)) {
    const running = flushing.get(path);
    if (running) {
      await running;
      continue;
    }
    const flush = flushIndex(path).finally(() => flushing.delete(path));
    flushing.set(path, flush);
    await flush;
  }
}

async function flushIndex(path: string): Promise<void> {
  const entries = pendingEntries.get(path);
  pendingEntries.delete(path);
  if (!entries || entries.size === 0) return;
  const index = await readIndex(path);
  for (const [key, record] of entries) index[key] = record;
  await writeFileAtomic(path, [JSON.stringify(index)], { durable: false }).catch(() => undefined);
}

/** The index's entries by partition key, in an object without a prototype (keys are list values, `__proto__` included). */
async function readIndex(path: string): Promise<Record<string, CountRecord>> {
  const index: Record<string, CountRecord> = Object.create(null);
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) Object.assign(index, parsed);
  } catch {
    // No index yet, or one cut short: every partition falls back to its sidecar.
  }
  return index;
}

/** Whether a count record describes exactly the file `info` is a stat of. */
function describes(record: CountRecord | null | undefined, info: BigIntStats): record is CountRecord {
  return !!record && Number.isSafeInteger(record.rows) && record.rows >= 0 && record.file === fileIdentity(info);
}
