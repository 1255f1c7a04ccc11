import { ConfigError } from "../../errors.js";
import { maskUserinfo, redactor, redactUrl, urlPassword } from "./secrets.js";

/** How to reach a database server: a URL, or its fields. Omitted: from the environment. */
export type ConnectionOptions =
  | { readonly url: string }
  | {
      readonly host?: string | undefined;
      readonly port?: number | undefined;
      readonly user?: string | undefined;
      readonly password?: string | undefined;
      readonly database?: string | undefined;
    };

/** A resolved connection: the settings for the driver and everything safe to show. */
export interface ResolvedConnection {
  readonly url?: string | undefined;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  readonly database?: string | undefined;
  /** Removes every password this connection may involve from a text. */
  readonly redact: (text: string) => string;
}

/** The connection URLs a destination's driver reads. */
export interface UrlForm {
  /** Its schemes, colon included ("postgres:"). */
  readonly schemes: readonly string[];
  /** The form, for messages: "postgres://user:password@host:5432/database". */
  readonly example: string;
  /** Whether a path such as "/var/run/postgresql" stands for a local socket (pg reads it so). */
  readonly socketPath?: boolean;
  /** Whether the driver decodes the user and password itself, failing on a malformed %-escape. */
  readonly decodesUserinfo?: boolean;
}

/**
 * Resolves a destination's `connection` option; without one, `fallback()` reads the
 * environment as the driver documents it. Every password seen, given or from the environment,
 * feeds the redactor, so none survives into a message. A URL is checked here, as its driver
 * would read it: a malformed one is a ConfigError now, not a driver's TypeError mid-run.
 */
export function resolveConnection(
  owner: string,
  connection: ConnectionOptions | undefined,
  fallback: () => Omit<ResolvedConnection, "redact">,
  envSecrets: ReadonlyArray<string | undefined>,
  form: UrlForm,
): ResolvedConnection {
  if (connection !== undefined && (typeof connection !== "object" || connection === null)) {
    throw new ConfigError(`${owner}: connection must be { url } or { host, port, user, password, database }, got ${typeof connection}`);
  }
  const settings = connection ?? fallback();
  if ("url" in settings && settings.url !== undefined && typeof settings.url !== "string") {
    throw new ConfigError(`${owner}: connection.url must be a string`);
  }
  const url = "url" in settings ? settings.url : undefined;
  if (url !== undefined) checkUrl(owner, connection === undefined ? "DATABASE_URL" : "connection.url", url, form);
  const password = "password" in settings ? settings.password : undefined;
  const redact = redactor([password, urlPassword(url), ...envSecrets]);
  return Object.freeze({ ...settings, redact });
}

/** The connection as it may be shown: no password, a URL's masked. */
export function publicConnection(connection: ResolvedConnection): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  if (connection.url) shown["url"] = redactUrl(connection.url);
  for (const field of ["host", "port", "user", "database"] as const) {
    if (connection[field] !== undefined) shown[field] = connection[field];
  }
  if (connection.password) shown["password"] = "***";
  return shown;
}

/** Throws a ConfigError naming `option` when `url` is not one `form` describes; the message holds no password. */
function checkUrl(owner: string, option: string, url: string, form: UrlForm): void {
  if (form.socketPath && url.startsWith("/")) return;
  const refuse = (why: string): never => {
    throw new ConfigError(`${owner}: ${option} ${why}: expected ${form.example}, got ${JSON.stringify(maskUserinfo(url))}`);
  };
  // A URL with no host ("postgres://user@/db?host=/socket") is read by pg with a stand-in host.
  const parsed = parseUrl(url) ?? parseUrl(url.replace("@/", "@localhost/"));
  if (!parsed) return refuse("is not a valid URL");
  if (!form.schemes.includes(parsed.protocol)) return refuse(`has the scheme "${parsed.protocol}"`);
  if (form.decodesUserinfo) {
    try {
      decodeURIComponent(parsed.username);
      decodeURIComponent(parsed.password);
    } catch {
      refuse('has a user or password with a malformed %-escape (write "%" as "%25")');
    }
  }
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
