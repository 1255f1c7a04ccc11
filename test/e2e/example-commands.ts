// How the examples under examples/ call interloper, and how the tests run those calls here.
// Short commands go through `npx interloper`. Long ones (a backfill, a worker) call the
// installed command itself, `node_modules/.bin/interloper` (after `exec` in a shell step): npm
// exits on SIGTERM or SIGINT without passing it on, so through npx a stopped pod or a cancelled
// job would kill the running partitions with no grace.
import { BIN } from "./helpers.js";

/** The installed command, as a container or a shell step of the examples calls it. */
export const INSTALLED_BIN = "node_modules/.bin/interloper";

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** A shell script of an example with each interloper call pointed at this checkout's CLI and `config`. */
export function localScript(script: string, config: string): string {
  return script.replace(
    /(?:npx interloper|node_modules\/\.bin\/interloper) (\w+)/g,
    (_, command: string) => `${quote(process.execPath)} ${quote(BIN)} ${command} -c ${quote(config)}`,
  );
}

/** A container's command line as this checkout's CLI arguments: it must start with the installed command. */
export function containerArgs(command: readonly string[], config: string): string[] {
  if (command[0] !== INSTALLED_BIN) throw new Error(`a container runs ${INSTALLED_BIN} itself (signals reach it), not ${command[0]}`);
  return [BIN, ...command.slice(1), "-c", config];
}
