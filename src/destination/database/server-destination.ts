import { type ConnectionOptions, publicConnection, type ResolvedConnection } from "./connection.js";
import { SqlDestination } from "./sql-destination.js";

/**
 * A SqlDestination that reaches a server over a connection (PostgreSQL, MySQL). The resolved
 * connection is private to this class, and the destination shows itself (JSON.stringify,
 * util.inspect, and so every log line and `--json` output) with the connection's public fields
 * only: no password, a URL's masked.
 */
export abstract class ServerSqlDestination extends SqlDestination {
  readonly #connection: ResolvedConnection;

  /** `resolve` turns the `connection` option (checked, never set on the instance) into the driver's settings. */
  protected constructor(
    options: { readonly connection?: ConnectionOptions } | undefined,
    resolve: (given: ConnectionOptions | undefined) => ResolvedConnection,
  ) {
    super(options);
    this.#connection = resolve(options?.connection);
  }

  /** The driver's settings and the redactor of every password they involve. */
  protected get settings(): ResolvedConnection {
    return this.#connection;
  }

  /** The server and database, from the connection's public fields (never a password). */
  override get location(): string {
    const shown = publicConnection(this.#connection);
    if (typeof shown["url"] === "string") return shown["url"];
    const port = shown["port"] !== undefined ? `:${String(shown["port"])}` : "";
    const user = shown["user"] !== undefined ? `${String(shown["user"])}@` : "";
    return `${user}${String(shown["host"] ?? "localhost")}${port}/${String(shown["database"] ?? "")}`;
  }

  toJSON(): Record<string, unknown> {
    return { destination: this.constructor.name, connection: publicConnection(this.#connection) };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `${this.constructor.name} ${JSON.stringify(publicConnection(this.#connection))}`;
  }
}
