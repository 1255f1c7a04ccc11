// The PostgreSQL server the database workloads use, and the probe that says whether it answers.
// In a subfolder: the bench runner takes every module directly in bench/database for a workload.
import pg from "pg";

export const PG_CONNECTION = { host: "127.0.0.1", port: 5432, user: "postgres", database: "test" };

/** true when the server answers, else why not (the runner prints it as the reason to skip). */
export async function postgresReachable(): Promise<true | string> {
  const client = new pg.Client({ ...PG_CONNECTION, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch (error) {
    return `PostgreSQL is not reachable at ${PG_CONNECTION.host}:${PG_CONNECTION.port} (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
