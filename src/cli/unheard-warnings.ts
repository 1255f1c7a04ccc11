// The warnings no run's listener hears while a command runs (a damaged record met by `history`,
// coverage or staleness, a destination called outside a run): the command line prints them as
// its own lines, not as Node's process warnings (with a pid and a `--trace-warnings` hint).
import { routeUnheardWarnings } from "../destination/unheard-warnings.js";
import { printable, terminalJson } from "./printable.js";

/**
 * Routes the command's unheard warnings to stderr, each distinct message once: one line
 * `interloper: warning: {message}`, or with `--json` one JSON log event
 * `{"type":"log","level":"warn","message":...}` (stdout keeps the command's document or its
 * run's events). Returns the function that ends the routing.
 */
export function printUnheardWarnings(json: boolean, write: (line: string) => void = (line) => process.stderr.write(line)): () => void {
  const printed = new Set<string>();
  return routeUnheardWarnings((message) => {
    if (printed.has(message)) return;
    printed.add(message);
    write(
      json ? `${terminalJson(JSON.stringify({ type: "log", level: "warn", message }))}\n` : `interloper: warning: ${printable(message)}\n`,
    );
  });
}
