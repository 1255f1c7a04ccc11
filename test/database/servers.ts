// The database servers the tests use, probed once per file, and destinations isolated per test:
// every dataset a test touches is renamed under a random prefix, so test files, tests and the
// three time-zone processes running at once never share a schema or database.

import { randomBytes } from "node:crypto";
import type { PartitionWhere } from "../../src/destination/database/partition-keys.js";
import type { TimeGranularity } from "../../src/partitioning/index.js";
import type { IOContext } from "../../src/destination/index.js";
import type { Materialization } from "../../src/destination/provenance/materialization.js";
import { MySQLDestination, PostgresDestination } from "../../src/destination/database/index.js";
import { quoteBacktick, quoteDouble } from "../../src/destination/database/sql-dialect.js";
import { serviceAvailable } from "../support/services.js";

export const PG_CONNECTION = { host: "127.0.0.1", port: 5432, user: "postgres", database: "test" } as const;
export const MYSQL_CONNECTION = { host: "127.0.0.1", port: 3306, user: "root", password: "", database: "test" } as const;

const PG_HOW = "run PostgreSQL on 127.0.0.1:5432 with trust auth and a database `test` (see ../shared/design/toolchain.md)";
const MYSQL_HOW = "run MariaDB or MySQL on 127.0.0.1:3306, root without password, database `test` (see ../shared/design/toolchain.md)";

/** A fresh name such as `il_t_3f9a1c2b`: unique per test and per process. */
export function uniqueName(prefix = "il_t"): string {
  return `${prefix}_${randomBytes(4).toString("hex")}`;
}

/** Whether PostgreSQL answers (a short timeout: a missing server must not stall the suite). */
export async function postgresAvailable(): Promise<boolean> {
  const pg = (await import("pg")).default;
  const client = new pg.Client({ ...PG_CONNECTION, connectionTimeoutMillis: 2000 });
  const up = await client.connect().then(
    () => client.query("SELECT 1").then(() => true),
    () => false,
  );
  await client.end().catch(() => undefined);
  return serviceAvailable("PostgreSQL", up, PG_HOW);
}

/** Whether MariaDB/MySQL answers. */
export async function mysqlAvailable(): Promise<boolean> {
  const mysql = (await import("mysql2/promise")).default;
  const up = await mysql.createConnection({ ...MYSQL_CONNECTION, connectTimeout: 2000 }).then(
    async (connection) => {
      await connection.end();
      return true;
    },
    () => false,
  );
  return serviceAvailable("MariaDB", up, MYSQL_HOW);
}

type Hooks = Pick<
  PostgresDestination,
  | "insert"
  | "delete"
  | "select"
  | "count"
  | "countPeriods"
  | "recordMaterializations"
  | "forgetPartitions"
  | "dropTable"
  | "storedMaterializations"
  | "pastMaterializations"
>;

/** The datasets an isolated destination renamed, to drop after the test. */
export interface Isolated {
  readonly datasets: Set<string>;
  rename(dataset: string | null): string;
}

function isolation(prefix: string): Isolated {
  const datasets = new Set<string>();
  return {
    datasets,
    rename(dataset) {
      // Idempotent: a hook calling another (insert -> ensureTable) passes the renamed one on.
      if (dataset?.startsWith(`${prefix}_`)) return dataset;
      const name = `${prefix}_${dataset ?? "default"}`;
      datasets.add(name);
      return name;
    },
  };
}

/** Renames every dataset a hook is given; the rest is the real destination's behaviour. */
function renaming<T extends Hooks>(target: T, iso: Isolated): void {
  const base = Object.getPrototypeOf(Object.getPrototypeOf(target)) as Hooks & { ensureTable: (...args: unknown[]) => Promise<unknown> };
  const self = target as unknown as Record<string, unknown>;
  self["insert"] = (t: string, d: string | null, data: unknown, c: IOContext) => base.insert.call(target, t, iso.rename(d), data, c);
  self["delete"] = (t: string, d: string | null, w: PartitionWhere | null) => base.delete.call(target, t, iso.rename(d), w);
  self["select"] = (t: string, d: string | null, w: PartitionWhere | null) => base.select.call(target, t, iso.rename(d), w);
  self["count"] = (t: string, d: string | null, c: string | readonly string[]) => base.count.call(target, t, iso.rename(d), c);
  self["countPeriods"] = (t: string, d: string | null, c: string | readonly string[], g: TimeGranularity) =>
    base.countPeriods.call(target, t, iso.rename(d), c, g);
  self["ensureTable"] = (t: string, d: string | null, c: IOContext) => base.ensureTable.call(target, t, iso.rename(d), c);
  // The materialization records' statements, which go to the partition table and the history directly.
  self["recordMaterializations"] = (t: string, d: string | null, r: readonly Materialization[]) =>
    base.recordMaterializations.call(target, t, iso.rename(d), r);
  self["dropTable"] = (t: string, d: string | null) => base.dropTable.call(target, t, iso.rename(d));
  self["forgetPartitions"] = (t: string, d: string | null) => base.forgetPartitions.call(target, t, iso.rename(d));
  self["storedMaterializations"] = (t: string, d: string | null, k: readonly (string | null)[] | null) =>
    base.storedMaterializations.call(target, t, iso.rename(d), k);
  self["pastMaterializations"] = (t: string, d: string | null, k: string | null | undefined, l: number) =>
    base.pastMaterializations.call(target, t, iso.rename(d), k, l);
}

/** A PostgresDestination whose datasets live under a random prefix, and its cleanup. */
export function isolatedPostgres(): { destination: PostgresDestination; iso: Isolated; cleanup(): Promise<void> } {
  class IsolatedPostgres extends PostgresDestination {}
  const destination = new IsolatedPostgres({ connection: PG_CONNECTION });
  const iso = isolation(uniqueName());
  renaming(destination, iso);
  return {
    destination,
    iso,
    async cleanup() {
      for (const schema of iso.datasets)
        await (destination as unknown as { run(sql: string): Promise<unknown> }).run(
          `DROP SCHEMA IF EXISTS ${quoteDouble(schema)} CASCADE`,
        );
      await destination.close();
    },
  };
}

/** A MySQLDestination whose datasets (databases) live under a random prefix, and its cleanup. */
export function isolatedMySQL(): { destination: MySQLDestination; iso: Isolated; cleanup(): Promise<void> } {
  class IsolatedMySQL extends MySQLDestination {}
  const destination = new IsolatedMySQL({ connection: MYSQL_CONNECTION });
  const iso = isolation(uniqueName());
  renaming(destination, iso);
  return {
    destination,
    iso,
    async cleanup() {
      for (const database of iso.datasets)
        await (destination as unknown as { run(sql: string): Promise<unknown> }).run(`DROP DATABASE IF EXISTS ${quoteBacktick(database)}`);
      await destination.close();
    },
  };
}
