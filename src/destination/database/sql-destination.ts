import { SchemaError } from "../../errors.js";
import { describeValue } from "../../text/describe-value.js";
import type { PartitionFilter, TimeGranularity } from "../../partitioning/index.js";
import { type Row, TableData } from "../../representation/index.js";
import { inferFieldSpecs } from "../../schema/index.js";
import type { IOContext } from "../io-context.js";
import { DatabaseDestination, type WriteScope } from "./database-destination.js";
import { checkDoubleIntegers, widenedIntoDouble } from "./integer-widening.js";
import { partitionTable } from "./partition-table.js";
import { ROW_COLUMN, type SqlDialect } from "./sql-dialect.js";
import type { SqlDriver } from "./sql-driver.js";
import { SqlTables } from "./sql-tables.js";
import { countStatement, deleteStatement, namedRow, periodCountStatement, selectStatement } from "./sql-statements.js";
import { restoreStoredRows, storedKinds } from "./stored-values.js";

/** Text for a stored value as `count` keys it: ISO 8601 for instants. */
function keyText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
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

  override forgetPartitions(table: string, dataset: string | null): Promise<void> {
    return partitionTable.forget(this, table, dataset);
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
  async delete(table: string, dataset: string | null, where: PartitionFilter | null): Promise<void> {
    const lock = this.driver.inUnit() ? this.dialect.writeLock(this.dialect.table(table, dataset)) : null;
    if (lock !== null) await this.run(lock);
    const columns = await this.#tables.columnsOf(table, dataset);
    if (!columns) return;
    const { sql, params } = deleteStatement(this.dialect, table, dataset, where, columns);
    await this.run(sql, params);
  }

  async select(table: string, dataset: string | null, where: PartitionFilter | null): Promise<Row[] | null> {
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

  async count(table: string, dataset: string | null, column: string): Promise<Record<string, number>> {
    const columns = await this.#tables.columnsOf(table, dataset);
    if (!columns?.has(column)) return {};
    const rows = await this.run(countStatement(this.dialect, table, dataset, column));
    const counts: Record<string, number> = {};
    for (const row of rows) counts[keyText(row["v"])] = (counts[keyText(row["v"])] ?? 0) + Number(row["n"]);
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
    column: string,
    granularity: TimeGranularity,
  ): Promise<Record<string, number> | null> {
    const columns = await this.#tables.columnsOf(table, dataset);
    if (!columns?.has(column)) return {};
    const sql = periodCountStatement(this.dialect, table, dataset, column, columns.get(column)!, granularity);
    if (sql === null) return null;
    const counts: Record<string, number> = {};
    for (const row of await this.run(sql)) {
      const value = row["p"] ?? row["v"];
      // A period that did not compute would drop its rows: count by value instead.
      if (value === null || value === undefined) return null;
      counts[keyText(value)] = (counts[keyText(value)] ?? 0) + Number(row["n"]);
    }
    return counts;
  }

  /** Creates the table from context.schema, or adds the columns a later schema adds; the driver learns what DDL needs first. */
  protected override async ensureTable(table: string, dataset: string | null, context: IOContext): Promise<void> {
    await this.driver.prepareSchema?.();
    await this.#tables.ensure(table, dataset, context);
  }

  toJSON(): Record<string, unknown> {
    return { destination: this.constructor.name, ...this.driver.place.shown() };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `${this.constructor.name} ${this.driver.place.inspect()}`;
  }
}
