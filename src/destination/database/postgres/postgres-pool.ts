import type * as Pg from "pg";
import type { ResolvedConnection } from "../connection.js";

// Dates and json come back as their text: a date must not pass through local midnight, and
// reconcile parses json itself (a JSON string "123" must stay a string).
const TEXT_TYPES = new Set([1082, 114, 3802]);

/**
 * A pg pool for a destination: UTC sessions, dates and json as their text, and a listener on
 * every client, so that a lost connection fails its statement rather than the process.
 */
export function createPool(pg: typeof Pg, settings: ResolvedConnection): Pg.Pool {
  const { url, host, port, user, password, database } = settings;
  const pool = new pg.Pool({
    ...(url ? { connectionString: url } : { host, port, user, password, database }),
    // A server that does not answer fails the connect after 10 s rather than never; one
    // that vanishes while a statement runs (no reset ever comes) is found by TCP keepalive.
    // A server that hangs mid-statement is left to --timeout: a statement may rightly run long.
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Instants are compared and cast in UTC whatever the server's default zone is.
    options: "-c TimeZone=UTC",
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        TEXT_TYPES.has(oid) ? (value: string) => value : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A client losing its connection (a server restart, a network cut) emits 'error', and an
  // 'error' event nobody listens to ends the process. The pool listens to its idle clients;
  // a checked-out client is its user's to watch, so every client gets a listener of its own
  // from birth. The error itself reaches the statement in flight (pg fails every queued
  // query with it, and later ones as "not queryable"), which reports it; the client is then
  // released as broken and the pool discards it.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}
