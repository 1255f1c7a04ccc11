import { SchemaError } from "../../errors.js";
import { TimePartitionConfig } from "../../partitioning/index.js";
import { describeValue } from "../../text/describe-value.js";
import type { PartitionFilter, TimeGranularity } from "../../partitioning/index.js";
import { type Row, TableData } from "../../representation/index.js";
import { type FieldSpec, inferFieldSpecs } from "../../schema/index.js";
import type { IOContext } from "../io-context.js";
import { DatabaseDestination } from "./database-destination.js";
import { checkAdded, checkColumnNames } from "./column-names.js";
import { checkDoubleIntegers, widenedIntoDouble } from "./integer-widening.js";
import { LEDGER_ENTRY, LEDGER_TABLE, ledgerTable } from "./partition-table.js";
import { ROW_COLUMN, type SqlDialect, storageKind } from "./sql-dialect.js";
import { PartitionIndexes } from "./partition-index.js";
import {
  addColumnStatement,
  countStatement,
  createTableStatement,
  deleteStatement,
  dropTableStatement,
  namedRow,
  periodCountStatement,
  selectStatement,
} from "./sql-statements.js";
import { restoreStoredRows, storedKinds } from "./stored-values.js";

type Columns = ReadonlyMap<string, string>;

/** Text for a stored value as `count` keys it: ISO 8601 for instants. */
function keyText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * The SQL shared by the built-in backends: table creation and evolution, filters, delete,
 * select and count, written once over a SqlDialect. A backend adds its connection, its bulk
 * load and its transaction.
 */
export abstract class SqlDestination extends DatabaseDestination {
  protected abstract readonly dialect: SqlDialect;
  // Column name -> catalog type per table, so a write does not ask the catalog every time.
  private readonly catalog = new Map<string, Columns>();
  private readonly indexes = new PartitionIndexes(
    () => this.dialect,
    (sql) => this.ddl(sql),
  );
  /** Whether a new table's index waits for its first load (false where DDL would commit). */
  protected readonly deferIndexes: boolean = false;

  /** Runs one statement, inside the current transaction when there is one; returns its rows. */
  protected abstract run(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Column name -> catalog type, in table order; null when the table does not exist. */
  protected abstract readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null>;
  /** Loads a non-empty table into the existing table, the fields in schema order. */
  protected abstract load(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void>;
  /**
   * Brings an existing column of the field's family to `definition`, the type this version
   * creates it with, where the two differ in more than the family compares (MySQL: the
   * collation of exact text); true when it altered the table. Nothing by default.
   */
  protected async alignColumn(_table: string, _dataset: string | null, _field: FieldSpec, _definition: string): Promise<boolean> {
    return false;
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
    const columns = await this.readColumns(table, dataset).catch(() => null);
    if (columns) for (const field of context.schema) this.sameType(columns, field, context, table);
  }

  /** Writes the window (see DatabaseDestination.write), then builds the indexes it deferred. */
  override async write(context: IOContext, data: unknown): Promise<void> {
    try {
      await super.write(context, data);
    } finally {
      await this.indexes.buildDeferred();
    }
  }

  /** Records written partitions in the dataset's ledger table, one statement for a whole window. */
  override recordPartitions(table: string, dataset: string | null, keys: readonly string[]): Promise<void> {
    return ledgerTable.record(this, table, dataset, keys);
  }

  override writtenPartitions(table: string, dataset: string | null, keys: readonly string[] | null): Promise<string[]> {
    return ledgerTable.written(this, table, dataset, keys);
  }

  override forgetPartitions(table: string, dataset: string | null): Promise<void> {
    return ledgerTable.forget(this, table, dataset);
  }

  async insert(table: string, dataset: string | null, data: unknown, context: IOContext): Promise<void> {
    const rows = TableData.from(data);
    if (!rows) throw new SchemaError(`${this.displayName} stores tables only: got ${describeValue(data)} for table ${table}`);
    const typed = context.schema ? context : context.withSchema(inferFieldSpecs(rows.rows));
    await this.ensureTable(table, dataset, typed);
    if (rows.length === 0) return;
    const columns = await this.columnsOf(table, dataset);
    if (columns)
      checkDoubleIntegers(
        this.displayName,
        table,
        widenedIntoDouble(typed.schema!, columns, (type) => this.dialect.holdsIntegers(type)),
        columns,
        rows.rows,
      );
    await this.load(table, dataset, typed.schema!, rows);
  }

  async delete(table: string, dataset: string | null, where: PartitionFilter | null): Promise<void> {
    const columns = await this.columnsOf(table, dataset);
    if (!columns) return;
    const { sql, params } = deleteStatement(this.dialect, table, dataset, where, columns);
    await this.run(sql, params);
  }

  async select(table: string, dataset: string | null, where: PartitionFilter | null): Promise<Row[] | null> {
    const columns = await this.columnsOf(table, dataset);
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
    const columns = await this.columnsOf(table, dataset);
    if (!columns?.has(column)) return {};
    const rows = await this.run(countStatement(this.dialect, table, dataset, column));
    const counts: Record<string, number> = {};
    for (const row of rows) counts[keyText(row["v"])] = (counts[keyText(row["v"])] ?? 0) + Number(row["n"]);
    return counts;
  }

  /** Drops the table (its indexes and comment go with it) and forgets what this instance knew of it. */
  override async dropTable(table: string, dataset: string | null): Promise<void> {
    const key = JSON.stringify([dataset, table]);
    this.indexes.forget(key);
    this.catalog.delete(key);
    await this.run(dropTableStatement(this.dialect, table, dataset));
  }

  protected override async tableExists(table: string, dataset: string | null): Promise<boolean> {
    return (await this.readColumns(table, dataset)) !== null;
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
    const columns = await this.columnsOf(table, dataset);
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

  /** Creates the table from context.schema, or adds the columns a later schema adds. */
  protected override async ensureTable(table: string, dataset: string | null, context: IOContext): Promise<void> {
    const fields = context.schema ?? [];
    const where = { destination: this.displayName, asset: context.asset.key, table };
    const key = JSON.stringify([dataset, table]);
    // Asked afresh on every write (one catalog query): the table may have been dropped or
    // altered by someone else since; reads and deletes use what this last saw.
    const columns = await this.readColumns(table, dataset);
    checkColumnNames(this.dialect, where, fields, columns);
    const partitionColumn = context.asset.partitioning?.column ?? null;
    const qualified = this.dialect.table(table, dataset);
    const define = (field: FieldSpec) => `${this.dialect.quote(field.name)} ${this.typeOf(field, context, table)}`;
    const indexed = (added: readonly FieldSpec[]) => partitionColumn !== null && added.some((field) => field.name === partitionColumn);
    let added: readonly FieldSpec[];
    let aligned = false;
    if (!columns) {
      const createDataset = dataset === null ? null : this.dialect.createDataset(dataset);
      if (createDataset !== null) await this.ddl(createDataset);
      const create = createTableStatement(this.dialect, qualified, fields.map(define));
      await this.ddl(create, async () => (await this.readColumns(table, dataset)) !== null);
      const description = context.asset.description;
      if (description) for (const statement of this.dialect.describeTable(qualified, description)) await this.ddl(statement);
      added = fields;
    } else {
      added = fields.filter((field) => !this.sameType(columns, field, context, table));
      // Every column is nullable, so one a later schema adds leaves the older rows valid.
      for (const field of added) await this.ddl(addColumnStatement(qualified, define(field)));
      for (const field of fields) {
        if (!added.includes(field) && (await this.alignColumn(table, dataset, field, this.typeOf(field, context, table)))) aligned = true;
      }
    }
    if (columns && added.length === 0 && !aligned) {
      this.catalog.set(key, columns);
      await this.indexes.ensureOnExpression(key, [qualified, dataset, table], columns, context.asset.partitioning);
      return;
    }
    if (indexed(added)) {
      const type = this.typeOf(
        fields.find((f) => f.name === partitionColumn)!,
        context,
        table,
      );
      await this.indexes.added(key, [qualified, dataset, table], type, context.asset.partitioning!, !columns && this.deferIndexes);
    }
    const now = (await this.readColumns(table, dataset)) ?? new Map<string, string>();
    if (columns) checkAdded(where, added, now);
    this.catalog.set(key, now);
  }

  /**
   * The column type of a field of the asset `context` names, in `table`. A list partition's
   * values and the ledger's entries are compared with = and IN, so exactly; a time partition's
   * are compared as instants, whatever text they are stored as.
   */
  private typeOf(field: FieldSpec, context: IOContext, table: string): string {
    const partitioning = context.asset.partitioning;
    const key = field.name === partitioning?.column;
    const exact = (key && !(partitioning instanceof TimePartitionConfig)) || (table === LEDGER_TABLE && field.name === LEDGER_ENTRY);
    return this.dialect.columnType(storageKind(field), key, exact);
  }

  /**
   * Whether an existing column holds a field's type: its own family, or for an integer field a
   * number column, which holds integers exactly (an integer partition inferred beside number
   * partitions; `insert` refuses the few a double would round). Any other changed type is a
   * SchemaError naming it.
   */
  private sameType(columns: Columns, field: FieldSpec, context: IOContext, table: string): boolean {
    const existing = columns.get(field.name);
    if (existing === undefined) return false;
    const wanted = this.typeOf(field, context, table);
    if (this.dialect.family(existing) === this.dialect.family(wanted)) return true;
    if (field.type === "integer" && this.dialect.holdsIntegers(existing) !== null) return true;
    throw new SchemaError(
      `${this.displayName}: column "${field.name}" of table ${table} is ${existing}, but the schema of asset "${context.asset.key}" now makes it ${field.type} (${wanted}); a column's type cannot change in place: rebuild the asset with \`materialize --full-refresh\`, migrate the table or rename the field`,
    );
  }

  /** The table's columns, from the cache or the catalog. */
  protected async columnsOf(table: string, dataset: string | null): Promise<Columns | null> {
    const key = JSON.stringify([dataset, table]);
    const cached = this.catalog.get(key);
    if (cached) return cached;
    const columns = await this.readColumns(table, dataset);
    if (columns) this.catalog.set(key, columns);
    return columns;
  }

  /** Forgets what the catalog said (after a rollback that may have undone DDL). */
  protected forgetCatalog(): void {
    this.catalog.clear();
  }

  /**
   * Runs DDL, tolerating a concurrent writer having created the same object: an error that says
   * so, or any error after which `made` finds the object there. IF NOT EXISTS does not cover the
   * race: a PostgreSQL CREATE TABLE that finds no table and then the other writer's row type,
   * committed meanwhile, fails with `type "t" already exists` (42710), which a type of that name
   * made by anyone else gives too.
   */
  private async ddl(sql: string, made?: () => Promise<boolean>): Promise<void> {
    try {
      await this.run(sql);
    } catch (error) {
      if (this.dialect.isAlreadyDone(error)) return;
      if (made && (await made().catch(() => false))) return;
      throw error;
    }
  }
}
