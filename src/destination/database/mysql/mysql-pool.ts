import type * as MySQL from "mysql2/promise";
import type { ResolvedConnection } from "../connection.js";
import { withoutUndefined } from "../../../without-undefined.js";

/**
 * A mysql2 pool for a destination: utf8mb4, UTC and values as text wherever the driver's own
 * parse would change them, so nothing read depends on the process's time zone or on the driver.
 */
export function createPool(mysql: typeof MySQL, settings: ResolvedConnection): MySQL.Pool {
  const { url, host, port, user, password, database } = settings;
  const pool = mysql.createPool({
    ...(url ? { uri: url } : withoutUndefined({ host, port, user, password, database })),
    connectionLimit: 4,
    // A server that does not answer fails the connect after 10 s rather than never; mysql2
    // keeps TCP keepalive on, so one that vanishes while a statement runs is found too. A
    // server that hangs mid-statement is left to --timeout: a statement may rightly run long.
    connectTimeout: 10_000,
    // utf8mb4 from the handshake on (SESSION_SETUP says it again, as a server may ignore it).
    charset: "UTF8MB4_UNICODE_CI",
    // UTC on the wire both ways, DATE as its text: nothing depends on the process's zone.
    timezone: "Z",
    dateStrings: ["DATE"],
    supportBigNumbers: true,
    bigNumberStrings: true,
    // MariaDB's JSON (LONGTEXT) would otherwise come back parsed, and be parsed again.
    jsonStrings: true,
    // JSON as its text: reconcile parses it, and a JSON string "123" stays a string.
    // DATETIME as its text, read as UTC here: mysql2's own parse builds years 0-99 as 1900-1999.
    typeCast: (field, next) =>
      field.type === "JSON" ? field.string("utf8") : field.type === "DATETIME" ? utcDateTime(field.string("utf8")) : next(),
  });
  // A connection losing its server emits 'error' (after failing the statement in flight,
  // which reports it), and an 'error' event nobody listens to ends the process. mysql2's
  // pool listens once per connection to drop it; this listener stays for any error after.
  pool.on("connection", (connection) => connection.on("error", () => undefined));
  return pool;
}

/** A DATETIME's text ("0001-01-01 00:00:00.000", UTC on the wire) as a Date; null stays null. */
function utcDateTime(text: string | null): Date | null {
  return text === null ? null : new Date(`${text.replace(" ", "T")}Z`);
}
