import { InterloperError } from "../../errors.js";

/** A database refused a statement or a connection; the message never holds a password. */
export class DatabaseError extends InterloperError {
  override readonly code: string = "DATABASE_ERROR";
  /** The driver's own code (SQLSTATE such as "23505", or "ER_DUP_ENTRY", "SQLITE_CONSTRAINT"). */
  readonly driverCode: string | undefined;

  constructor(message: string, driverCode?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.driverCode = driverCode;
  }
}

// A URL's credentials, wherever one appears in a message: scheme://user:password@host, and a
// password given as a query parameter (?password=..., which pg reads).
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)([^@\s]*)@/gi;
const QUERY_PASSWORD = /([?&](?:ssl)?password=)([^&#\s]*)/gi;

/** The password of a connection URL (in its user info or its query), or undefined. */
export function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    const password = parsed.password ? decodeURIComponent(parsed.password) : parsed.searchParams.get("password");
    return password || undefined;
  } catch {
    return undefined;
  }
}

/** A URL with its password replaced by "***". */
export function redactUrl(url: string): string {
  return url.replace(URL_PASSWORD, "$1***@").replace(QUERY_PASSWORD, "$1***");
}

/**
 * A URL as it may be shown even when it does not parse: everything between the scheme and the
 * last "@" (user and password, whatever characters they hold) as "***", passwords in the query too.
 */
export function maskUserinfo(url: string): string {
  const at = url.lastIndexOf("@");
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? "";
  return (at < 0 ? url : `${scheme}***${url.slice(at)}`).replace(QUERY_PASSWORD, "$1***");
}

/** A function that removes every given secret (and any URL password) from a text. */
export function redactor(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  const known = [...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length > 0))];
  // Encoded forms too: a password appears percent-encoded inside a URL.
  for (const secret of [...known]) known.push(encodeURIComponent(secret));
  known.sort((a, b) => b.length - a.length);
  return (text) => {
    let out = redactUrl(text);
    for (const secret of known) out = out.split(secret).join("***");
    return out;
  };
}

/**
 * A driver error as a DatabaseError: its code and message kept, minus secrets. The cause is a
 * plain copy rather than the driver's object, which may hold the connection's configuration.
 */
export function wrapDriverError(error: unknown, redact: (text: string) => string, doing: string): Error {
  if (error instanceof InterloperError) return error;
  const raw = error as { code?: unknown; message?: unknown; detail?: unknown };
  const code = typeof raw?.code === "string" || typeof raw?.code === "number" ? String(raw.code) : undefined;
  const detail = typeof raw?.detail === "string" ? ` (${raw.detail})` : "";
  const message = redact(`${doing}: ${typeof raw?.message === "string" ? raw.message : String(error)}${detail}`);
  const cause = new Error(message);
  return new DatabaseError(code ? `${message} [${code}]` : message, code, { cause });
}
