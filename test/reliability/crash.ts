// The SIGKILL loop shared by crash-files.test.ts and crash-stores.test.ts (two files, so the
// two halves run in parallel workers): a CLI backfill of rel.events is killed at a random moment,
// again and again, and after every kill what storage holds is checked.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "vitest";
import { parseTempName, THIS_HOST } from "../../src/destination/store/local/atomic.js";
import { ROOT } from "../e2e/helpers.js";
import { checkStored, days, listAll, LONG, prng, runCli, seedFor, startCli, type LocalKind } from "./helpers.js";

/** Kills per destination: 20 in the long variant, a few by default. */
export const KILLS = LONG ? 20 : 3;
export const CRASH_WINDOW = days("2024-03-01", "2024-03-12");
const PAD = 500;
// Per partition: run:started, asset:queued, asset:started, destination:write:started,
// destination:write:completed, asset:completed, run:completed; plus backfill:started/completed.
const EVENTS = CRASH_WINDOW.length * 7 + 2;

export interface CrashStats {
  killed: number;
  exitedFirst: number;
  leftovers: number;
  /** Temporary files the final `--missing` run removed (those in folders it wrote). */
  swept: number;
  /** Temporary files still there after the final `--missing` run: only in folders it did not write. */
  remaining: number;
}

/**
 * `KILLS` cycles of: start a backfill (the whole window, or `--missing`), SIGKILL it when its
 * --json stream reaches a random event count or after a random delay, then check storage: every
 * partition that exists is complete and reads back exactly, every partition complete before the
 * kill (or reported completed by the stream) is still there, nothing else is counted. Finally a
 * `--missing` run completes the window and removes the killed writers' temporary files from every
 * folder it writes: the table's and those of the partitions it writes (see sweepStaleTemps). The
 * only ones left are in the folders of partitions complete before it, which it does not rewrite
 * (a writer killed while rewriting a complete partition).
 */
export async function crashLoop(kind: LocalKind, data: string): Promise<CrashStats> {
  const seed = seedFor(`crash loop (${kind})`);
  const random = prng(seed);
  const window = String(CRASH_WINDOW);
  const env = { REL_DEST: kind, REL_WORK_MS: "2", REL_PAD: String(PAD) };
  const stats: CrashStats = { killed: 0, exitedFirst: 0, leftovers: 0, swept: 0, remaining: 0 };
  let before: string[] = [];
  let complete = new Set<string>();
  for (let cycle = 0; cycle < KILLS; cycle++) {
    const missing = complete.size > 0 && complete.size < CRASH_WINDOW.length && random() < 0.5;
    const args = [
      "materialize",
      "events",
      "-w",
      window,
      "--json",
      ...(missing ? ["--missing"] : []),
      "--order",
      random() < 0.5 ? "newest" : "oldest",
    ];
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
    for (const key of [...complete, ...reported])
      expect(now.has(key), `${where}: partition ${key} was complete before the kill and is gone`).toBe(true);
    stats.leftovers = Math.max(stats.leftovers, state.leftovers.length);
    complete = now;
    before = state.leftovers;
  }
  const final = await runCli(["materialize", "events", "-w", window, "--missing", "--json"], data, env);
  expect(final.code, final.stderr).toBe(0);
  const rewritten = final.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { type: string; partition?: string })
    .filter((event) => event.type === "asset:completed" && event.partition)
    .map((event) => event.partition!)
    .sort();
  expect(rewritten).toEqual(CRASH_WINDOW.partitions.map((p) => p.key).filter((key) => !complete.has(key)));
  const state = await checkStored(kind, data, CRASH_WINDOW, { pad: PAD });
  expect(Object.keys(state.counts)).toEqual(CRASH_WINDOW.partitions.map((p) => p.key));
  // Every killed writer's temporary file left is one of this host's writers' (a dead pid), in a
  // folder the final run did not write: a partition's it did not rewrite, or the table's when it
  // wrote nothing at all (a write sweeps the table's folder, where ledger compactions leave theirs).
  for (const file of state.leftovers) {
    const inPartition = /^rel\/events\/date=(\d{4}-\d{2}-\d{2})\/([^/]+)$/.exec(file);
    const inTable = /^rel\/events\/([^/]+)$/.exec(file);
    const what = `${file} after the final run (it wrote ${rewritten.join(", ") || "nothing"})`;
    expect(inPartition ?? (rewritten.length === 0 ? inTable : null), `${what}: in a folder it wrote`).not.toBeNull();
    if (inPartition) expect(rewritten, `${what}: in a partition folder it wrote`).not.toContain(inPartition[1]);
    expect(parseTempName((inPartition?.[2] ?? inTable?.[1])!)?.host, what).toBe(THIS_HOST);
  }
  stats.remaining = state.leftovers.length;
  stats.swept = before.filter((file) => !state.leftovers.includes(file)).length;
  expect(
    stats.remaining + stats.swept,
    `temporary files before the final run: ${before.join(", ")}; after: ${state.leftovers.join(", ")}`,
  ).toBe(before.length);
  // And the CLI's own view agrees: nothing missing, each day its rows.
  const coverage = await runCli(["coverage", "events", "-w", window, "--json"], data, env);
  expect(coverage.code, coverage.stderr).toBe(0);
  const report = JSON.parse(coverage.stdout) as { missing: number; partitions: { key: string; rows: number | null }[] };
  expect(report.missing).toBe(0);
  expect(report.partitions.map((p) => [p.key, p.rows])).toEqual(Object.entries(state.counts));
  console.log(
    `crash loop (${kind}): ${stats.killed} kills landed, ${stats.exitedFirst} runs ended first, up to ${stats.leftovers} temporary files left behind (never counted), the final run removed ${stats.swept} and left ${stats.remaining} (in partitions complete before it)`,
  );
  return stats;
}

/**
 * A writer killed for certain in the middle of a write: a process that writes `target` with
 * writeFileAtomic (the function every file destination writes through; loaded from src with
 * jiti, as the CLI loads a TypeScript config), stalls after the first chunk, and is SIGKILLed
 * once its temporary file exists. Returns that file.
 */
export async function killWriterMidWrite(target: string): Promise<string> {
  const atomic = join(ROOT, "src", "destination", "store", "local", "atomic.ts");
  const script = `
    import { createJiti } from "jiti";
    const { writeFileAtomic } = await createJiti(${JSON.stringify(pathToFileURL(ROOT).href)}).import(${JSON.stringify(atomic)});
    async function* stalled() {
      yield "half a partition";
      process.stdout.write("writing\\n");
      await new Promise(() => setInterval(() => {}, 1000));
    }
    await writeFileAtomic(process.env.TARGET, stalled());`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    env: { ...process.env, TARGET: target },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  let out = "";
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    if (out.includes("writing")) break;
  }
  const prefix = `.${basename(target)}.tmp-${THIS_HOST}-${child.pid}-`;
  const temps = (await readdir(dirname(target))).filter((name) => name.startsWith(prefix));
  child.kill("SIGKILL");
  const [code, signal] = await exited;
  expect(signal, `the stalled writer exited by itself (${code})`).toBe("SIGKILL");
  expect(temps, `the stalled writer's temporary file beside ${target}`).toHaveLength(1);
  return join(dirname(target), temps[0]!);
}

const FILE_NAMES: Partial<Record<LocalKind, string>> = {
  csv: "data.csv",
  file: "data.v8",
  parquet: "data.parquet",
  jsonl: "data.jsonl",
  objcsv: "data.csv",
};
// The file destinations (csv, file) sweep the table's folder, where a compaction of the table's
// ledger leaves its temporary file when killed; object stores sweep only an object's own folder.
const SWEEPS_TABLE: ReadonlySet<LocalKind> = new Set(["csv", "file"]);

/**
 * Writers killed mid-write at known places, then the re-runs: `--missing` removes the temporary
 * files of the partition it writes and of the table's folder, and leaves exactly the one beside
 * a complete partition it does not rewrite; rewriting that partition removes it too.
 */
export async function killedWritersSwept(kind: LocalKind, data: string): Promise<void> {
  const fileName = FILE_NAMES[kind]!;
  const env = { REL_DEST: kind };
  const first = await runCli(["materialize", "events", "-w", "2024-03-01..2024-03-03"], data, env);
  expect(first.code, first.stderr).toBe(0);
  const table = join(data, "rel", "events");
  const rel = (path: string) =>
    path
      .slice(data.length + 1)
      .split("\\")
      .join("/");
  // A new partition whose writer died (its folder holds only the temporary file), a complete
  // partition whose rewrite died, and (files) a compaction of the table's ledger that died.
  const newPartition = await killWriterMidWrite(join(table, "date=2024-03-04", fileName));
  const rewrite = await killWriterMidWrite(join(table, "date=2024-03-02", fileName));
  const compaction = SWEEPS_TABLE.has(kind) ? [await killWriterMidWrite(join(table, `.${fileName}.ledger`))] : [];
  const leftovers = async () => (await listAll(data)).filter((file) => file.includes(".tmp-"));
  expect(await leftovers()).toEqual([newPartition, rewrite, ...compaction].map(rel).sort());

  const missing = await runCli(["materialize", "events", "-w", "2024-03-01..2024-03-04", "--missing"], data, env);
  expect(missing.code, missing.stderr).toBe(0);
  const window = days("2024-03-01", "2024-03-04");
  const state = await checkStored(kind, data, window);
  expect(Object.keys(state.counts)).toEqual(window.partitions.map((p) => p.key));
  expect(state.leftovers).toEqual([rel(rewrite)]);

  const again = await runCli(["materialize", "events", "-w", "2024-03-02..2024-03-02"], data, env);
  expect(again.code, again.stderr).toBe(0);
  expect((await checkStored(kind, data, window)).leftovers).toEqual([]);
}
