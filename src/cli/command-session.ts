// The sessions a command opened on its project: the command line runs, plans, reads and computes
// coverage through them only, and asks them about their runs (under way, abandoned work still
// running, an error that escaped). main.ts closes them when the command ends. This module
// imports nothing at run time: main.ts reaches it even for --help.
import type { Session } from "../api/session/index.js";
import type { GlobalOptions } from "./main.js";

const sessions = new Set<Session>();

/** Opens a session on the project of `--config` (else the config found from here upward). */
export async function openCommandSession(flags: Pick<GlobalOptions, "config">): Promise<Session> {
  const { openProject } = await import("../api/session/index.js");
  const session = await openProject(flags.config);
  sessions.add(session);
  return session;
}

/** Whether a run or backfill of any of the command's sessions is under way. */
export function commandRunsUnderWay(): boolean {
  for (const session of sessions) if (session.running) return true;
  return false;
}

/** Hands an error thrown outside every promise to the command's runs under way; false when none takes it. */
export function takeEscapedError(error: unknown): boolean {
  for (const session of sessions) if (session.takeEscapedError(error)) return true;
  return false;
}

/** Closes every session the command opened (its destinations' pools and clients, its workers) and forgets them. */
export async function closeCommandSessions(): Promise<void> {
  const all = [...sessions];
  sessions.clear();
  await Promise.all(all.map((session) => session.close()));
}
