// The three SQL engines of the provenance tests (SQLite in a temporary file, PostgreSQL and
// MariaDB in a dataset of a random name), and the contexts those tests write with: a draft as a
// run hands it (start, code version, upstream reads), a run id, and a logger keeping warnings.
import { IOContext, MySQLDestination, PostgresDestination, SQLiteDestination, type AssetRef } from "../../src/destination/index.js";
import type { SqlDestination } from "../../src/destination/database/sql-destination.js";
import { quoteBacktick, quoteDouble, type SqlDialect } from "../../src/destination/database/sql-dialect.js";
import type { ProvenanceDraft } from "../../src/destination/provenance/materialization.js";
import { TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { makeTempDir } from "../contract/temp-dir.js";
import { MYSQL_CONNECTION, mysqlAvailable, PG_CONNECTION, postgresAvailable, uniqueName } from "./servers.js";

export const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
export const days = (first: string, last = first) => new TimePartitionWindow(first, last, TimeGranularity.DAY);
export const SCHEMA: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "writer", type: "string", nullable: true },
  { name: "n", type: "integer", nullable: true },
];

export type Sql = SqlDestination & {
  run(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  dialect: SqlDialect;
};
export const sql = (destination: SqlDestination) => destination as Sql;

export interface Place {
  /** A destination on the place; each call a new instance (its own connection or pool). */
  destination(): SqlDestination;
  /** The dataset the test writes to. */
  readonly dataset: string;
  /** Statements crafting an empty dataset as main's code leaves it: nothing for SQLite. */
  createDataset(): string[];
  cleanup(): Promise<void>;
}

export interface Engine {
  readonly name: string;
  available(): Promise<boolean>;
  place(): Promise<Place>;
}

/** Every destination a place made, closed after the test. */
const opened: SqlDestination[] = [];
const tracked = (destination: SqlDestination) => (opened.push(destination), destination);

export const ENGINES: Engine[] = [
  {
    name: "SQLite",
    available: async () => true,
    async place() {
      const dir = await makeTempDir("interloper-provenance-sql-");
      return {
        destination: () => tracked(new SQLiteDestination({ path: `${dir.path}/warehouse.db` })),
        dataset: "shop",
        createDataset: () => [],
        cleanup: () => dir.remove(),
      };
    },
  },
  {
    name: "PostgreSQL",
    available: postgresAvailable,
    async place() {
      const dataset = uniqueName("il_prov");
      return {
        destination: () => tracked(new PostgresDestination({ connection: PG_CONNECTION })),
        dataset,
        createDataset: () => [`CREATE SCHEMA IF NOT EXISTS ${quoteDouble(dataset)}`],
        async cleanup() {
          const admin = sql(tracked(new PostgresDestination({ connection: PG_CONNECTION })));
          await admin.run(`DROP SCHEMA IF EXISTS ${quoteDouble(dataset)} CASCADE`);
        },
      };
    },
  },
  {
    name: "MariaDB",
    available: mysqlAvailable,
    async place() {
      const dataset = uniqueName("il_prov");
      return {
        destination: () => tracked(new MySQLDestination({ connection: MYSQL_CONNECTION })),
        dataset,
        createDataset: () => [`CREATE DATABASE IF NOT EXISTS ${quoteBacktick(dataset)} CHARACTER SET utf8mb4`],
        async cleanup() {
          const admin = sql(tracked(new MySQLDestination({ connection: MYSQL_CONNECTION })));
          await admin.run(`DROP DATABASE IF EXISTS ${quoteBacktick(dataset)}`);
        },
      };
    },
  },
];

/** The places a test made, removed after it (see `cleanUp`). */
export const places: Place[] = [];

/** Removes the test's places and closes its destinations: a test file's afterEach. */
export async function cleanUp(): Promise<void> {
  for (const place of places.splice(0)) await place.cleanup();
  for (const destination of opened.splice(0)) await destination.close();
}

/** A draft as a run hands it: its start, code version, and an upstream read per partition. */
const draft = (codeVersion: string | null = "7"): ProvenanceDraft => ({
  startedAt: "2026-03-01T10:00:00.000Z",
  codeVersion,
  interloperVersion: "9.9.9",
  upstream: (partition) => [{ asset: "shop.raw", partition, materialization: `raw-${partition}` }],
});

export function contextOf(
  asset: AssetRef,
  window: TimePartitionWindow | null,
  runId = "run-1",
  warnings: string[] = [],
  schema: FieldSpec[] | null = SCHEMA,
): IOContext {
  return new IOContext({
    asset,
    window,
    schema: asset.partitioning ? schema : (schema?.filter((field) => field.name !== "date") ?? null),
    metadata: { runId, backfillId: "backfill-1", provenance: draft() },
    log: (level, message) => void (level === "warn" && warnings.push(message)),
  });
}

/** Rows of one day, each naming the run that wrote it. */
export const rowsOf = (date: string, writer: string, n: number) => Array.from({ length: n }, (_, i) => ({ date, writer, n: i }));
