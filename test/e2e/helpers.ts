// Helpers of the end-to-end tests: they run the built CLI (bin/interloper -> dist/cli/main.js)
// as a user would, on the fixture projects under fixtures/projects.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { execa } from "execa";
import { afterAll, beforeAll } from "vitest";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = join(ROOT, "bin", "interloper");
export const FIXTURES = join(ROOT, "fixtures", "projects");
/** The main fixture project: shop (orders, daily_revenue, events, customers), regions (sales), archive (customers). */
export const SHOP = join(FIXTURES, "shop", "interloper.config.ts");
export const JSON_CONFIG = join(FIXTURES, "json", "interloper.config.json");

const BUILT = join(ROOT, "dist", "cli", "main.js");
const LOCK = join(tmpdir(), `interloper-e2e-build-${Buffer.from(ROOT).toString("hex").slice(-24)}.lock`);

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestMtime(path) : (await stat(path)).mtimeMs);
  }
  return newest;
}

async function isFresh(): Promise<boolean> {
  const built = await stat(BUILT).catch(() => null);
  if (!built) return false;
  const sources = Math.max(await newestMtime(join(ROOT, "src")), (await stat(join(ROOT, "tsconfig.build.json"))).mtimeMs);
  return built.mtimeMs >= sources;
}

/**
 * Builds dist/ when dist/cli/main.js is missing or older than a file of src/, so local runs test
 * the current code (in CI `npm ci` has built it already). Test files run in parallel workers, so
 * one of them builds under a lock folder while the others wait for it.
 */
export async function ensureBuilt(): Promise<void> {
  if (await isFresh()) return;
  for (const started = Date.now(); ;) {
    try {
      await mkdir(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // A lock older than two minutes was left by a killed run.
      const lock = await stat(LOCK).catch(() => null);
      if (lock && Date.now() - lock.mtimeMs > 120_000) await rmdir(LOCK).catch(() => undefined);
      if (Date.now() - started > 150_000) throw new Error(`waited too long for the build lock ${LOCK}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (await isFresh()) return;
    const startedAt = Date.now();
    let output = "";
    try {
      await promisify(execFile)(process.execPath, [join(ROOT, "scripts", "build.mjs")], { cwd: ROOT });
    } catch (error) {
      // A type error still builds (another change in progress); only a missing build is fatal.
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    // A src file saved during the build leaves dist older than src but still newer than before.
    const built = await stat(BUILT).catch(() => null);
    if (!built || built.mtimeMs < startedAt - 1000) throw new Error(`building dist/ failed:\n${output}`);
  } finally {
    await rmdir(LOCK).catch(() => undefined);
  }
}

/** What one CLI process did. */
export interface CliResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
  /** Non-empty lines of stderr. */
  readonly errLines: string[];
  /** Non-empty lines of stdout. */
  readonly outLines: string[];
}

export interface CliOptions {
  /** The working directory (default: a fresh temp folder of the test). */
  readonly cwd: string;
  /** Extra environment; `undefined` removes a variable. */
  readonly env?: Record<string, string | undefined>;
}

/** Runs `node bin/interloper ...args` with plain, colourless output (CI=1, NO_COLOR=1). */
export async function cli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    ...process.env,
    CI: "1",
    NO_COLOR: "1",
    FORCE_COLOR: undefined,
    DEBUG: undefined,
    ...options.env,
  })) {
    if (value !== undefined) env[name] = value;
  }
  const result = await execa(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env,
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    stdin: "ignore",
    timeout: 30_000,
  });
  const stdout = String(result.stdout ?? "");
  const stderr = String(result.stderr ?? "");
  const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");
  return { stdout, stderr, exitCode: result.exitCode ?? -1, errLines: lines(stderr), outLines: lines(stdout) };
}

/** A test's sandbox: a temp working folder, and a data folder the fixture configs write into. */
export interface Sandbox {
  readonly dir: string;
  readonly data: string;
  /** Runs the CLI in `dir` with INTERLOPER_TEST_DATA=data; `-c <config>` is appended unless config is null. */
  run(
    args: readonly string[],
    options?: { config?: string | null; env?: Record<string, string | undefined>; cwd?: string },
  ): Promise<CliResult>;
  /** Every file below the data folder, relative, sorted (hidden row-count sidecars included). */
  files(): Promise<string[]>;
  /** The data files (data.csv) below the data folder, relative, sorted. */
  dataFiles(): Promise<string[]>;
  /** Writes a file below `dir`, creating its folders. */
  write(path: string, text: string): Promise<string>;
}

/** Creates sandboxes for the tests of a file and removes them after the file. */
export function useSandboxes(): () => Promise<Sandbox> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), "interloper-e2e-"));
    made.push(dir);
    const data = join(dir, "data");
    return {
      dir,
      data,
      run: (args, options = {}) => {
        const config = options.config === undefined ? SHOP : options.config;
        return cli(config === null ? args : [...args, "-c", config], {
          cwd: options.cwd ?? dir,
          env: { INTERLOPER_TEST_DATA: data, ...options.env },
        });
      },
      files: () => listFiles(data),
      dataFiles: async () => (await listFiles(data)).filter((f) => f.endsWith("data.csv")),
      write: async (path, text) => {
        const full = join(dir, path);
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, text);
        return full;
      },
    };
  };
}

/**
 * The one sandbox a file's tests share: made by `sandbox` (the file's useSandboxes) before the
 * tests, once dist/ is built, and filled by `fill`. What it returns stands for that sandbox
 * from then on, so a test uses it as it is.
 */
export function usePreparedSandbox(sandbox: () => Promise<Sandbox>, fill: (box: Sandbox) => Promise<void>): Sandbox {
  let made: Sandbox | null = null;
  beforeAll(async () => {
    await ensureBuilt();
    made = await sandbox();
    await fill(made);
  }, 180_000);
  const box = (): Sandbox => {
    if (!made) throw new Error("the prepared sandbox is made before the tests run: use it inside a test or hook");
    return made;
  };
  return {
    get dir() {
      return box().dir;
    },
    get data() {
      return box().data;
    },
    run: (args, options) => box().run(args, options),
    files: () => box().files(),
    dataFiles: () => box().dataFiles(),
    write: (path, text) => box().write(path, text),
  };
}

/** Every file below `root` (relative, "/" separated, sorted); none when it does not exist. */
export async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.push(relative(root, full).split("\\").join("/"));
    }
  };
  await walk(root);
  return out.sort();
}

/** The file of a partition of the shop fixture, relative to the data folder. */
export function partitionFile(dataset: string, table: string, column: string, key: string): string {
  return `${dataset}/${table}/${column}=${key}/data.csv`;
}

/** Reads a CSV file written by CSVDestination into records of text. */
export async function readCsv(path: string): Promise<Record<string, string>[]> {
  const [header, ...lines] = (await readFile(path, "utf8")).trim().split("\n");
  const columns = header!.split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((value, i) => [columns[i]!, value])));
}

/** How many rows the shop fixture's orders asset makes for a day (as fixtures/projects/shop/assets/regions.ts). */
export function orderCount(day: string): number {
  return 3 + (Number(day.slice(8, 10)) % 5);
}

/** The calendar day (YYYY-MM-DD) of `now` in `timeZone`, moved by `days`. */
export function dayIn(timeZone: string, now: Date, days = 0): string {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const date = new Date(Date.UTC(get("year"), get("month") - 1, get("day") + days));
  return date.toISOString().slice(0, 10);
}

/** Asserts the shape every bad-input error must have; returns the one line. */
export function oneLineError(result: CliResult): string {
  if (result.errLines.length !== 1)
    throw new Error(`expected exactly one line on stderr, got ${result.errLines.length}:\n${result.stderr}`);
  return result.errLines[0]!;
}

/**
 * Makes `dir` a user's project with interloper and zod installed: node_modules/interloper links
 * to this package (whose dist/ the CLI runs, so a config's classes are the CLI's), zod to ours.
 */
export async function installPackages(dir: string): Promise<void> {
  await mkdir(join(dir, "node_modules"), { recursive: true });
  await symlink(ROOT, join(dir, "node_modules", "interloper"), "dir");
  await symlink(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
}
