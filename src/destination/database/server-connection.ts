import { publicConnection, type ResolvedConnection } from "./connection.js";
import { wrapDriverError } from "./secrets.js";

/**
 * What the drivers of a database server (PostgreSQL, MySQL) share: the resolved connection,
 * private to it, shown (JSON.stringify, util.inspect, and so every log line and `--json`
 * output) with its public fields only: no password, a URL's masked. Driver errors leave it
 * with every password redacted.
 */
export class ServerConnection {
  readonly #settings: ResolvedConnection;

  /** `backend` names the database in messages ("PostgreSQL"). */
  constructor(
    private readonly backend: string,
    settings: ResolvedConnection,
  ) {
    this.#settings = settings;
  }

  /** The driver's settings and the redactor of every password they involve. */
  get settings(): ResolvedConnection {
    return this.#settings;
  }

  /** The server and database, from the connection's public fields (never a password). */
  get location(): string {
    const shown = publicConnection(this.#settings);
    if (typeof shown["url"] === "string") return shown["url"];
    const port = shown["port"] !== undefined ? `:${String(shown["port"])}` : "";
    const user = shown["user"] !== undefined ? `${String(shown["user"])}@` : "";
    return `${user}${String(shown["host"] ?? "localhost")}${port}/${String(shown["database"] ?? "")}`;
  }

  /** What a destination shows of it (see SqlDriver.shown). */
  shown(): Record<string, unknown> {
    return { connection: publicConnection(this.#settings) };
  }

  /** The same, for util.inspect. */
  inspect(): string {
    return JSON.stringify(publicConnection(this.#settings));
  }

  /** A driver error as a DatabaseError saying what failed (`doing`), without any password. */
  fail(error: unknown, doing: string): Error {
    return wrapDriverError(error, this.#settings.redact, `${this.backend} ${doing}`);
  }
}
