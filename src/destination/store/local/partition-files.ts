import { readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { ConfigError, DataNotFoundError } from "../../../errors.js";
import type { Partition } from "../../../partitioning/index.js";
import type { IOContext } from "../../io-context.js";
import { HiveLayout } from "../../hive.js";
import { tableSegments } from "../../paths.js";
import type { DropTarget } from "../../destination.js";
import { countPartitions } from "../partition-counts.js";
import { dropOwnFiles, dropTarget, type OwnFiles, type Ownership, ownFiles } from "../own-files.js";
import { sweepStaleTemps } from "./atomic.js";
import type { Recount } from "./folder-partitions.js";
import { Ledger } from "./ledger.js";
import { RECORD_KEY } from "./ledger-lines.js";
import { LocalFolder, type RecordedFile } from "./local-folder.js";
import { decoding, type PartitionCounts } from "../../unreadable.js";

export type { Recount } from "./folder-partitions.js";

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
    return partition ? join(table, ...this.layout(context).segments(partition), this.fileName) : join(table, this.fileName);
  }

  /** The hive folders of the asset's partitions (one level per dimension of a multi partitioning). */
  layout(context: IOContext): HiveLayout {
    return HiveLayout.of(context, this.owner);
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
   * Where a partition's ledger line goes: the table's ledger, its folder `{column}={key}` (a multi
   * partition's nested folders, `date=2026-01-05/region=eu`: one ledger per table, keyed by
   * the partition, whatever its depth); for an
   * unpartitioned asset, the ledger in the table's own folder, folder "" (the folder above holds
   * other assets' folders: a ledger there would be dropped with another asset, or outlive this one's drop).
   */
  placeOf(context: IOContext, partition: Partition | null): RecordedFile {
    const path = this.pathOf(context, partition);
    if (partition)
      return { path, ledger: Ledger.of(this.tableDir(context), this.fileName), folder: this.layout(context).folder(partition) };
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
   * Rows per partition key: the local folder's listing of the table's partitions (one folder
   * level, a stat of each file, the ledger: see folder-partitions.ts), counted by the one count
   * of every file store (../partition-counts.ts); `recount` counts a file the ledger has no
   * current line for.
   */
  async rowCounts(context: IOContext, recount: Recount): Promise<PartitionCounts> {
    const listing = await this.local.partitions(this.tableName(context), this.layout(context), this.fileName, recount);
    return countPartitions(listing, context.asset);
  }

  /**
   * A partition's bytes decoded by `decode`: a failure to decode becomes an UnreadableDataError
   * naming the file, the asset and the partition.
   */
  async decode<T>(context: IOContext, partition: Partition | null, decode: (bytes: Buffer) => T | Promise<T>): Promise<T> {
    const bytes = await this.read(context, partition);
    return decoding(context, partition, this.pathOf(context, partition), () => decode(bytes));
  }

  /**
   * Removes the asset's own files from its table folder, the one way every file store drops
   * (../own-files.ts): its data files, at the table's level and in its `{column}={key}` folders,
   * and the bookkeeping named after them (the ledger `.data.csv.ledger` and its compaction lock,
   * the records of older versions, `.data.csv.rows.json` and `.data.csv.date.rows-index.json`,
   * and the temporary files of any, `.data.csv.tmp-...`, `..data.csv.ledger.tmp-...`), then
   * each folder left empty, the table's included. Anything else there, another asset's folder
   * or a stranger's file, stays (and keeps its folder).
   */
  async drop(context: IOContext): Promise<void> {
    const own = await this.ownFiles(context);
    const table = this.tableName(context);
    const keep = table.includes("/") ? table.slice(0, table.lastIndexOf("/")) : "";
    await dropOwnFiles(own, (names) => this.local.delete(names, keep));
  }

  /** What `drop` would remove: the folder, and how many partition folders it holds. */
  async describeDrop(context: IOContext): Promise<DropTarget> {
    return dropTarget(`folder ${this.tableDir(context)}`, await this.ownFiles(context), context.asset.partitioning !== null);
  }

  /** The table's folder name, relative to the base folder. */
  private tableName(context: IOContext): string {
    return tableSegments(context, this.owner).join("/");
  }

  /** The asset's own files in its table folder, which must be strictly inside the base folder. */
  private ownFiles(context: IOContext): Promise<OwnFiles> {
    const table = this.tableDir(context);
    const path = relative(this.folder, table);
    if (path === "" || path === ".." || path.startsWith(`..${"/"}`) || path.startsWith("..\\") || isAbsolute(path)) {
      throw new ConfigError(`${this.owner}: refusing to drop ${table}: it is not a folder inside ${this.folder}`);
    }
    const fileName = this.fileName;
    const owns: Ownership = {
      isData: (file) => file === fileName,
      isOwn: (file) => file === fileName || file.startsWith(`.${fileName}`) || file.startsWith(`..${fileName}`),
    };
    const name = this.tableName(context);
    return ownFiles(this.local.tableFiles(name), `${name}/`, owns);
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
