// Whether output is coloured, decided once at start-up, in this order:
//   1. --color or --no-color;
//   2. FORCE_COLOR (set and not "0" or "false": on; "0" or "false": off), then NO_COLOR (set and
//      not empty: off);
//   3. else each view colours when it writes to a terminal.
// The decision is written back into the environment (NO_COLOR and FORCE_COLOR) so that every
// part that colours (the views, ink's chalk, child processes of a pool) reads the same answer.

type Env = Record<string, string | undefined>;

/** true: colour; false: none; null: let each view look at its terminal. */
export function colorChoice(flag: boolean | undefined, env: Env): boolean | null {
  if (flag !== undefined) return flag;
  const force = env["FORCE_COLOR"];
  if (force !== undefined) return !["0", "false"].includes(force.trim().toLowerCase());
  if (env["NO_COLOR"]) return false;
  return null;
}

/** Writes a choice into `env`: both variables agree with it afterwards. */
export function applyColorChoice(choice: boolean | null, env: Env = process.env): void {
  if (choice === null) return;
  if (choice) {
    delete env["NO_COLOR"];
    const level = Number(env["FORCE_COLOR"]);
    if (!(level >= 1)) env["FORCE_COLOR"] = "1";
  } else {
    env["NO_COLOR"] = "1";
    env["FORCE_COLOR"] = "0";
  }
}
