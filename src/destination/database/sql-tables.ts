import { SchemaError } from "../../errors.js";
import type { FieldSpec } from "../../schema/index.js";
import type { IOContext } from "../io-context.js";
import { checkAdded, checkColumnNames } from "./column-names.js";
import { PARTITION_ENTRY, PARTITION_TABLE } from "./partition-table.js";
import { keyColumn, keyColumns } from "./partition-columns.js";
import { PartitionIndexes } from "./partition-index.js";
import { HISTORY_TABLE } from "./provenance-statements.js";
import { type SqlDialect, storageKind } from "./sql-dialect.js";
import type { SqlDriver } from "./sql-driver.js";
import { addColumnStatement, createTableStatement, dropTableStatement } from "./sql-statements.js";

/** Column name -> catalog type, in table order. */
export type Columns = ReadonlyMap<string, string>;

/** What SqlTables works through, each asked at its use (MySQL's dialect follows its server). */
export interface TablesOwner {
  readonly dialect: () => SqlDialect;
  readonly driver: () => SqlDriver;
  /** Runs DDL (through the destination's `run`). */
  readonly run: (sql: string) => Promise<unknown>;
  /** The destination's display name, for messages. */
  readonly name: () => string;
}

/**
 * The tables a SqlDestination writes: created from a schema, evolved when a later schema adds
 * columns, their partition index, and what the catalog last said of each (tables keyed by
 * [dataset, table] as JSON), so that a read or a delete does not ask the catalog every time.
 */
export class SqlTables {
  readonly #catalog = new Map<string, Columns>();
  readonly #indexes: PartitionIndexes;

  constructor(private readonly owner: TablesOwner) {
    this.#indexes = new PartitionIndexes(owner.dialect, (sql) => this.#ddl(sql));
  }

  /** The table's columns, from the cache or the catalog. */
  async columnsOf(table: string, dataset: string | null): Promise<Columns | null> {
    const key = JSON.stringify([dataset, table]);
    const cached = this.#catalog.get(key);
    if (cached) return cached;
    const columns = await this.owner.driver().readColumns(table, dataset);
    if (columns) this.#catalog.set(key, columns);
    return columns;
  }

  /** Forgets what the catalog said (after a rollback that may have undone DDL). */
  forget(): void {
    this.#catalog.clear();
  }

  /** The table's columns read afresh from the catalog (another process may have changed them). */
  async freshColumnsOf(table: string, dataset: string | null): Promise<Columns | null> {
    this.#catalog.delete(JSON.stringify([dataset, table]));
    return this.columnsOf(table, dataset);
  }

  /** Drops the table (its indexes and comment go with it) and forgets what was known of it. */
  async drop(table: string, dataset: string | null): Promise<void> {
    const key = JSON.stringify([dataset, table]);
    this.#indexes.forget(key);
    this.#catalog.delete(key);
    await this.owner.run(dropTableStatement(this.owner.dialect(), table, dataset));
  }

  /** Builds the indexes deferred to the first load of their tables. */
  buildDeferred(): Promise<void> {
    return this.#indexes.buildDeferred();
  }

  /** Creates the table from context.schema, or adds the columns a later schema adds. */
  async ensure(table: string, dataset: string | null, context: IOContext): Promise<void> {
    const dialect = this.owner.dialect();
    const driver = this.owner.driver();
    const fields = context.schema ?? [];
    const where = { destination: this.owner.name(), asset: context.asset.key, table };
    const key = JSON.stringify([dataset, table]);
    // Asked afresh on every write (one catalog query): the table may have been dropped or
    // altered by someone else since; reads and deletes use what this last saw.
    const columns = await driver.readColumns(table, dataset);
    checkColumnNames(dialect, where, fields, columns);
    const qualified = dialect.table(table, dataset);
    const define = (field: FieldSpec) => `${dialect.quote(field.name)} ${this.typeOf(field, context, table)}`;
    let added: readonly FieldSpec[];
    let aligned = false;
    if (!columns) {
      await this.#create(table, dataset, context, fields.map(define));
      added = fields;
    } else {
      added = fields.filter((field) => !this.sameType(columns, field, context, table));
      // Every column is nullable, so one a later schema adds leaves the older rows valid.
      for (const field of added) await this.#ddl(addColumnStatement(qualified, define(field)));
      for (const field of fields) {
        if (added.includes(field) || !driver.alignColumn) continue;
        if (await driver.alignColumn(dialect, table, dataset, field, this.typeOf(field, context, table))) aligned = true;
      }
    }
    if (columns && added.length === 0 && !aligned) {
      this.#catalog.set(key, columns);
      await this.#indexes.ensureOnExpression(key, [qualified, dataset, table], columns, context.asset.partitioning);
      return;
    }
    // The partition index covers every key column (each dimension's of a multi partitioning),
    // made when one of them is added and all are there.
    const keys = keyColumns(context.asset.partitioning).map((k) => fields.find((field) => field.name === k.column));
    if (keys.length > 0 && keys.every((field) => field !== undefined) && keys.some((field) => added.includes(field!))) {
      const types = keys.map((field) => this.typeOf(field!, context, table));
      // Where DDL would commit the write's transaction, the index is made at once.
      const defer = !columns && dialect.transactionalDdl;
      await this.#indexes.added(key, [qualified, dataset, table], types, context.asset.partitioning!, defer);
    }
    const now = (await driver.readColumns(table, dataset)) ?? new Map<string, string>();
    if (columns) checkAdded(where, added, now);
    this.#catalog.set(key, now);
  }

  /** Creates the dataset, when the database has such objects, then the table and its description. */
  async #create(table: string, dataset: string | null, context: IOContext, columns: readonly string[]): Promise<void> {
    const dialect = this.owner.dialect();
    const qualified = dialect.table(table, dataset);
    const createDataset = dataset === null ? null : dialect.createDataset(dataset);
    if (createDataset !== null) await this.#ddl(createDataset);
    const create = createTableStatement(dialect, qualified, columns);
    await this.#ddl(create, async () => (await this.owner.driver().readColumns(table, dataset)) !== null);
    const description = context.asset.description;
    if (description) for (const statement of dialect.describeTable(qualified, description)) await this.#ddl(statement);
  }

  /**
   * The column type of a field of the asset `context` names, in `table`. A list partition's
   * values and the entries of the partition table and the history are compared with = and IN,
   * so exactly; a time partition's are compared as instants, whatever text they are stored as.
   */
  typeOf(field: FieldSpec, context: IOContext, table: string): string {
    const partitioning = context.asset.partitioning;
    const column = keyColumn(partitioning, field.name);
    const key = column !== undefined;
    const entry = (table === PARTITION_TABLE || table === HISTORY_TABLE) && field.name === PARTITION_ENTRY;
    const exact = (key && !column.time) || entry;
    return this.owner.dialect().columnType(storageKind(field), key, exact);
  }

  /**
   * Whether an existing column holds a field's type: its own family, or for an integer field a
   * number column, which holds integers exactly (an integer partition inferred beside number
   * partitions; `insert` refuses the few a double would round). Any other changed type is a
   * SchemaError naming it.
   */
  sameType(columns: Columns, field: FieldSpec, context: IOContext, table: string): boolean {
    const existing = columns.get(field.name);
    if (existing === undefined) return false;
    const dialect = this.owner.dialect();
    const wanted = this.typeOf(field, context, table);
    if (dialect.family(existing) === dialect.family(wanted)) return true;
    if (field.type === "integer" && dialect.holdsIntegers(existing) !== null) return true;
    throw new SchemaError(
      `${this.owner.name()}: column "${field.name}" of table ${table} is ${existing}, but the schema of asset "${context.asset.key}" now makes it ${field.type} (${wanted}); a column's type cannot change in place: rebuild the asset with \`materialize --full-refresh\`, migrate the table or rename the field`,
    );
  }

  /**
   * Runs DDL, tolerating a concurrent writer having created the same object: an error that says
   * so, or any error after which `made` finds the object there. IF NOT EXISTS does not cover the
   * race: a PostgreSQL CREATE TABLE that finds no table and then the other writer's row type,
   * committed meanwhile, fails with `type "t" already exists` (42710), which a type of that name
   * made by anyone else gives too.
   */
  async #ddl(sql: string, made?: () => Promise<boolean>): Promise<void> {
    try {
      await this.owner.run(sql);
    } catch (error) {
      if (this.owner.dialect().isAlreadyDone(error)) return;
      if (made && (await made().catch(() => false))) return;
      throw error;
    }
  }
}
