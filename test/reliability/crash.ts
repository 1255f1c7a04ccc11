// The SIGKILL loop shared by crash-files.test.ts and crash-stores.test.ts (two files, so the
// two halves run in parallel workers): a CLI backfill of rel.events is killed at a random moment,
// again and again, and after every kill what storage holds is checked.
import { expect } from "vitest";
import { checkStored, days, LONG, prng, runCli, seedFor, startCli, type LocalKind } from "./helpers.js";

/** Kills per destination: at least 50 in the long variant, a few by default. */
export const KILLS = LONG ? 50 : 3;
export const CRASH_WINDOW = days("2024-03-01", "2024-03-12");
const PAD = 500;
// Per partition: run:started, asset:queued, asset:started, destination:write:started,
// destination:write:completed, asset:completed, run:completed; plus backfill:started/completed.
const EVENTS = CRASH_WINDOW.length * 7 + 2;

export interface CrashStats {
  killed: number;
  exitedFirst: number;
  leftovers: number;
}

/**
 * `KILLS` cycles of: start a backfill (the whole window, or `--missing`), SIGKILL it when its
 * --json stream reaches a random event count or after a random delay, then check storage: every
 * partition that exists is complete and reads back exactly, every partition complete before the
 * kill (or reported completed by the stream) is still there, nothing else is counted. Finally a
 * `--missing` run completes the window.
 */
export async function crashLoop(kind: LocalKind, data: string): Promise<CrashStats> {
  const seed = seedFor(`crash loop (${kind})`);
  const random = prng(seed);
  const window = String(CRASH_WINDOW);
  const env = { REL_DEST: kind, REL_WORK_MS: "2", REL_PAD: String(PAD) };
  const stats: CrashStats = { killed: 0, exitedFirst: 0, leftovers: 0 };
  let complete = new Set<string>();
  for (let cycle = 0; cycle < KILLS; cycle++) {
    const missing = complete.size > 0 && complete.size < CRASH_WINDOW.length && random() < 0.5;
    const args = ["materialize", "events", "-w", window, "--json", ...(missing ? ["--missing"] : []), "--order", random() < 0.5 ? "newest" : "oldest"];
    const byEvent = random() < 0.75;
    const eventCount = 1 + Math.floor(random() * EVENTS);
    const delayMs = Math.floor(random() * (byEvent ? 4 : 1500));
    const child = startCli(args, data, env);
    if (byEvent) await child.linesReach(eventCount);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    child.process.kill("SIGKILL");
    const { signal, code } = await child.exit;
    if (signal === "SIGKILL") stats.killed++;
    else {
      stats.exitedFirst++;
      expect(code, `cycle ${cycle} (seed ${seed}) exited ${code} before the kill: ${child.stderr()}`).toBe(0);
    }
    const reported = child.lines
      .map((line) => JSON.parse(line) as { type: string; partition?: string })
      .filter((event) => event.type === "asset:completed" && event.partition)
      .map((event) => event.partition!);
    const where = `cycle ${cycle} of ${kind} (seed ${seed}; ${args.join(" ")}; ${byEvent ? `kill at event ${eventCount} + ${delayMs} ms` : `kill after ${delayMs} ms`})`;
    const state = await checkStored(kind, data, CRASH_WINDOW, { pad: PAD }).catch((error: Error) => {
      throw new Error(`${where}: ${error.message}`);
    });
    const now = new Set(Object.keys(state.counts));
    for (const key of [...complete, ...reported]) expect(now.has(key), `${where}: partition ${key} was complete before the kill and is gone`).toBe(true);
    stats.leftovers = Math.max(stats.leftovers, state.leftovers.length);
    complete = now;
  }
  const final = await runCli(["materialize", "events", "-w", window, "--missing"], data, env);
  expect(final.code, final.stderr).toBe(0);
  const state = await checkStored(kind, data, CRASH_WINDOW, { pad: PAD });
  expect(Object.keys(state.counts)).toEqual(CRASH_WINDOW.partitions.map((p) => p.key));
  // And the CLI's own view agrees: nothing missing, each day its rows.
  const coverage = await runCli(["coverage", "events", "-w", window, "--json"], data, env);
  expect(coverage.code, coverage.stderr).toBe(0);
  const report = JSON.parse(coverage.stdout) as { missing: number; partitions: { key: string; rows: number | null }[] };
  expect(report.missing).toBe(0);
  expect(report.partitions.map((p) => [p.key, p.rows])).toEqual(Object.entries(state.counts));
  console.log(`crash loop (${kind}): ${stats.killed} kills landed, ${stats.exitedFirst} runs ended first, up to ${stats.leftovers} temporary files left behind (never counted)`);
  return stats;
}
