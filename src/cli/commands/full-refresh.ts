import { createInterface } from "node:readline";
import type { FullRefreshTarget, Plan, RefreshScope, Session } from "../../api/session/index.js";
import { ConfigError } from "../../errors.js";
import { printable } from "../printable.js";

/** The flags of `materialize --full-refresh`. */
export interface FullRefreshFlags {
  readonly fullRefresh?: boolean;
  readonly yes?: boolean;
}

/** Exit code when the person at the terminal answers no: nothing was done, nor did anything fail. */
export const DECLINED_EXIT = 1;

/** `--yes` confirms a full refresh and nothing else. */
export function checkYes(flags: FullRefreshFlags): void {
  if (flags.yes && !flags.fullRefresh) throw new ConfigError("--yes only applies with --full-refresh");
}

/** One line per target: the asset, the destination, what it holds, and how many partitions. */
export function dropLines(targets: readonly FullRefreshTarget[]): string[] {
  if (targets.length === 0) return ["  (no destination: nothing to drop)"];
  return targets.map((t) => {
    const partitions = t.partitions === null ? "" : ` (${t.partitions} partition${t.partitions === 1 ? "" : "s"})`;
    return `  ${t.asset} -> ${t.destinationKey}: ${t.destination}: ${t.what}${t.exists ? partitions : " (nothing stored)"}`;
  });
}

/** What `--full-refresh --dry-run` prints before the usual dry run: what would be dropped, and rebuilt. */
export function dryRunDropLines(targets: readonly FullRefreshTarget[], plan: Plan, scope: RefreshScope | null = null): string[] {
  return ["Dry run: nothing is dropped.", "Would drop:", ...dropLines(targets), rebuildLine(plan, scope)];
}

/**
 * Asks (see `confirmFullRefresh`), then drops: null once every target is dropped, for the
 * rebuild to follow; else the exit code to end with, nothing dropped.
 */
export async function confirmAndDrop(
  session: Session,
  targets: readonly FullRefreshTarget[],
  plan: Plan,
  flags: FullRefreshFlags,
  scope: RefreshScope | null = null,
): Promise<number | null> {
  const stop = await confirmFullRefresh(targets, plan, flags, scope);
  if (stop !== null) return stop;
  await session.drop(plan);
  process.stderr.write(`${printable(`Dropped what ${targets.length} destination(s) held of ${plan.assets.length} asset(s).`)}\n`);
  if (scope?.widenedFrom) process.stderr.write(`${printable(rebuildLine(plan, scope))}\n`);
  return null;
}

/**
 * What is rebuilt after the drop: the assets, over the window if any; a window widened to the
 * stored partitions outside the one given says so, with how many.
 */
export function rebuildLine(plan: Plan, scope: RefreshScope | null = null): string {
  const assets = plan.assets.map((a) => a.qualifiedKey).join(", ");
  if (scope?.widenedFrom) {
    const n = scope.outside;
    return `then rebuild ${assets} for ${String(scope.widenedFrom)} and the ${n} stored partition${n === 1 ? "" : "s"} outside it (every partition dropped is rebuilt), within ${String(plan.window)}.`;
  }
  return `then rebuild ${assets}${plan.window ? ` for ${String(plan.window)}` : ""}.`;
}

/**
 * Whether to go ahead with the drop. `--yes` goes ahead; a terminal is asked, no being the
 * default; anywhere else the drop is refused (ConfigError, exit 2): a script must say --yes.
 * Returns null to go ahead, else the exit code to end with (DECLINED_EXIT, or 130 on Ctrl-C).
 */
export async function confirmFullRefresh(
  targets: readonly FullRefreshTarget[],
  plan: Plan,
  flags: FullRefreshFlags,
  scope: RefreshScope | null = null,
): Promise<number | null> {
  if (flags.yes) return null;
  const err = (line: string) => process.stderr.write(`${printable(line)}\n`);
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    const assets = new Set(targets.map((t) => t.asset)).size;
    throw new ConfigError(
      `--full-refresh would drop what ${targets.length} destination(s) hold of ${assets} asset(s), and no terminal can confirm it: pass --yes to go ahead (--dry-run lists what would be dropped)`,
    );
  }
  err("--full-refresh will drop everything these destinations hold of these assets:");
  for (const line of dropLines(targets)) err(line);
  err(rebuildLine(plan, scope));
  const answer = await ask("Drop them? [y/N] ");
  if (answer === null) {
    err("Interrupted: nothing dropped.");
    return 130;
  }
  if (/^y(es)?$/i.test(answer.trim())) return null;
  err("Nothing dropped.");
  return DECLINED_EXIT;
}

/** One line read from the terminal after `question`: "" when the input ends (Ctrl-D), null on Ctrl-C. */
function ask(question: string): Promise<string | null> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise<string | null>((resolve) => {
    let answered = false;
    let interrupted = false;
    rl.question(question, (answer) => {
      answered = true;
      resolve(answer);
      rl.close();
    });
    // Without a listener, readline only pauses on Ctrl-C: the question would wait for ever.
    rl.on("SIGINT", () => {
      interrupted = true;
      rl.close();
    });
    rl.on("close", () => {
      if (answered) return;
      process.stderr.write("\n");
      resolve(interrupted ? null : "");
    });
  });
}
