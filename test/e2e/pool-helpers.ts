// Helpers of the process-pool, shard and example tests: the pool fixture project
// (fixtures/projects/pool), its run log, a CLI process the test can signal, a program on the
// built package, YAML.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { execa, type ResultPromise } from "execa";
import { expect } from "vitest";
import { BIN, FIXTURES, ROOT, type CliResult, type Sandbox } from "./helpers.js";

/** The pool fixture: pool.daily (daily from 2025-01-01, 3 rows a day) and pool.settings (unpartitioned). */
export const POOL = join(FIXTURES, "pool", "interloper.config.ts");
export const POOL_DIR = join(FIXTURES, "pool");

/** Where the fixture stores a day of pool.daily, relative to the data folder. */
export function dailyFile(key: string, destination: "csv" | "object-store" = "csv"): string {
  return `pool/daily/date=${key}/data.${destination === "csv" ? "csv" : "jsonl"}`;
}

/** Day keys from `from` to `to`, inclusive, oldest first. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * Runs the CLI on the pool fixture in the sandbox (as `box.run`, with a longer limit: a pool
 * backfill starts a process per partition, which takes seconds on a loaded machine).
 */
export function runPool(box: Sandbox, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return startPool(box, args, { env }).done;
}

/** One line of the fixture's run log ($INTERLOPER_TEST_DATA/runs.log). */
export interface LogLine {
  /** start/end of a pool.daily run; settings: a pool.settings run; up/down: a pool worker process loaded the config / exited. */
  readonly what: "start" | "end" | "settings" | "up" | "down";
  readonly key: string | null;
  readonly pid: number;
}

export async function runLog(box: Sandbox): Promise<LogLine[]> {
  const text = await readFile(join(box.data, "runs.log"), "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const words = line.split(" ");
      const what = words[0] as LogLine["what"];
      return what === "start" || what === "end"
        ? { what, key: words[1]!, pid: Number(words[2]) }
        : { what, key: null, pid: Number(words[1]) };
    });
}

/** How many times each day's run ended (returned its rows), by key. */
export function endsPerKey(lines: readonly LogLine[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of lines) if (line.what === "end") counts[line.key!] = (counts[line.key!] ?? 0) + 1;
  return counts;
}

/** The most child processes alive at once, from their up/down lines in log order. */
export function maxChildrenAlive(lines: readonly LogLine[]): number {
  let alive = 0;
  let most = 0;
  for (const line of lines) {
    if (line.what === "up") most = Math.max(most, ++alive);
    if (line.what === "down") alive--;
  }
  return most;
}

/** Whether a process is still running. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Polls until `check` holds, or fails after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; ; await sleep(50)) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`waited ${timeoutMs} ms for ${what}`);
  }
}

/** How `startPool` starts the CLI: the whole output kept, a failure returned rather than thrown. */
interface PoolProcessOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly extendEnv: false;
  readonly reject: false;
  readonly stripFinalNewline: false;
  readonly stdin: "ignore";
  readonly timeout: number;
}

/** A CLI process the test keeps a handle on (to signal it), on the pool fixture, in the sandbox. */
export interface RunningCli {
  // Typed by its own options: under exactOptionalPropertyTypes, execa's result for these options
  // is not assignable to the one for its general Options.
  readonly process: ResultPromise<PoolProcessOptions>;
  readonly pid: number;
  readonly done: Promise<CliResult & { signal: string | null }>;
}

export function startPool(
  box: Sandbox,
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; config?: string | null; cwd?: string } = {},
): RunningCli {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    ...process.env,
    CI: "1",
    NO_COLOR: "1",
    FORCE_COLOR: undefined,
    DEBUG: undefined,
    INTERLOPER_TEST_DATA: box.data,
    ...options.env,
  })) {
    if (value !== undefined) env[name] = value;
  }
  const config = options.config === undefined ? POOL : options.config;
  const processOptions: PoolProcessOptions = {
    cwd: options.cwd ?? box.dir,
    env,
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    stdin: "ignore",
    timeout: 120_000,
  };
  const child = execa(process.execPath, [BIN, ...args, ...(config === null ? [] : ["-c", config])], processOptions);
  const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");
  const done = child.then((result) => {
    const stdout = String(result.stdout ?? "");
    const stderr = String(result.stderr ?? "");
    return {
      stdout,
      stderr,
      exitCode: result.exitCode ?? -1,
      signal: result.signal ?? null,
      errLines: lines(stderr),
      outLines: lines(stdout),
    };
  });
  return { process: child, pid: child.pid!, done };
}

/**
 * Runs a program of a user's on the built package and the pool fixture, in the sandbox: `body`
 * runs with `il` (the package), `config` (the fixture's config path) and `project` (loaded from
 * it) in scope, and prints its answer as one line of JSON, returned parsed. The program must
 * exit 0; `env` adds to the test's (the fixture's INTERLOPER_* switches).
 */
export async function runPoolProgram<T>(box: Sandbox, body: string, env: Record<string, string | undefined> = {}): Promise<T> {
  const script = await box.write(
    "api.mjs",
    `const il = await import(${JSON.stringify(join(ROOT, "dist", "index.js"))});
const config = ${JSON.stringify(POOL)};
const project = await il.loadProject({ configPath: config });
${body}`,
  );
  const run = await execa(process.execPath, [script], {
    cwd: box.dir,
    env: { ...process.env, INTERLOPER_TEST_DATA: box.data, ...env },
    reject: false,
    timeout: 120_000,
  });
  expect(run.exitCode, String(run.stderr)).toBe(0);
  return JSON.parse(String(run.stdout)) as T;
}

/** An event of a `--json` run. */
export interface JsonEvent {
  readonly type: string;
  readonly backfillId?: string;
  readonly runId?: string;
  readonly partition?: string;
  readonly asset?: string;
  readonly rows?: number | null;
  readonly error?: { readonly name: string; readonly message: string };
  readonly [field: string]: unknown;
}

/** Every stdout line of a `--json` run, parsed (each must be one JSON event). */
export function jsonEvents(result: CliResult): JsonEvent[] {
  return result.outLines.map((line) => {
    const event = JSON.parse(line) as JsonEvent;
    expect(typeof event.type, line).toBe("string");
    return event;
  });
}

/** What `coverage <asset> --json` says about the pool fixture's storage. */
export interface CoverageJson {
  readonly expected: number;
  readonly materialized: number;
  readonly empty: number;
  readonly missing: number;
  readonly partitions: readonly { key: string; status: string; rows: number | null }[];
}

export async function coverageOf(
  box: Sandbox,
  window: string,
  env: Record<string, string | undefined> = {},
  asset = "daily",
): Promise<CoverageJson> {
  const result = await runPool(box, ["coverage", asset, "-w", window, "--json"], env);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as CoverageJson;
}

/** Asserts coverage of the window is complete: every day materialized with the fixture's 3 rows. */
export async function expectComplete(box: Sandbox, from: string, to: string, env: Record<string, string | undefined> = {}): Promise<void> {
  const coverage = await coverageOf(box, `${from}..${to}`, env);
  const days = daysBetween(from, to);
  expect(coverage.partitions.map((p) => [p.key, p.status, p.rows])).toEqual(days.map((key) => [key, "materialized", 3]));
  expect({ expected: coverage.expected, materialized: coverage.materialized, missing: coverage.missing, empty: coverage.empty }).toEqual({
    expected: days.length,
    materialized: days.length,
    missing: 0,
    empty: 0,
  });
}

/** js-yaml (a transitive dependency without types here), loaded as CommonJS. */
export function loadYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)("js-yaml") as { load(text: string): unknown };
  return yaml.load(text);
}
