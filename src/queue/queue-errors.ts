import { ConfigError, InterloperError } from "../errors.js";

// The queue server's failures in plain words: what happened, then what to do. The driver's
// codes tell a server nobody answers at from one that answered and refused (no such database,
// a wrong password, no right to create the queue's schemas).

/** The queue's PostgreSQL server did not answer, or refused. */
export class QueueServerError extends InterloperError {
  override readonly code: string = "QUEUE_SERVER_ERROR";
}

/** A one-line error naming the queue server, what went wrong and what to do. */
export function queueServerError(server: string, error: unknown, after?: string): Error {
  if (error instanceof InterloperError) return error;
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  const message = error instanceof Error ? error.message || code || error.name : String(error);
  const said = message.split("\n")[0]!;
  const lost = after ? ` for ${after}` : "";
  return new QueueServerError(wordsFor(server, code, said, lost), { cause: error });
}

function wordsFor(server: string, code: string, said: string, lost: string): string {
  const [host] = server.split(":");
  if (code === "ECONNREFUSED")
    return `the queue server ${server} is unreachable${lost}: nothing accepts connections there (${said}); start PostgreSQL or fix the host and port of --queue`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `the queue server's host ${JSON.stringify(host)} is not known (${said}): fix the host of --queue`;
  if (code === "3D000")
    return `the queue server ${server} has no such database (${said}): create it (createdb NAME) or name another at the end of --queue`;
  if (code === "28P01" || code === "28000")
    return `the queue server ${server} refused the login (${said}): fix the user of --queue, or give the password in PGPASSWORD`;
  if (code === "42501")
    return `the queue server ${server} refused (${said}): the user of --queue needs the right to create the queue's schemas (GRANT CREATE ON DATABASE ...) or a queue already set up`;
  if (code.startsWith("08") || code.startsWith("57P") || /ECONNRESET|ETIMEDOUT|EPIPE|terminated|timeout/i.test(`${code} ${said}`))
    return `the queue server ${server} is unreachable${lost}: the connection failed (${said}); check that PostgreSQL is up and reachable from here`;
  return `the queue server ${server} failed: ${said}`;
}

/** There is no queue in this schema: nothing was ever enqueued there (a typo in ?schema= or the URL). */
export function noQueueError(server: string, schema: string): ConfigError {
  return new ConfigError(
    `no work queue in schema "${schema}" on ${server}: nothing was ever enqueued there; check ?schema= and the database of --queue`,
  );
}
