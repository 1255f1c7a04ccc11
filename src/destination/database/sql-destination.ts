import { ConfigError, SchemaError } from "../../errors.js";
import { describeValue } from "../../text/describe-value.js";
import type { TimeGranularity } from "../../partitioning/index.js";
import { type Row, TableData } from "../../representation/index.js";
import { inferFieldSpecs } from "../../schema/index.js";
import type { HistoryQuery } from "../destination.js";
import type { IOContext } from "../io-context.js";
import { ForeignRecords } from "../provenance/foreign-records.js";
import type { Materialization } from "../provenance/materialization.js";
import { count as countOf } from "../../text/english.js";
import { DatabaseDestination, type WriteScope } from "./database-destination.js";
import { checkDoubleIntegers, widenedIntoDouble } from "./integer-widening.js";
import type { PartitionWhere } from "./partition-keys.js";
import { PARTITION_ENTRY, PARTITION_TABLE, partitionTable } from "./partition-table.js";
import { HISTORY_TABLE } from "./provenance-statements.js";
import { historyTableContext, type ReadRecords, recordsTableContext, SqlProvenance } from "./provenance-tables.js";
import { ROW_COLUMN, type SqlDialect } from "./sql-dialect.js";
import type { SqlDriver } from "./sql-driver.js";
import { SqlTables } from "./sql-tables.js";
import { countStatement, deleteStatement, namedRow, periodCountStatement, selectStatement } from "./sql-statements.js";
import { restoreStoredRows, storedKinds } from "./stored-values.js";
import { keyedTable, ownEntry } from "../../keyed.js";

/** Text for a stored value as `count` keys it: ISO 8601 for instants. */
function keyText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** Adds a count row's `n` under its value's text, joined by "|" with its `others` key columns' (`k0`, ...). */
function add(counts: Record<string, number>, row: Row, value: unknown, others: number): void {
  let key = keyText(value);
  for (let i = 0; i < others; i++) key += `|${keyText(row[`k${i}`])}`;
  counts[key] = (ownEntry(counts, key) ?? 0) + Number(row["n"]);
}

/**
 * A table database reached through SQL: the hooks (insert, delete, select, count, the partition table,
 * dropping, transactions, snapshots) written once, over a dialect (a SqlDialect: every SQL text
 * and the reading of driver errors) and a driver (a SqlDriver: the connection, running, bulk
 * loading, units of work). A backend's class only builds the two from its options.
 */
export abstract class SqlDestination extends DatabaseDestination {
  /** Its database's SQL. */
  protected abstract readonly dialect: SqlDialect;
  /** Its connection to the database. */
  protected abstract readonly driver: SqlDriver;
  /** Its tables: creation, evolution, indexes, and the catalog as last read. */
  readonly #tables = new SqlTables({
    dialect: () => this.dialect,
    driver: () => this.driver,
    run: (sql) => this.run(sql),
    name: () => this.displayName,
  });
  /** Its materialization records, in the partition table and the history beside it. */
  readonly #provenance = new SqlProvenance({
    dialect: () => this.dialect,
    driver: () => this.driver,
    columnsOf: (table, dataset, fresh) => (fresh ? this.#tables.freshColumnsOf(table, dataset) : this.#tables.columnsOf(table, dataset)),
    deleteEntries: (dataset, entries) => this.delete(PARTITION_TABLE, dataset, { column: PARTITION_ENTRY, values: entries }),
    lock: (table, dataset) => this.#lock(table, dataset),
  });

  /** Runs one statement through the driver, inside the current transaction when there is one; returns its rows. */
  protected run(sql: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.driver.run(sql, params);
  }

  override get location(): string {
    return this.driver.place.location;
  }

  override loadDrivers(): Promise<void> {
    return this.driver.loadDrivers();
  }

  /** Ends the connection; the next use opens it again. */
  override close(): Promise<void> {
    return this.driver.close();
  }

  /**
   * Refuses, before any destination of the asset writes, data whose schema changes the type of
   * a column the table has (the SchemaError `sameType` gives): the asset's other destinations
   * then keep their old data too, rather than hold new data this table cannot take.
   */
  override async checkWrite(context: IOContext): Promise<void> {
    if (!context.schema) return;
    const { table, dataset } = context.asset;
    // Only a changed type is refused here: a database that cannot be reached (or a SQLite file
    // whose folder another destination's write makes) is left to the write itself.
    const columns = await this.driver.readColumns(table, dataset).catch(() => null);
    if (columns) for (const field of context.schema) this.#tables.sameType(columns, field, context, table);
  }

  /** Writes the window (see DatabaseDestination.write), then builds the indexes it deferred. */
  override async write(context: IOContext, data: unknown): Promise<void> {
    try {
      await super.write(context, data);
    } finally {
      await this.#tables.buildDeferred();
    }
  }

  /** One transaction on one connection of the driver, rolled back whole when `fn` fails. */
  override transaction<T>(fn: () => Promise<T>, scope?: WriteScope): Promise<T> {
    return this.driver.transaction(fn, scope, () => this.#tables.forget());
  }

  /** One snapshot of the database, which every statement of `fn` reads. */
  override snapshot<T>(fn: () => Promise<T>): Promise<T> {
    return this.driver.snapshot(fn, () => this.#tables.forget());
  }

  /** Records written partitions in the dataset's partition table, one statement for a whole window. */
  override recordPartitions(table: string, dataset: string | null, keys: readonly string[]): Promise<void> {
    return partitionTable.record(this, table, dataset, keys);
  }

  override writtenPartitions(table: string, dataset: string | null, keys: readonly string[] | null): Promise<string[]> {
    return partitionTable.written(this, table, dataset, keys);
  }

  /** Forgets the table's partitions and its materialization records, current and past (the unpartitioned one too). */
  override forgetPartitions(table: string, dataset: string | null): Promise<void> {
    return this.#provenance.forget(table, dataset);
  }

  /** Stores the records of a write, in its transaction (see SqlProvenance.record). */
  override recordMaterializations(table: string, dataset: string | null, records: readonly Materialization[]): Promise<void> {
    return this.#provenance.record(table, dataset, records);
  }

  /** The record of each stored partition of the window (every one without a window), in one query; "" for an unpartitioned asset. */
  override async materializations(context: IOContext): Promise<Record<string, Materialization>> {
    const { table, dataset, partitioning } = context.asset;
    const keys = !partitioning ? [null] : context.window ? context.window.partitions.map((p) => p.key) : null;
    const stored = this.#warnDamaged(context, PARTITION_TABLE, await this.storedMaterializations(table, dataset, keys));
    // Rows are the table's: a record naming another asset (one sharing the table name in another source, a record copied) is not this asset's.
    const foreign = new ForeignRecords(context.asset.key);
    const records: Record<string, Materialization> = Object.create(null);
    for (const [key, record] of Object.entries(stored)) if (foreign.owns(record, record.partition)) records[key] = record;
    foreign.warn(context.logger, this.displayName, this.#tableNamed(context, PARTITION_TABLE));
    return records;
  }

  /** The records of past writes of the asset (or of one partition), newest first, from the history table. */
  override async materializationHistory(context: IOContext, query: HistoryQuery): Promise<Materialization[]> {
    const { limit } = query;
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new ConfigError(`${this.displayName}: the history's limit must be a whole number of 0 or more, got ${describeValue(limit)}`);
    const key = query.partition === undefined ? undefined : (query.partition?.key ?? null);
    const { table, dataset } = context.asset;
    const past = this.#warnDamaged(context, HISTORY_TABLE, await this.pastMaterializations(table, dataset, key, limit));
    const foreign = new ForeignRecords(context.asset.key);
    const records = past.filter((record) => foreign.owns(record, record.partition));
    foreign.warn(context.logger, this.displayName, this.#tableNamed(context, HISTORY_TABLE));
    return records;
  }

  /** The current records of `keys` of a table (null in them: the unpartitioned asset's; null: every partition's). */
  storedMaterializations(
    table: string,
    dataset: string | null,
    keys: readonly (string | null)[] | null,
  ): Promise<ReadRecords<Record<string, Materialization>>> {
    return this.#provenance.current(table, dataset, keys);
  }

  /** The newest `limit` past records of a table's partition (null: the unpartitioned asset's; undefined: every partition's). */
  pastMaterializations(
    table: string,
    dataset: string | null,
    key: string | null | undefined,
    limit: number,
  ): Promise<ReadRecords<Materialization[]>> {
    return this.#provenance.history(table, dataset, key, limit);
  }

  /** One of the dataset's internal tables as warnings name it: `table shop._interloper_partitions (location)`. */
  #tableNamed(context: IOContext, internal: string): string {
    return `table ${context.asset.dataset === null ? "" : `${context.asset.dataset}.`}${internal} (${this.location})`;
  }

  /** The records read, after one warning naming the table that holds those that could not be read. */
  #warnDamaged<T>(context: IOContext, internal: string, read: ReadRecords<T>): T {
    if (read.damaged > 0) {
      context.logger.warn(
        `${this.displayName}: ${countOf(read.damaged, "materialization record")} of asset "${context.asset.key}" in ${this.#tableNamed(context, internal)} cannot be read, damaged or edited by hand; left out, ${read.damaged === 1 ? "its partition reads" : "their partitions read"} as provenance unknown`,
      );
    }
    return read.records;
  }

  async insert(table: string, dataset: string | null, data: unknown, context: IOContext): Promise<void> {
    const rows = TableData.from(data);
    if (!rows) throw new SchemaError(`${this.displayName} stores tables only: got ${describeValue(data)} for table ${table}`);
    const typed = context.schema ? context : context.withSchema(inferFieldSpecs(rows.rows));
    await this.ensureTable(table, dataset, typed);
    if (rows.length === 0) return;
    const columns = await this.#tables.columnsOf(table, dataset);
    if (columns)
      checkDoubleIntegers(
        this.displayName,
        table,
        widenedIntoDouble(typed.schema!, columns, (type) => this.dialect.holdsIntegers(type)),
        columns,
        rows.rows,
      );
    await this.driver.load(table, dataset, typed.schema!, rows);
  }

  /** Inside a write's transaction, first locks the table where the dialect does so (see SqlDialect.writeLock). */
  async delete(table: string, dataset: string | null, where: PartitionWhere | null): Promise<void> {
    await this.#lock(table, dataset);
    const columns = await this.#tables.columnsOf(table, dataset);
    if (!columns) return;
    const { sql, params } = deleteStatement(this.dialect, table, dataset, where, columns);
    await this.run(sql, params);
  }

  /** Inside a write's transaction, locks the table against other writers where the dialect does (see SqlDialect.writeLock). */
  async #lock(table: string, dataset: string | null): Promise<void> {
    const lock = this.driver.inUnit() ? this.dialect.writeLock(this.dialect.table(table, dataset)) : null;
    if (lock !== null) await this.run(lock);
  }

  async select(table: string, dataset: string | null, where: PartitionWhere | null): Promise<Row[] | null> {
    const columns = await this.#tables.columnsOf(table, dataset);
    if (!columns) return null;
    const names = [...columns.keys()].filter((name) => name !== ROW_COLUMN);
    const { sql, params, aliased } = selectStatement(this.dialect, table, dataset, names, where, columns);
    const rows = await this.run(sql, params);
    if (names.length === 0) return rows.map(() => ({}));
    // Values the driver gives in another type than they were stored from (a bigint as text) are
    // restored from the column types, so that a read without a schema gives them back too.
    return restoreStoredRows(aliased ? rows.map((row) => namedRow(row, names)) : rows, storedKinds(columns, this.dialect));
  }

  async count(table: string, dataset: string | null, column: string | readonly string[]): Promise<Record<string, number>> {
    const [first, ...others] = typeof column === "string" ? [column] : column;
    const columns = await this.#tables.columnsOf(table, dataset);
    if (![first!, ...others].every((name) => columns?.has(name))) return {};
    const counts = keyedTable<number>();
    for (const row of await this.run(countStatement(this.dialect, table, dataset, first!, others)))
      add(counts, row, row["v"], others.length);
    return counts;
  }

  /** Drops the table (its indexes and comment go with it) and forgets what this instance knew of it. */
  override dropTable(table: string, dataset: string | null): Promise<void> {
    return this.#tables.drop(table, dataset);
  }

  protected override async tableExists(table: string, dataset: string | null): Promise<boolean> {
    return (await this.driver.readColumns(table, dataset)) !== null;
  }

  /**
   * Rows per period start, and per value where the dialect cannot compute the period exactly
   * (see DatabaseDestination.countPeriods): one row per partition comes back, not one per
   * distinct value. Null for a column the dialect counts by value only.
   */
  override async countPeriods(
    table: string,
    dataset: string | null,
    column: string | readonly string[],
    granularity: TimeGranularity,
  ): Promise<Record<string, number> | null> {
    const [first, ...others] = typeof column === "string" ? [column] : column;
    const columns = await this.#tables.columnsOf(table, dataset);
    if (![first!, ...others].every((name) => columns?.has(name))) return {};
    const sql = periodCountStatement(this.dialect, table, dataset, first!, columns!.get(first!)!, granularity, others);
    if (sql === null) return null;
    const counts = keyedTable<number>();
    for (const row of await this.run(sql)) {
      const value = row["p"] ?? row["v"];
      // A period that did not compute would drop its rows: count by value instead.
      if (value === null || value === undefined) return null;
      add(counts, row, value, others.length);
    }
    return counts;
  }

  /** Creates the table from context.schema, or adds the columns a later schema adds; the driver learns what DDL needs first. */
  protected override async ensureTable(table: string, dataset: string | null, context: IOContext): Promise<void> {
    await this.driver.prepareSchema?.();
    if (table !== PARTITION_TABLE) return this.#tables.ensure(table, dataset, context);
    // The partition table with its record column (added to an older one), and the history beside it.
    await this.#tables.ensure(PARTITION_TABLE, dataset, recordsTableContext(dataset));
    await this.#tables.ensure(HISTORY_TABLE, dataset, historyTableContext(dataset));
  }

  toJSON(): Record<string, unknown> {
    return { destination: this.constructor.name, ...this.driver.place.shown() };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `${this.constructor.name} ${this.driver.place.inspect()}`;
  }
}
