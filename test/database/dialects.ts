// The three dialects as test harnesses, each skipped (with one printed line) when its server is
// missing. SQLite needs no server: a private in-memory database per test.

import type { DatabaseDestination } from "../../src/destination/database/index.js";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { isolatedMySQL, isolatedPostgres, mysqlAvailable, postgresAvailable } from "./servers.js";

export interface DialectHarness {
  readonly destination: DatabaseDestination;
  cleanup(): Promise<void>;
}

export interface Dialect {
  readonly name: "sqlite" | "postgres" | "mysql";
  readonly available: boolean;
  make(): DialectHarness;
}

/** Every dialect, with whether its server answers here. */
export async function dialects(): Promise<Dialect[]> {
  return [
    {
      name: "sqlite",
      available: true,
      make: () => {
        const destination = new SQLiteDestination({ path: ":memory:" });
        return { destination, cleanup: () => destination.close() };
      },
    },
    { name: "postgres", available: await postgresAvailable(), make: isolatedPostgres },
    { name: "mysql", available: await mysqlAvailable(), make: isolatedMySQL },
  ];
}
