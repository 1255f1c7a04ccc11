import type { Row, TableData } from "../../representation/index.js";
import type { FieldSpec } from "../../schema/index.js";
import type { WriteScope } from "./database-destination.js";
import type { SqlDialect } from "./sql-dialect.js";

/** Called when what the catalog said may no longer hold: a rollback that may have undone DDL, a read started over. */
export type ForgetCatalog = () => void;

/** Where a database is, as its destination names and shows it: never a password. */
export interface DatabasePlace {
  /** For Destination.location: a path, or a server without its password. */
  readonly location: string;
  /** The settings a destination shows (JSON.stringify): nothing secret. */
  shown(): Record<string, unknown>;
  /** The same, as util.inspect shows it after the class name. */
  inspect(): string;
}

/**
 * How a SqlDestination reaches its database: one per backend (sqlite/, postgres/, mysql/), next
 * to that backend's dialect. A driver connects on first use and closes once (a LazyConnection),
 * runs statements the dialect wrote, loads rows in its database's fastest way, and runs units of
 * work on one connection; it writes no SQL of its own (its dialect file holds every text it
 * sends). Everything else, SQL over tables and partitions, is SqlDestination's, written once.
 */
export interface SqlDriver {
  /** Where the data is kept, as a destination names and shows it (a ServerConnection for a server). */
  readonly place: DatabasePlace;

  /** Imports the driver's packages, connecting to nothing (see Destination.loadDrivers). */
  loadDrivers(): Promise<void>;
  /** Runs one statement, inside the current transaction or snapshot when there is one; returns its rows. */
  run(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Column name -> catalog type, in table order; null when the table does not exist. */
  readColumns(table: string, dataset: string | null): Promise<Map<string, string> | null>;
  /** Loads a non-empty table into the existing table, the fields in schema order. */
  load(table: string, dataset: string | null, fields: readonly FieldSpec[], data: TableData): Promise<void>;
  /** Whether the caller runs inside one of this driver's transactions or snapshots. */
  inUnit(): boolean;
  /**
   * Runs `fn` as one transaction on one connection, which every statement inside `fn` uses;
   * `scope` says what it replaces (a driver may lock it against other writers).
   */
  transaction<T>(fn: () => Promise<T>, scope: WriteScope | undefined, forgetCatalog: ForgetCatalog): Promise<T>;
  /** Runs `fn`, a read of several statements, on one snapshot of the database; `fn`'s errors pass through unchanged. */
  snapshot<T>(fn: () => Promise<T>, forgetCatalog: ForgetCatalog): Promise<T>;
  /** Ends the connection, once; the next use opens anew. */
  close(): Promise<void>;

  /** Optional: learns, before a table is created or evolved, what the dialect's DDL depends on (MySQL: its server). */
  prepareSchema?(): Promise<void>;
  /**
   * Optional: brings an existing column of the field's family to `definition`, the type this
   * version creates it with, where the two differ in more than the family compares (MySQL: the
   * collation of exact text); true when it altered the table.
   */
  alignColumn?(dialect: SqlDialect, table: string, dataset: string | null, field: FieldSpec, definition: string): Promise<boolean>;
}
