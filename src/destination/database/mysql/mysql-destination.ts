import type { SqlDialect } from "../sql-dialect.js";
import { type ConnectionOptions, type ResolvedConnection, resolveConnection } from "../connection.js";
import { urlPassword } from "../secrets.js";
import { SqlDestination } from "../sql-destination.js";
import { MySqlDriver } from "./mysql-driver.js";
import { declareOptions } from "../../options.js";
import type { AssetRef } from "../../io-context.js";
import { refuseUnstorableValues } from "../../value-limits.js";
import { KEY_TEXT_CHARACTERS } from "./mysql-dialect.js";

/** Options of MySQLDestination. */
export interface MySQLDestinationOptions {
  /** A URL or fields; omitted: a mysql:// DATABASE_URL, else MYSQL_HOST/PORT/USER/PASSWORD/DATABASE. */
  readonly connection?: ConnectionOptions;
}

/** The `connection` option resolved (checked, never set on the instance); omitted: the environment. */
function resolveMySQL(connection: ConnectionOptions | undefined): ResolvedConnection {
  const env = process.env;
  const envUrl = env["DATABASE_URL"]?.startsWith("mysql") ? env["DATABASE_URL"] : undefined;
  return resolveConnection(
    "MySQLDestination",
    connection,
    () =>
      envUrl
        ? { url: envUrl }
        : {
            host: env["MYSQL_HOST"] ?? "localhost",
            port: env["MYSQL_PORT"] ? Number(env["MYSQL_PORT"]) : 3306,
            user: env["MYSQL_USER"] ?? "root",
            password: env["MYSQL_PASSWORD"],
            database: env["MYSQL_DATABASE"],
          },
    [env["MYSQL_PASSWORD"], urlPassword(envUrl)],
    { schemes: ["mysql:", "mariadb:"], example: "mysql://user:password@host:3306/database", decodesUserinfo: true },
  );
}

/**
 * Tables in MySQL or MariaDB through mysql2 (an optional peer dependency), loaded with batched
 * multi-row INSERTs of bound values. The dataset is the database, created when absent. Every
 * connection it uses talks utf8mb4 and runs in strict mode, whatever the server's defaults, so
 * a value a column cannot hold is an error, never truncated or mangled.
 */
export class MySQLDestination extends SqlDestination {
  static override destinationName = "MySQL";
  static override readonly options = declareOptions<MySQLDestinationOptions>({ connection: "private" });
  protected readonly driver: MySqlDriver;

  constructor(options: MySQLDestinationOptions = {}) {
    super(options);
    this.driver = new MySqlDriver(resolveMySQL(options?.connection));
  }

  /**
   * Refuses, when the config is loaded, a declared list value longer than its partition column
   * holds (the server would refuse it only at its first write, "Data too long").
   */
  override checkAssets(assets: readonly AssetRef[]): void {
    refuseUnstorableValues(assets, this.displayName, (_asset, column, value) => {
      const characters = [...value].length;
      return characters > KEY_TEXT_CHARACTERS
        ? `it has ${characters} characters, and its column "${column}" holds at most ${KEY_TEXT_CHARACTERS} (VARCHAR(${KEY_TEXT_CHARACTERS}))`
        : null;
    });
  }

  /** The dialect of its server, which the driver learns before the first table is ensured. */
  protected get dialect(): SqlDialect {
    return this.driver.dialect;
  }
}
