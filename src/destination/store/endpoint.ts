import { ConfigError } from "../../errors.js";

/**
 * Throws a ConfigError when an endpoint option is not an http(s) URL (the clients would throw a
 * bare TypeError at the first request). The message masks any user info the endpoint holds.
 * `option` names it as the user wrote it ("S3Destination: connection.endpoint").
 */
export function checkHttpEndpoint(endpoint: unknown, option: string, example: string): void {
  if (endpoint === undefined) return;
  const expected = `expected an http(s) URL such as ${example}`;
  if (typeof endpoint !== "string") throw new ConfigError(`${option} must be a string (${expected}), got ${typeof endpoint}`);
  let protocol: string | null;
  try {
    protocol = new URL(endpoint).protocol;
  } catch {
    protocol = null;
  }
  if (protocol !== "http:" && protocol !== "https:") {
    const at = endpoint.lastIndexOf("@");
    const shown = at < 0 ? endpoint : `${/^[a-z][a-z0-9+.-]*:\/\//i.exec(endpoint)?.[0] ?? ""}***${endpoint.slice(at)}`;
    throw new ConfigError(
      `${option} ${protocol ? `has the scheme "${protocol}"` : "is not a valid URL"}: ${expected}, got ${JSON.stringify(shown)}`,
    );
  }
}
