import { DataNotFoundError, SchemaError } from "../../errors.js";
import { MultiPartitionConfig, TimePartitionConfig } from "../../partitioning/index.js";
import { describeValue } from "../../text/describe-value.js";
import type { Partition, PartitionConfig, TimeGranularity } from "../../partitioning/index.js";
import { TableData } from "../../representation/index.js";
import { inferFieldSpecs, reconcileRows } from "../../schema/index.js";
import { Destination, type DropTarget } from "../destination.js";
import { missingHook } from "../hook-check.js";
import { orderedCounts } from "../row-count.js";
import type { IOContext } from "../io-context.js";
import type { Materialization } from "../provenance/materialization.js";
import { checkDatabaseSubclass, definedAtOrBelow } from "./override-check.js";
import { countColumns, filtersOf, partitionKeyOf, type PartitionWhere } from "./partition-keys.js";
import { forgetTable, PARTITION_TABLE, partitionTableContext, recordWritten, writtenAmong, writtenKeys } from "./partition-table.js";
import { checkWindowRows } from "./window-check.js";
import { throughUnit } from "./unit-check.js";
import { nounFor } from "../../text/english.js";
import type { MaybePromise } from "../../maybe-promise.js";

/** What a write transaction replaces: the partitions (keys) of a table, or all of it (null). */
export interface WriteScope {
  readonly table: string;
  readonly dataset: string | null;
  readonly partitions: readonly string[] | null;
}

/**
 * A destination whose partitions are rows of a table, selected by a PartitionFilter. A backend
 * writes four dialect hooks (insert, delete, select, count) and optionally `transaction`; the
 * base owns replacing, filters, ordering, row counts and validation. The window methods are the
 * contract here: `write`/`read` take a whole window, the per-partition hooks call them.
 *
 * The hooks' contract is written here once (DatabaseHooks and PartitionRecords are views of it).
 * The base sends a hook a filter `{ column, value }` or `{ column, start, end }` (half-open), an
 * array of those that must all hold (a multi partition's, one per dimension), or null, nothing
 * else. `count` (and `countPeriods`) get several columns for a multi partitioning.
 */
export abstract class DatabaseDestination extends Destination {
  constructor(options?: object) {
    super(options);
    checkDatabaseSubclass(this, DatabaseDestination);
  }

  /** Inserts the (conformed) data; creates or evolves the table from `context` first. */
  abstract insert(table: string, dataset: string | null, data: unknown, context: IOContext): MaybePromise<void>;
  /** Deletes the rows `where` selects, every row when null; nothing for a missing table. */
  abstract delete(table: string, dataset: string | null, where: PartitionWhere | null): MaybePromise<void>;
  /** The rows `where` selects in the backend's native shape, or null when the table is missing. */
  abstract select(table: string, dataset: string | null, where: PartitionWhere | null): MaybePromise<unknown>;
  /**
   * Rows per stored value of `column`, values as text (ISO 8601 for dates); {} for a missing table.
   * Several columns (a multi partitioning's, time first: see `countColumns`): rows per stored
   * combination of non-null values, each value as text, joined by "|" in the order given.
   */
  abstract count(table: string, dataset: string | null, column: string | readonly string[]): MaybePromise<Record<string, number>>;
  /**
   * Optional, for time partitions (and a multi partitioning's time column, first of several):
   * `count`, except that the values of one period of `granularity` may come merged under any one value of that period (the built-in SQL
   * backends give its start), so that the database returns a row per partition rather than
   * one per distinct value. Null when it cannot for this column: the base then calls `count`.
   * Not called when a subclass overrides `count` below the class that defines this.
   */
  countPeriods?(
    table: string,
    dataset: string | null,
    column: string | readonly string[],
    granularity: TimeGranularity,
  ): MaybePromise<Record<string, number> | null>;
  /**
   * Optional, with `writtenPartitions`: records, inside the write's transaction, that these
   * partitions of `table` were written (an empty partition then reads as empty, not missing).
   * Without the pair the base records them in a table `_interloper_partitions` of the dataset,
   * through the four hooks and `{ column, value }` filters.
   */
  recordPartitions?(table: string, dataset: string | null, keys: readonly string[]): MaybePromise<void>;
  /** Optional, with `recordPartitions`: which of `keys` (all, when null) were recorded for `table`. */
  writtenPartitions?(table: string, dataset: string | null, keys: readonly string[] | null): MaybePromise<Iterable<string>>;
  /** With `recordPartitions`, for `materialize --full-refresh`: forgets every partition recorded for `table`. */
  forgetPartitions?(table: string, dataset: string | null): MaybePromise<void>;
  /**
   * Optional (provenance), with `materializations`, `materializationHistory` and the
   * `recordPartitions` trio (the built-in SQL backends have them all): stores, inside the write's
   * transaction after the data, the materialization record of each partition written (one for an
   * unpartitioned asset, whose `partition` is null). The base then records the written
   * partitions through this hook alone, not `recordPartitions`. Without it, provenance is unknown.
   */
  recordMaterializations?(table: string, dataset: string | null, records: readonly Materialization[]): MaybePromise<void>;

  /**
   * Optional, for `materialize --full-refresh`: drops the table, its indexes and anything else
   * the database keeps of it; nothing for a missing table. The base removes the table's entries
   * from the partition table itself.
   */
  dropTable?(table: string, dataset: string | null): MaybePromise<void>;

  /**
   * Runs `fn` as one unit: each delete-then-insert of `scope` (given by `write`, which a backend
   * may lock against other writers). A no-op wrapper unless a backend has one.
   */
  transaction<T>(fn: () => Promise<T>, _scope?: WriteScope): Promise<T> {
    return fn();
  }

  /**
   * Runs `fn`, a read of several statements (rows, then the partition table), on one snapshot of the
   * database: a write committing between two of them would show a partition written for the
   * first time as written yet empty. `fn`'s errors pass through unchanged. A no-op wrapper
   * unless a backend has one.
   */
  snapshot<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  /**
   * Creates or evolves the table before the transaction starts. Optional: a backend whose DDL
   * commits an open transaction (MySQL) does it here, so a failed write cannot half-apply.
   */
  protected ensureTable(_table: string, _dataset: string | null, _context: IOContext): MaybePromise<void> {}

  /**
   * Replaces the window: deletes every partition it covers and inserts the batch once, in one
   * transaction, so a failure anywhere leaves the previous rows in place.
   */
  override async write(context: IOContext, data: unknown): Promise<void> {
    const table = TableData.from(data);
    if (!table) {
      throw new SchemaError(
        `${this.displayName} stores tables only: asset "${context.asset.key}" gave ${describeValue(data)}, expected rows or columns`,
      );
    }
    const { table: name, dataset } = context.asset;
    const window = context.window;
    const column = window ? context.partitionColumn() : null;
    const rows =
      window && column ? checkWindowRows(context.asset.key, this.displayName, table, window, column, context.logger) : [table.length];
    // Data arrives conformed; without a schema the columns come from the rows themselves.
    const typed = context.schema ? context : context.withSchema(inferFieldSpecs(table.rows));
    await this.ensureTable(name, dataset, typed);
    const records = this.recordMaterializations;
    if (window || records) await this.ensureTable(PARTITION_TABLE, dataset, partitionTableContext(dataset));
    const scope: WriteScope = { table: name, dataset, partitions: window ? window.partitions.map((p) => p.key) : null };
    const unwritten = `asset "${context.asset.key}" was not written${window ? ` for ${String(window)}` : ""}`;
    const replace = async () => {
      if (window && column) for (const filter of filtersOf(window, column)) await this.delete(name, dataset, filter);
      else await this.delete(name, dataset, null);
      await this.insert(name, dataset, table.data, typed);
      // Built in the transaction, at its end: a MySQL deadlock's victim runs this again, and the
      // record stored is the one of the attempt that commits.
      if (records)
        await records.call(
          this,
          name,
          dataset,
          context.partitions.map((p, i) => context.materialization(p, rows[i]!)),
        );
      else if (window) await recordWritten(this, name, dataset, window);
    };
    await throughUnit(this, "transaction", replace, unwritten, scope);
  }

  /** Reads a window, oldest partition first; rows are restored to context.schema's types. */
  override read(context: IOContext): Promise<unknown> {
    return throughUnit(this, "snapshot", () => this.#readWindow(context), `asset "${context.asset.key}" was not read`);
  }

  /** `read`, inside its snapshot: the rows, and for an empty partition whether it was written. */
  async #readWindow(context: IOContext): Promise<unknown> {
    const { table: name, dataset } = context.asset;
    const window = context.window;
    const column = window ? context.partitionColumn() : null;
    const selected = await this.#select(name, dataset, window && column ? filtersOf(window, column) : [null]);
    if (selected === null || selected === undefined) {
      const scope = window ? ` (${nounFor(window.partitions.length, "partition")} ${window.partitions.map((p) => p.key).join(", ")})` : "";
      throw new DataNotFoundError(
        `no data for asset "${context.asset.key}"${scope} in ${this.displayName}: table ${this.#where(context)} does not exist`,
      );
    }
    let table = TableData.from(selected);
    if (!table) return selected;
    if (window && column) {
      const split = table.split(window, column);
      const empty = split.slices.filter(([, slice]) => slice.length === 0).map(([p]) => p.key);
      if (empty.length > 0) {
        const written = await writtenAmong(this, name, dataset, empty);
        const missing = empty.filter((key) => !written.has(key));
        if (missing.length > 0) {
          throw new DataNotFoundError(
            `no data for asset "${context.asset.key}" in ${this.displayName} table ${this.#where(context)}: ${nounFor(missing.length, "partition")} ${missing.join(", ")} never written`,
          );
        }
      }
      // Rows come back in insertion order; the window's order (oldest or declared first) wins.
      if (window.length > 1) table = TableData.join(split.slices.map(([, slice]) => slice));
    }
    if (context.schema && table.kind === "rows")
      return reconcileRows(table.rows, context.schema, { assetKey: context.asset.key, typed: true });
    return table.data;
  }

  /** Writes one partition: `write` over the partition's own window. */
  writePartition(context: IOContext, partition: Partition | null, data: unknown): Promise<void> {
    return this.write(context.withWindow(partition), data);
  }

  /** Reads one partition: `read` over the partition's own window. */
  readPartition(context: IOContext, partition: Partition | null): Promise<unknown> {
    return this.read(context.withWindow(partition));
  }

  override missingDropHook(): string | null {
    // A backend keeping its own partition table must forget a dropped table's partitions too.
    return missingHook(this, ["dropTable(table, dataset)", ...(this.recordPartitions ? ["forgetPartitions(table, dataset)"] : [])]);
  }

  /**
   * Drops the asset's table and its entries in the partition table, in one transaction where
   * the database has transactional DDL. The partition table goes first: were the drop to fail after it
   * (MySQL commits at DDL), the partitions would show missing, never written yet absent.
   */
  override async dropAsset(context: IOContext): Promise<void> {
    const { table, dataset } = context.asset;
    const drop = async () => {
      await forgetTable(this, table, dataset);
      await this.dropTable!(table, dataset);
    };
    await throughUnit(this, "transaction", drop, `asset "${context.asset.key}" was not dropped`, { table, dataset, partitions: null });
  }

  /** The table and where it is; its partitions counted as coverage counts them. */
  override async describeDrop(context: IOContext): Promise<DropTarget> {
    const partitions = context.asset.partitioning ? Object.keys(await this.partitionRowCounts(context)).length : null;
    const exists = (await this.tableExists(context.asset.table, context.asset.dataset)) ?? (partitions === null || partitions > 0);
    return { what: `table ${this.#where(context)}${this.location === null ? "" : ` in ${this.location}`}`, partitions, exists };
  }

  /** Whether the table exists; null when the backend cannot tell (the base then guesses from its partitions). */
  protected tableExists(_table: string, _dataset: string | null): MaybePromise<boolean | null> {
    return null;
  }

  /** Rows per partition key: stored values mapped through the partitioning, written-but-empty ones as 0. */
  async partitionRowCounts(context: IOContext): Promise<Record<string, number>> {
    const { table: name, dataset, partitioning } = context.asset;
    const column = context.partitionColumn();
    // Rows and partition table from one snapshot, as in `read`.
    const both = async () =>
      [await this.#storedCounts(name, dataset, column, partitioning), await writtenKeys(this, name, dataset)] as const;
    const [stored, written] = await throughUnit(this, "snapshot", both, `the partitions of asset "${context.asset.key}" were not counted`);
    const counts = new Map<string, number>();
    for (const [value, n] of Object.entries(stored)) {
      const key = partitionKeyOf(partitioning, value);
      if (key !== null) counts.set(key, (counts.get(key) ?? 0) + n);
    }
    for (const key of written) if (!counts.has(key)) counts.set(key, 0);
    return orderedCounts(counts, partitioning);
  }

  /** Rows per stored value (a multi partitioning's combination), grouped by period where the backend can (`countPeriods`). */
  async #storedCounts(table: string, dataset: string | null, column: string, partitioning: PartitionConfig | null) {
    const multi = partitioning instanceof MultiPartitionConfig;
    const columns = multi ? countColumns(partitioning) : column;
    const granularity = multi ? partitioning.granularity : partitioning instanceof TimePartitionConfig ? partitioning.granularity : null;
    if (granularity && this.countPeriods && definedAtOrBelow(this, "countPeriods", "count")) {
      const periods = await this.countPeriods(table, dataset, columns, granularity);
      if (periods !== null) return periods;
    }
    return this.count(table, dataset, columns);
  }

  /** `select` of every filter, joined in order; null when the table does not exist. */
  async #select(table: string, dataset: string | null, filters: readonly (PartitionWhere | null)[]): Promise<unknown> {
    if (filters.length === 1) return this.select(table, dataset, filters[0]!);
    const tables: TableData[] = [];
    for (const filter of filters) {
      const selected = await this.select(table, dataset, filter);
      if (selected === null || selected === undefined) return null;
      const data = TableData.from(selected);
      if (!data) return selected;
      tables.push(data);
    }
    return TableData.join(tables).data;
  }

  /** `dataset.table`, for messages. */
  #where(context: IOContext): string {
    return context.asset.dataset ? `${context.asset.dataset}.${context.asset.table}` : context.asset.table;
  }
}
