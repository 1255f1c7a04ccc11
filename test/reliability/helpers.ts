// Helpers of the reliability suite (test/reliability): the reliability fixture, a seeded PRNG,
// CLI processes the tests can kill, and in-process readers of what a destination holds.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { z } from "zod";
import { afterAll } from "vitest";
import { IOContext, type AssetRef, type Destination } from "../../src/destination/index.js";
import { CSVDestination, FileDestination } from "../../src/destination/index.js";
import { LocalObjectStoreDestination } from "../../src/destination/store/index.js";
import { MySQLDestination, PostgresDestination, SQLiteDestination } from "../../src/destination/database/index.js";
import { TimeGranularity, TimePartition, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import { TableData } from "../../src/representation/index.js";
import { fieldSpecs } from "../../src/schema/index.js";
import { BIN, FIXTURES } from "../e2e/helpers.js";
import { eventRows, type EventRow } from "../../fixtures/projects/reliability/rows.js";

export { ensureBuilt } from "../e2e/helpers.js";
export { eventCount, eventRows } from "../../fixtures/projects/reliability/rows.js";

/** The fixture of this suite (see its header for the variables it reads). */
export const REL = join(FIXTURES, "reliability", "interloper.config.ts");

/** The long variant (CI): INTERLOPER_RELIABILITY_LONG=1. */
export const LONG = process.env["INTERLOPER_RELIABILITY_LONG"] === "1";

/** A seed: INTERLOPER_RELIABILITY_SEED when given (to reproduce a failure), else a fresh one; printed. */
export function seedFor(what: string): number {
  const given = process.env["INTERLOPER_RELIABILITY_SEED"];
  const seed = given !== undefined ? Number(given) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
  console.log(`${what}: seed ${seed} (reproduce with INTERLOPER_RELIABILITY_SEED=${seed})`);
  return seed;
}

/** mulberry32: a small, seeded PRNG giving floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Temp folders of a test file, removed after it. */
export function useTempDirs(): (prefix?: string) => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (prefix = "interloper-rel-") => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** The environment of a CLI process: plain output, the data folder, the fixture's variables. */
export function cliEnv(data: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    ...process.env,
    CI: "1",
    NO_COLOR: "1",
    FORCE_COLOR: undefined,
    DEBUG: undefined,
    INTERLOPER_TEST_DATA: data,
    ...extra,
  })) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A CLI process on the reliability fixture, its output collected line by line. */
export interface Child {
  readonly process: ChildProcess;
  /** Complete stdout lines so far. */
  readonly lines: string[];
  stderr(): string;
  stdout(): string;
  /** Resolves when `lines.length` reaches n (or the process ends first). */
  linesReach(n: number): Promise<void>;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startCli(args: readonly string[], data: string, env: Record<string, string | undefined> = {}, cwd = data): Child {
  const child = spawn(process.execPath, [BIN, ...args, "-c", REL], { cwd, env: cliEnv(data, env), stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let out = "";
  let partial = "";
  let err = "";
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const wake = () => {
    for (const w of [...waiters]) {
      if (lines.length < w.n) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    partial += chunk;
    const parts = partial.split("\n");
    partial = parts.pop()!;
    lines.push(...parts.filter((line) => line.trim() !== ""));
    wake();
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => {
      for (const w of waiters.splice(0)) w.resolve();
      resolve({ code, signal });
    }),
  );
  return {
    process: child,
    lines,
    stderr: () => err,
    stdout: () => out,
    linesReach: (n) =>
      lines.length >= n || child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
    exit,
  };
}

/** Runs the CLI to its end. */
export async function runCli(
  args: readonly string[],
  data: string,
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = startCli(args, data, env);
  const { code } = await child.exit;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

// ---- what a destination holds, read in-process --------------------------------------------

export const EVENTS_SCHEMA = z.object({ date: z.iso.date(), n: z.number().int(), writer: z.string(), text: z.string() });
export const DAILY = new TimePartitionConfig({ column: "date", start: "2024-01-01" });

export function eventsRef(dataset = "rel"): AssetRef {
  return { key: "rel.events", table: "events", dataset, partitioning: DAILY };
}

export function eventsContext(window: TimePartitionWindow | TimePartition | null = null, dataset = "rel"): IOContext {
  return new IOContext({ asset: eventsRef(dataset), window, schema: fieldSpecs(EVENTS_SCHEMA), metadata: { runId: "reliability-check" } });
}

export function days(first: string, last: string): TimePartitionWindow {
  return new TimePartitionWindow(first, last, TimeGranularity.DAY);
}

/** The file-based and embedded destination kinds the fixture knows (REL_DEST). */
export type LocalKind = "csv" | "file" | "parquet" | "jsonl" | "objcsv" | "sqlite" | "postgres" | "mysql";

/** The destination the fixture makes for `kind` over `data`, built from this process's classes. */
export function localDestination(kind: LocalKind, data: string): Destination & { close?: () => Promise<void> } {
  switch (kind) {
    case "csv":
      return new CSVDestination({ basePath: data });
    case "file":
      return new FileDestination({ basePath: data });
    case "parquet":
    case "jsonl":
      return new LocalObjectStoreDestination({ basePath: data, format: kind });
    case "objcsv":
      return new LocalObjectStoreDestination({ basePath: data, format: "csv" });
    case "sqlite":
      return new SQLiteDestination({ path: join(data, "rel.sqlite") });
    case "postgres":
      return new PostgresDestination({ connection: { host: "127.0.0.1", port: 5432, user: "postgres", database: "test" } });
    case "mysql":
      return new MySQLDestination({ connection: { host: "127.0.0.1", port: 3306, user: "root", password: "", database: "test" } });
  }
}

/** Rows as plain comparable records of the fixture's four fields. */
export function normalRows(value: unknown): EventRow[] {
  const table = TableData.from(value);
  if (!table) throw new Error(`not a table: ${String(value)}`);
  return table.rows.map((row) => ({
    date: String(row["date"]),
    n: Number(row["n"]),
    writer: String(row["writer"]),
    text: String(row["text"]),
  }));
}

/** Every file below `root`, relative and sorted. */
export async function listAll(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.push(relative(root, full).split("\\").join("/"));
    }
  };
  await walk(root);
  return out.sort();
}

/** What a check of stored partitions found. */
export interface StoredState {
  /** Rows per stored partition, as the destination counts them. */
  readonly counts: Record<string, number>;
  /** Temporary files left behind (by a killed writer). */
  readonly leftovers: string[];
}

/** What a check of stored partitions is told about the rows written. */
export interface StoredOptions {
  /** The writers whose rows a partition may hold (default ["w"]). */
  readonly writers?: readonly string[];
  readonly pad?: number;
  readonly scale?: number;
  readonly dataset?: string;
  /**
   * A run still writes (a poll before it ends): the data files on disk are not compared with the
   * counted partitions, as a write can land between the count and the listing.
   */
  readonly writing?: boolean;
}

/**
 * Checks every partition of `rel.events` a destination holds: every counted key is a day of
 * `window` whose count is the fixture's, and every partition reads back exactly as the fixture
 * made it. Returns the counts; throws on any breach, the message starting with `label`.
 */
export async function checkPartitions(
  destination: Destination,
  label: string,
  window: TimePartitionWindow,
  options: StoredOptions = {},
): Promise<Record<string, number>> {
  const writers = options.writers ?? ["w"];
  const dataset = options.dataset ?? "rel";
  const counts = await destination.partitionRowCounts(eventsContext(null, dataset));
  const keys = new Set(window.partitions.map((p) => p.key));
  for (const [key, rows] of Object.entries(counts)) {
    if (!keys.has(key))
      throw new Error(`${label}: partitionRowCounts gave a key that is no partition of ${String(window)}: ${JSON.stringify(key)}`);
    const read = normalRows(
      await destination.readPartition(eventsContext(TimePartition.fromKey(key), dataset), TimePartition.fromKey(key)),
    );
    const writer = read[0]?.writer ?? "w";
    if (!writers.includes(writer)) throw new Error(`${label}: partition ${key} holds rows of an unknown writer ${writer}`);
    const expected = eventRows(key, writer, options.scale ?? 1, options.pad ?? 0);
    if (rows !== expected.length)
      throw new Error(`${label}: partition ${key} is counted ${rows} rows, the fixture makes ${expected.length}`);
    if (JSON.stringify(read) !== JSON.stringify(expected)) {
      throw new Error(
        `${label}: partition ${key} does not read back as written (${read.length} rows, writers ${[...new Set(read.map((r) => r.writer))].join("+")}, expected ${expected.length} rows of ${writer})`,
      );
    }
  }
  return counts;
}

/**
 * Checks everything `rel.events` holds in `data` (see checkPartitions), and (for file layouts)
 * that every data file on disk is a counted partition. Throws on any breach.
 */
export async function checkStored(
  kind: LocalKind,
  data: string,
  window: TimePartitionWindow,
  options: StoredOptions = {},
): Promise<StoredState> {
  const destination = localDestination(kind, data);
  try {
    const counts = await checkPartitions(destination, kind, window, options);
    const files = await listAll(data);
    const leftovers = files.filter((f) => f.includes(".tmp-"));
    if (!options.writing && kind !== "sqlite" && kind !== "postgres" && kind !== "mysql") {
      const ext = kind === "csv" ? "csv" : kind === "file" ? "v8" : kind === "objcsv" ? "csv" : kind;
      const dataFiles = files.filter((f) => f.endsWith(`/data.${ext}`) && f.startsWith("rel/events/"));
      const onDisk = dataFiles.map((f) => f.slice("rel/events/date=".length, -`/data.${ext}`.length)).sort();
      if (JSON.stringify(onDisk) !== JSON.stringify(Object.keys(counts).sort())) {
        throw new Error(
          `${kind}: data files on disk (${onDisk.join(", ")}) differ from the counted partitions (${Object.keys(counts).join(", ")})`,
        );
      }
    }
    return { counts, leftovers };
  } finally {
    await destination.close?.();
  }
}
