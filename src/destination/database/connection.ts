import { ConfigError } from "../../errors.js";
import { redactor, redactUrl, urlPassword } from "./secrets.js";

/** How to reach a database server: a URL, or its fields. Omitted: from the environment. */
export type ConnectionOptions =
  | { readonly url: string }
  | {
      readonly host?: string;
      readonly port?: number;
      readonly user?: string;
      readonly password?: string;
      readonly database?: string;
    };

/** A resolved connection: the settings for the driver and everything safe to show. */
export interface ResolvedConnection {
  readonly url?: string;
  readonly host?: string;
  readonly port?: number;
  readonly user?: string;
  readonly password?: string;
  readonly database?: string;
  /** Removes every password this connection may involve from a text. */
  readonly redact: (text: string) => string;
}

/**
 * Resolves a destination's `connection` option; without one, `fallback()` reads the
 * environment as the driver documents it. Every password seen, given or from the environment,
 * feeds the redactor, so none survives into a message.
 */
export function resolveConnection(
  owner: string,
  connection: ConnectionOptions | undefined,
  fallback: () => Omit<ResolvedConnection, "redact">,
  envSecrets: ReadonlyArray<string | undefined>,
): ResolvedConnection {
  if (connection !== undefined && (typeof connection !== "object" || connection === null)) {
    throw new ConfigError(`${owner}: connection must be { url } or { host, port, user, password, database }, got ${typeof connection}`);
  }
  const settings = connection ?? fallback();
  if ("url" in settings && settings.url !== undefined && typeof settings.url !== "string") {
    throw new ConfigError(`${owner}: connection.url must be a string`);
  }
  const url = "url" in settings ? settings.url : undefined;
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
