import type { Stats } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DataNotFoundError } from "../../errors.js";
import type { Partition } from "../../partitioning/index.js";
import type { IOContext } from "../io-context.js";
import { partitionSegment, safeSegment, tableSegments } from "../paths.js";
import { sweepStaleTemps, TEMP_MARKER, writeFileAtomic } from "./atomic.js";

/** What the sidecar beside a data file remembers: its row count, valid while size and mtime match. */
interface CountRecord {
  readonly rows: number;
  readonly size: number;
  readonly mtimeMs: number;
}

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
  constructor(
    private readonly basePath: string,
    private readonly fileName: string,
    private readonly owner: string,
  ) {}

  tableDir(context: IOContext): string {
    return join(resolve(this.basePath), ...tableSegments(context, this.owner));
  }

  pathOf(context: IOContext, partition: Partition | null): string {
    const table = this.tableDir(context);
    return partition ? join(table, partitionSegment(context, partition, this.owner), this.fileName) : join(table, this.fileName);
  }

  /**
   * Replaces a partition's file atomically, then records its row count beside it. Temporary
   * files of dead writers (a process killed mid-write) are then removed from the partition's
   * folder, when it existed before, and once per process from the table's folder (the index's
   * temporary files live there): see `sweepStaleTemps`. Reads never sweep: counting, coverage
   * and --dry-run write nothing.
   */
  async write(
    context: IOContext,
    partition: Partition | null,
    chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
    /** The row count, or a function giving it once the chunks are consumed (for streams). */
    rows: number | (() => number),
  ): Promise<void> {
    const path = this.pathOf(context, partition);
    const written = await writeFileAtomic(path, chunks, { sweep: true });
    const record = { rows: typeof rows === "number" ? rows : rows(), size: written.size, mtimeMs: written.mtimeMs };
    await this.recordCount(path, record);
    if (partition) {
      await updateIndex(this.indexPath(context), partition.key, record);
      await sweepTableOnce(this.tableDir(context));
    }
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
   * Rows per partition key. A recorded count is trusted only while the data file's size and
   * modification time match what was recorded; otherwise the file is recounted (and the record
   * refreshed), so a file edited by hand is still counted right. Records come from a per-table
   * index that writes keep (one read for the whole table), falling back to each partition's
   * sidecar: counting thousands of partitions costs about a listing and a stat each.
   */
  async rowCounts(context: IOContext, recount: (path: string) => Promise<number>): Promise<Record<string, number>> {
    const table = this.tableDir(context);
    const prefix = `${safeSegment(context.partitionColumn(), "partition column", this.owner)}=`;
    const [listed, index] = await Promise.all([readdir(table).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : Promise.reject(error))), readIndex(this.indexPath(context))]);
    if (listed === null) return {};
    const names = listed.filter((name) => name.startsWith(prefix) && !name.includes(TEMP_MARKER));
    const paths = names.map((name) => join(table, name, this.fileName));
    // A stat holds no file descriptor: many at once, in slices that bound what is queued.
    const infos: Array<Stats | null> = [];
    for (let start = 0; start < paths.length; start += PARALLEL_STATS) {
      infos.push(...(await Promise.all(paths.slice(start, start + PARALLEL_STATS).map((path) => stat(path).catch(() => null)))));
    }
    const counts: Record<string, number> = {};
    const stale: number[] = [];
    const keys = names.map((name) => name.slice(prefix.length));
    keys.forEach((key, i) => {
      const info = infos[i];
      if (!info) return;
      const indexed = index[key];
      if (matchesFile(indexed, info)) counts[key] = indexed.rows;
      else stale.push(i);
    });
    // Partitions whose record is missing or out of date are read: a bounded number at once.
    let next = 0;
    const worker = async () => {
      while (next < stale.length) {
        const i = stale[next++]!;
        counts[keys[i]!] = (await this.countStale(paths[i]!, infos[i]!, recount)).rows;
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, stale.length) }, worker));
    // Listing order is the filesystem's; keys sort chronologically (or as declared) as strings.
    return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** The table's index of recorded counts, kept by writes (reads never write it). */
  private indexPath(context: IOContext): string {
    return join(this.tableDir(context), `.${this.fileName}.${context.partitionColumn()}.rows-index.json`);
  }

  /** The count of a file the index has no current record of: its sidecar's, or a recount. */
  private async countStale(path: string, info: Stats, recount: (path: string) => Promise<number>): Promise<CountRecord> {
    const record = await this.readCount(path);
    if (matchesFile(record, info)) return record;
    const rows = await recount(path);
    const after = await stat(path).catch(() => null);
    const counted = { rows, size: info.size, mtimeMs: info.mtimeMs };
    // Refresh the sidecar only if the file is still the one just counted.
    if (after && after.size === info.size && after.mtimeMs === info.mtimeMs) {
      await this.recordCount(path, counted).catch(() => undefined);
    }
    return counted;
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
    await writeFileAtomic(this.sidecarOf(path), [JSON.stringify(record)]);
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
  await writeFileAtomic(path, [JSON.stringify(index)]).catch(() => undefined);
}

async function readIndex(path: string): Promise<Record<string, CountRecord>> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, CountRecord>) : {};
  } catch {
    return {};
  }
}

/** Whether a count record describes the file as it is now (same size and modification time). */
function matchesFile(record: CountRecord | null | undefined, info: Stats): record is CountRecord {
  return !!record && record.size === info.size && record.mtimeMs === info.mtimeMs;
}
