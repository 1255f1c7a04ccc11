// An in-memory DuckDB for the tests that read interloper's stores with an outside reader.
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll } from "vitest";

/** Opens one connection for the file's tests and closes it after them; returns its getter. */
export function useDuckDB(): () => DuckDBConnection {
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(":memory:");
    connection = await instance.connect();
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });
  return () => connection!;
}
