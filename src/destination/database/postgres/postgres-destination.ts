import { type ConnectionOptions, type ResolvedConnection, resolveConnection } from "../connection.js";
import { urlPassword } from "../secrets.js";
import { SqlDestination } from "../sql-destination.js";
import { postgresDialect } from "./postgres-dialect.js";
import { PostgresDriver } from "./postgres-driver.js";
import { declareOptions } from "../../options.js";

/** Options of PostgresDestination. */
export interface PostgresDestinationOptions {
  /** A URL or fields; omitted: DATABASE_URL, else the PG* variables as pg reads them. */
  readonly connection?: ConnectionOptions;
}

/** The `connection` option resolved (checked, never set on the instance); omitted: the environment, as pg reads it. */
function resolvePostgres(connection: ConnectionOptions | undefined): ResolvedConnection {
  const env = process.env;
  return resolveConnection(
    "PostgresDestination",
    connection,
    () => (env["DATABASE_URL"] ? { url: env["DATABASE_URL"] } : {}),
    [env["PGPASSWORD"], urlPassword(env["DATABASE_URL"])],
    { schemes: ["postgres:", "postgresql:", "socket:"], example: "postgres://user:password@host:5432/database", socketPath: true },
  );
}

/**
 * Tables in PostgreSQL through pg (an optional peer dependency), bulk loaded with COPY FROM
 * STDIN (pg-copy-streams). The dataset is the schema, created when absent.
 */
export class PostgresDestination extends SqlDestination {
  static override destinationName = "PostgreSQL";
  static override readonly options = declareOptions<PostgresDestinationOptions>({ connection: "private" });
  protected readonly dialect = postgresDialect;
  protected readonly driver: PostgresDriver;

  constructor(options: PostgresDestinationOptions = {}) {
    super(options);
    this.driver = new PostgresDriver(resolvePostgres(options?.connection));
  }
}
