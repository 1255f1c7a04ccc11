#!/usr/bin/env node
// interloper's benchmark suite: `npm run bench` (see bench/README.md).
//
// Every workload and its baseline run in FRESH child processes (bench/child.mjs), interleaved
// round by round (the pair order alternates each round) so both share the machine's noise; each
// child reports its own peak RSS. Prints one table and writes bench/results.json.
//
// Options:
//   --runs <n>        runs per workload and baseline (default 3; the median is reported)
//   --only <ids>      comma-separated workload ids (W1,W1-CHECKS,W2,...,C10Y,C100K-HOURLY,C3Y50,ST10Y,UR1,P2,W4-CSV,W4-FILE,W4-OS,W4-CSV-3650,W4-CSV-DEFAULT,W7-ARRAY,W7-UNIQUE,OS1,W1-NONDURABLE,W4-CSV-NONDURABLE ...)
//   --with <extras>   opt-in workloads: objectstore
//   --smoke           tiny sizes, 1 run: checks the suite works, figures mean nothing
//   --no-build        do not rebuild dist/ even when src/ is newer
//   --data-dir <dir>  where the workloads write (default: a folder in the OS temp dir, removed at the end)
//   --keep-data       keep the data folder
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH, "..");
const CHILD = join(BENCH, "child.mjs");

// --- options ------------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};
const smoke = flag("--smoke");
const runs = Number(value("--runs", smoke ? 1 : 3));
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer`);
const only = value("--only", null)?.toUpperCase().split(",");
const extras = (value("--with", "") ?? "").toLowerCase().split(",").filter(Boolean);
const DATA = resolve(value("--data-dir", join(os.tmpdir(), `interloper-bench-${process.pid}`)));

const size = smoke
  ? { rows: 200, stream: 50_000, tenYearRows: 1, poolDays: 365, hourly: 2_000, progressDays: 60, multiDays: 30, multiValues: 5 }
  : {
      rows: 10_000,
      stream: 5_000_000,
      tenYearRows: 10,
      poolDays: 365,
      hourly: 100_000,
      progressDays: 780,
      multiDays: 1_095,
      multiValues: 50,
    };

/** Python interloper 0.61's W4 (1 row a partition, CSV, one at a time), measured elsewhere (issue 20). */
const PYTHON_W4_MS = 3.06;

// --- the built package --------------------------------------------------------------------------

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function ensureBuilt() {
  const distIndex = join(ROOT, "dist", "index.js");
  const stale = !existsSync(distIndex) || newestMtime(join(ROOT, "src")) > statSync(distIndex).mtimeMs;
  if (!stale) return { built: false, stale: false };
  if (flag("--no-build")) {
    console.warn("bench: dist/ is older than src/ (--no-build given): measuring the existing dist/");
    return { built: false, stale: true };
  }
  console.log("bench: dist/ is older than src/, building it (npm run build) ...");
  const tsc = spawnSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { cwd: ROOT, stdio: "inherit" });
  if (tsc.status !== 0) {
    console.warn("bench: the build failed; measuring the dist/ that is there");
    return { built: false, stale: true, buildFailed: true };
  }
  return { built: true, stale: false };
}

// --- running one sample -------------------------------------------------------------------------

const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
const TIMEOUT_MS = 30 * 60_000;

function spawnCollect(command, args, options = {}) {
  return new Promise((resolvePromise) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, CI: "1", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      ...options,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout = (stdout + c).slice(-200_000)));
    child.stderr.on("data", (c) => (stderr = (stderr + c).slice(-200_000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}

/** A task of bench/lib/tasks.mjs in a fresh process: its own timing and peak RSS. */
async function runTask([task, options]) {
  const out = await spawnCollect(process.execPath, ["--expose-gc", CHILD, task, JSON.stringify(options ?? {})]);
  const line = out.stdout
    .split("\n")
    .reverse()
    .find((l) => l.startsWith("@@BENCH "));
  const parsed = line
    ? JSON.parse(line.slice(8))
    : { error: `no result (exit ${out.code ?? out.signal}): ${out.stderr.trim().split("\n").slice(-5).join(" | ")}` };
  return { ...parsed, wallMs: out.wallMs };
}

/** A whole process, timed from spawn to exit; peak RSS from /usr/bin/time when present. `env`: its environment, when given. */
async function runProcess(command, env) {
  const [cmd, ...args] = TIME ? [TIME, "-f", "@@RSS %M @@CPU %U %S", ...command] : command;
  const out = await spawnCollect(cmd, args, env ? { env } : {});
  if (out.code !== 0)
    return { error: `exit ${out.code ?? out.signal}: ${out.stderr.trim().split("\n").slice(-5).join(" | ")}`, wallMs: out.wallMs };
  const rss = /@@RSS (\d+)/.exec(out.stderr);
  // CPU time (user + system, the process and the children it waited for): steadier than the
  // wall clock on a busy machine.
  const cpu = /@@CPU ([\d.]+) ([\d.]+)/.exec(out.stderr);
  const extra = cpu ? { cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000 } : {};
  return { ms: out.wallMs, maxRSSKB: rss ? Number(rss[1]) : null, wallMs: out.wallMs, extra };
}

const runSpec = (spec) => (spec.process ? runProcess(spec.process, spec.env?.()) : runTask(spec.task));

// --- the workloads ------------------------------------------------------------------------------

const dir = (name) => join(DATA, name);
const YEAR = "2025-01-01..2025-12-31";
const TEN_YEARS_DAYS = 3650;
const TEN_YEARS_END = new Date(Date.parse("2016-01-01T00:00:00Z") + (TEN_YEARS_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);

/** The PV workload's command: `size.progressDays` days of shop.orders from 2023-01-01. */
function materializeDays() {
  const last = new Date(Date.parse("2023-01-01T00:00:00Z") + (size.progressDays - 1) * 86_400_000).toISOString().slice(0, 10);
  return [
    process.execPath,
    "bin/interloper",
    "materialize",
    "shop.orders",
    "-w",
    `2023-01-01..${last}`,
    "-c",
    join(BENCH, "fixtures", "progress.config.mjs"),
  ];
}

/** `command` in a pseudo-terminal of 120 x 40, as a person runs it (script exits with its code). */
function inTerminal(command) {
  const quoted = command.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
  return ["script", "-qfec", `stty cols 120 rows 40; exec ${quoted}`, "/dev/null"];
}

/** The environment of a PV run: a terminal's (no CI, colours on), writing to `name`'s folder. */
function progressEnv(name) {
  return () => ({ ...process.env, CI: undefined, NO_COLOR: undefined, TERM: "xterm-256color", BENCH_DIR: dir(name) });
}

/**
 * target kinds: ratio (lib / baseline <= max), perPartition (ms / count < max), abs (ms < max),
 * rssRatio (peak RSS of `of`'s `role` runs, lib by default / baseline RSS <= max); rssMaxMB adds a peak RSS bound; none: info.
 * cpu: true adds a note with both sides' CPU time (tasks that report extra.cpuMs) and its ratio.
 */
const WORKLOADS = [
  {
    id: "W1",
    name: "backfill-csv",
    what: `il.backfill, 365 daily partitions x ${size.rows} rows, in-process (concurrency 4), to CSVDestination`,
    lib: { task: ["backfillCsv", { dir: dir("w1-lib"), rows: size.rows }], fresh: dir("w1-lib") },
    base: { task: ["backfillCsvBaseline", { dir: dir("w1-base"), rows: size.rows }], fresh: dir("w1-base") },
    baseWhat: "the same rows, csv-stringify/sync + fs.writeFile into the same 365 paths, sequentially",
    target: { kind: "ratio", max: 1.3 },
  },
  {
    id: "W1-NONDURABLE",
    name: "backfill-csv-nondurable",
    info: true,
    what: "as W1, to CSVDestination({ durable: false }): no file or folder syncs (W1 syncs each file before its rename and its folder after)",
    lib: { task: ["backfillCsv", { dir: dir("w1-nondurable"), rows: size.rows, durable: false }], fresh: dir("w1-nondurable") },
    baseFrom: { id: "W1", role: "base" },
    baseWhat: "W1's baseline (which syncs nothing either)",
    target: { kind: "ratio", max: null },
  },
  {
    id: "W1-CHECKS",
    name: "backfill-csv-checks",
    what: `as W1, the asset carrying four built-in checks (issue 35): notNull(order_id, amount), unique(order_id), acceptedValues(status), range(amount, min 0)`,
    lib: { task: ["backfillCsv", { dir: dir("w1-checks"), rows: size.rows, checks: "four" }], fresh: dir("w1-checks") },
    base: { task: ["backfillCsv", { dir: dir("w1-unchecked"), rows: size.rows }], fresh: dir("w1-unchecked") },
    baseWhat: "W1 without checks (the same backfill), in the same rounds",
    target: { kind: "ratio", max: 1.15 },
    cpu: true,
  },
  {
    id: "W2",
    name: "coverage-csv",
    what: "assetCoverage of W1's 365 partitions, warm: median of 15 calls after 3",
    lib: { task: ["coverage", { dir: dir("w1-lib"), window: YEAR }] },
    base: { task: ["coverageBaseline", { dir: dir("w1-lib") }] },
    baseWhat: "readdir of the table folder + stat of each partition's data.csv (same 3 + 15 calls)",
    target: { kind: "ratio", max: 2 },
  },
  {
    id: "W3",
    name: "read-window",
    what: "asset.read(2025 window) with a zod schema: one typed table of 3.65 M rows",
    lib: { task: ["readWindow", { dir: dir("w1-lib"), window: YEAR }] },
    base: { task: ["readWindowBaseline", { dir: dir("w1-lib") }] },
    baseWhat: "csv-parse/sync (columns: true) over the same 365 files, Number() on order_id and amount",
    target: { kind: "ratio", max: 0.33, rssMaxMB: 800 },
  },
  {
    id: "W4",
    name: "overhead",
    what: "il.backfill of 365 partitions x 1 row to MemoryDestination (in-process, concurrency 4, cold process)",
    lib: { task: ["overhead", { destination: "memory" }] },
    target: { kind: "perPartition", max: 0.4, count: 365 },
  },
  {
    id: "W4-CSV",
    name: "overhead-csv-serial",
    what: "as W4, to CSVDestination, concurrency 1: one atomic file write and one ledger append per partition",
    lib: { task: ["overhead", { destination: "csv", dir: dir("w4-csv"), concurrency: 1 }], fresh: dir("w4-csv") },
    base: { task: ["atomicWritesBaseline", { dir: dir("w4-base") }], fresh: dir("w4-base") },
    baseWhat:
      "365 atomic file writes, no framework: mkdir, temporary file, rename, with the destination's default durability (file synced before the rename, its folder and a new folder's parent after)",
    target: { kind: "ratio", max: 1.5, count: 365 },
  },
  {
    id: "W4-FILE",
    name: "overhead-file-serial",
    what: "as W4-CSV, to FileDestination (data.v8)",
    lib: { task: ["overhead", { destination: "file", dir: dir("w4-file"), concurrency: 1 }], fresh: dir("w4-file") },
    baseFrom: { id: "W4-CSV", role: "base" },
    baseWhat: "W4-CSV's baseline, from the same rounds",
    target: { kind: "ratio", max: 1.5, count: 365 },
  },
  {
    id: "W4-OS",
    name: "overhead-objectstore-serial",
    what: "as W4-CSV, to LocalObjectStoreDestination (format csv)",
    lib: { task: ["overhead", { destination: "objectstore", dir: dir("w4-os"), concurrency: 1 }], fresh: dir("w4-os") },
    baseFrom: { id: "W4-CSV", role: "base" },
    baseWhat: "W4-CSV's baseline, from the same rounds",
    target: { kind: "ratio", max: 1.5, count: 365 },
  },
  {
    id: "W4-CSV-3650",
    name: "overhead-csv-serial-3650",
    what: "as W4-CSV with 3,650 partitions (2016..2025): the per-partition cost must not grow with the table",
    lib: {
      task: ["overhead", { destination: "csv", dir: dir("w4-csv-3650"), concurrency: 1, count: TEN_YEARS_DAYS }],
      fresh: dir("w4-csv-3650"),
    },
    baseFrom: { id: "W4-CSV", role: "lib" },
    baseWhat: "W4-CSV (365 partitions), per partition, from the same rounds",
    target: { kind: "scaling", max: 1.2, count: TEN_YEARS_DAYS, baseCount: 365 },
  },
  {
    id: "W4-CSV-DEFAULT",
    name: "overhead-csv",
    what: "as W4, to CSVDestination at the default concurrency (4)",
    lib: { task: ["overhead", { destination: "csv", dir: dir("w4-csv-default") }], fresh: dir("w4-csv-default") },
    base: { task: ["atomicWritesBaseline", { dir: dir("w4-base-default"), concurrency: 4 }], fresh: dir("w4-base-default") },
    baseWhat:
      "W4-CSV's baseline 4 at a time (the disk's floor at this concurrency, with the same syncs); its ratio is shown, the target is Python's",
    target: {
      kind: "perPartition",
      max: PYTHON_W4_MS / 3,
      count: 365,
      reference: `Python interloper 0.61: ${PYTHON_W4_MS} ms a partition (measured elsewhere, issue 20); target 0.33x of it`,
    },
  },
  {
    id: "W4-CSV-NONDURABLE",
    name: "overhead-csv-nondurable",
    info: true,
    what: "as W4-CSV-DEFAULT, to CSVDestination({ durable: false }): what the syncs cost a partition",
    lib: { task: ["overhead", { destination: "csv", dir: dir("w4-csv-nondurable"), durable: false }], fresh: dir("w4-csv-nondurable") },
    base: {
      task: ["atomicWritesBaseline", { dir: dir("w4-base-nondurable"), concurrency: 4, durable: false }],
      fresh: dir("w4-base-nondurable"),
    },
    baseWhat: "W4-CSV-DEFAULT's baseline without the syncs",
    target: { kind: "perPartition", max: null, count: 365 },
  },
  {
    id: "W5",
    name: "startup",
    what: "node bin/interloper list -c interloper.config.example.ts, whole process (wall clock)",
    lib: { process: [process.execPath, "bin/interloper", "list", "-c", "interloper.config.example.ts"] },
    base: { process: [process.execPath, "-e", "0"] },
    baseWhat: "node -e 0",
    target: { kind: "ratio", max: 3 },
  },
  {
    id: "PV",
    name: "progress-view",
    what: `interloper materialize of ${size.progressDays} daily partitions x 10 rows to CSV in a 120 x 40 pseudo-terminal (util-linux script): the live progress view, whole process`,
    lib: { process: inTerminal(materializeDays()), env: progressEnv("pv-tty"), fresh: dir("pv-tty") },
    base: { process: materializeDays(), env: progressEnv("pv-pipe"), fresh: dir("pv-pipe") },
    baseWhat: "the same command with stdout and stderr piped: plain lines",
    target: { kind: "ratio", max: 1.1 },
  },
  {
    id: "W6",
    name: "memory",
    what: "W1's peak RSS against a 1-partition run's peak RSS",
    base: { task: ["backfillCsv", { dir: dir("w6-one"), days: 1, rows: size.rows }], fresh: dir("w6-one") },
    baseWhat: "il.backfill of one 10,000-row partition to CSV, fresh process",
    target: { kind: "rssRatio", of: "W1", max: 1.5 },
  },
  {
    id: "W6-BASE",
    name: "memory-no-framework",
    info: true,
    what: "W6's measure applied to W1's baseline: how much V8's heap grows over 365 partitions with no framework at all",
    base: { task: ["backfillCsvBaseline", { dir: dir("w6-base-one"), days: 1, rows: size.rows }], fresh: dir("w6-base-one") },
    baseWhat: "csv-stringify/sync + fs.writeFile of one 10,000-row partition, fresh process",
    target: { kind: "rssRatio", of: "W1", role: "base", max: null },
  },
  {
    id: "W7",
    name: "stream",
    what: `one ${size.stream.toLocaleString("en")}-row partition to CSV, run() returning an async iterable of 10,000-row batches`,
    lib: { task: ["stream", { dir: dir("w7-lib"), rows: size.stream, shape: "stream" }], fresh: dir("w7-lib") },
    base: { task: ["streamBaseline", { dir: dir("w7-base"), rows: size.stream }], fresh: dir("w7-base") },
    baseWhat: "the same batches through csv-stringify/sync into a fs.WriteStream (backpressure honoured)",
    target: { kind: "ratio", max: 1.3, rssMaxMB: 300 },
  },
  {
    id: "W7-ARRAY",
    name: "stream-as-array",
    info: true,
    what: "as W7 but run() returns the 5 M rows as one array (what W7 costs without streaming)",
    lib: { task: ["stream", { dir: dir("w7-arr"), rows: size.stream, shape: "array" }], fresh: dir("w7-arr") },
    baseFrom: { id: "W7", role: "base" },
    baseWhat: "W7's baseline",
    target: { kind: "ratio", max: null, rssMaxMB: null },
  },
  {
    id: "W7-UNIQUE",
    name: "stream-unique",
    what: `W7's stream (one ${size.stream.toLocaleString("en")}-row partition, 10,000-row batches, to CSV) with unique(order_id) on the asset: every order_id distinct, checked batch by batch in bounded memory (issue 35)`,
    lib: { task: ["stream", { dir: dir("w7-unique"), rows: size.stream, shape: "stream", checks: "unique" }], fresh: dir("w7-unique") },
    base: { task: ["stream", { dir: dir("w7-unchecked"), rows: size.stream, shape: "stream" }], fresh: dir("w7-unchecked") },
    baseWhat: "the same stream without the check, in the same rounds",
    // Held to W7's memory target; the time ratio is shown, not held to.
    target: { kind: "ratio", max: null, rssMaxMB: 300 },
    cpu: true,
  },
  {
    id: "C10Y",
    name: "coverage-10y",
    what: `assetCoverage of ${TEN_YEARS_DAYS} daily partitions (2016-01-01..${TEN_YEARS_END}) on CSV, warm (issue 6)`,
    setup: {
      task: ["backfillCsv", { dir: dir("c10y"), days: TEN_YEARS_DAYS, first: "2016-01-01", rows: size.tenYearRows }],
      fresh: dir("c10y"),
    },
    lib: { task: ["coverage", { dir: dir("c10y"), window: `2016-01-01..${TEN_YEARS_END}` }] },
    base: { task: ["coverageBaseline", { dir: dir("c10y") }] },
    baseWhat: `readdir + stat of the ${TEN_YEARS_DAYS} partitions`,
    target: { kind: "abs", max: 1000 },
  },
  {
    id: "C100K-HOURLY",
    name: "coverage-100k-hourly",
    what: `assetCoverage of ${size.hourly.toLocaleString("en")} hourly partitions (about 11 years from 2015-01-01T00) on CSV, warm: median of 5 calls after 1`,
    setup: { task: ["writeHourly", { dir: dir("c100k"), count: size.hourly }], fresh: dir("c100k") },
    lib: { task: ["coverageHourly", { dir: dir("c100k"), count: size.hourly }] },
    base: { task: ["coverageHourlyBaseline", { dir: dir("c100k") }] },
    baseWhat: `readdir of the table folder + stat of each of the ${size.hourly.toLocaleString("en")} partitions' data.csv (same 1 + 5 calls)`,
    target: { kind: "ratio", max: 1.5, absMax: 1500 },
  },
  {
    id: "C3Y50",
    name: "coverage-multi-3y-50",
    what: `assetCoverage of one multi asset (a day x a list of ${size.multiValues} regions) over ${size.multiDays.toLocaleString("en")} days from 2021-01-01: ${(size.multiDays * size.multiValues).toLocaleString("en")} partitions on CSV (date=.../region=.../, one row each, written once in an untimed setup through CSVDestination({ durable: false })), warm: median of 5 calls after 1 (issue 36)`,
    setup: { task: ["writeMulti", { dir: dir("c3y50"), days: size.multiDays, values: size.multiValues }], fresh: dir("c3y50") },
    lib: { task: ["coverageMulti", { dir: dir("c3y50"), days: size.multiDays, values: size.multiValues }] },
    base: { task: ["coverageMultiBaseline", { dir: dir("c3y50") }] },
    baseWhat: `a recursive listing of the table folder (readdir of each day folder and of each region folder, 1,024 at once) counting the ${(size.multiDays * size.multiValues).toLocaleString("en")} data.csv files (same 1 + 5 calls)`,
    target: { kind: "ratio", max: 2 },
    cpu: true,
  },
  {
    id: "ST10Y",
    name: "staleness-10y",
    what: "coverage with stale partitions marked (issue 34) of a daily asset, its weekly and its monthly rollup over 10 years (3,647 + 521 + 119 partitions on CSV), 10 days written again (their weeks and months stale), warm: median of 9 calls after 2",
    setup: { task: ["writeRollups", { dir: dir("st10y") }], fresh: dir("st10y") },
    lib: { task: ["staleCoverage", { dir: dir("st10y") }] },
    base: { task: ["plainCoverage", { dir: dir("st10y") }] },
    baseWhat: "plain coverage of the same three assets (row counts only), same calls",
    target: { kind: "ratio", max: 2 },
  },
  {
    id: "UR1",
    name: "upstream-read-in-run",
    what: "the 365 reads of a run of a daily asset (concurrency 1), each of its day of `orders` (10 rows a day, 3 years stored on CSV, written in an untimed setup) as a dependency: the lookup of the records of the day read (issue 41, item 10), then the read; summed",
    setup: { task: ["writeUpstream", { dir: dir("ur1") }], fresh: dir("ur1") },
    lib: { task: ["upstreamReadsInRun", { dir: dir("ur1"), report: "dependency" }] },
    base: { task: ["upstreamReadsInRun", { dir: dir("ur1"), report: "plain" }] },
    baseWhat: "the plain reads of the same days in the same run (`orders.read(day)` inside the asset's run()), summed",
    target: { kind: "ratio", max: 8 },
    cpu: true,
  },
  {
    id: "P2",
    name: "process-pool",
    what: `W1's backfill (${size.poolDays} partitions) with processes: 2: two worker processes, each loading the config once (issues 9, 18)`,
    lib: {
      task: [
        "backfillCsv",
        {
          dir: dir("p2"),
          days: size.poolDays,
          rows: size.rows,
          processes: 2,
          configPath: join(BENCH, "fixtures", "pool.config.mjs"),
          cwd: ROOT,
        },
      ],
      fresh: dir("p2"),
    },
    baseFrom: { id: "W1", role: "lib" },
    baseWhat: "W1 (the same backfill in-process), from the same rounds",
    target: { kind: "ratio", max: 1.2 },
  },
];

if (extras.includes("objectstore")) {
  WORKLOADS.push({
    id: "OS1",
    name: "backfill-objectstore-local",
    info: true,
    what: "W1 to LocalObjectStoreDestination (format csv)",
    lib: { task: ["backfillCsv", { dir: dir("os1"), rows: size.rows, destination: "objectstore-local" }], fresh: dir("os1") },
    baseFrom: { id: "W1", role: "base" },
    baseWhat: "W1's baseline",
    target: { kind: "ratio", max: null },
  });
}

/** bench/database/*: workloads another engineer owns, added when their module says they can run. */
async function discoverHooks() {
  const folder = join(BENCH, "database");
  if (!existsSync(folder)) return [];
  const files = readdirSync(folder).filter((f) => /\.(m?ts|m?js)$/.test(f) && !f.endsWith(".d.ts") && !f.includes(".test."));
  const found = [];
  for (const file of files) {
    const path = join(folder, file);
    const probe = await runTask(["probe", { file: path }]);
    if (probe.error) {
      console.log(`bench: skipping bench/database/${file}: ${probe.error.split("\n")[0]}`);
      continue;
    }
    for (const w of probe.extra.workloads) {
      if (w.reason) {
        console.log(`bench: skipping bench/database/${file} ${w.name}: ${w.reason}`);
        continue;
      }
      found.push({
        id: `DB-${w.name}`.toUpperCase(),
        name: w.name,
        info: !w.target,
        external: file,
        what: `${w.title} (bench/database/${file})`,
        lib: { task: ["external", { file: path, name: w.name, role: "run" }] },
        ...(w.hasBaseline
          ? { base: { task: ["external", { file: path, name: w.name, role: "baseline" }] }, baseWhat: "the module's baseline" }
          : {}),
        target: { kind: "ratio", max: w.target ? Number(w.target) : null, ...(w.count ? { count: w.count } : {}) },
      });
    }
  }
  return found;
}

// --- statistics and the table -------------------------------------------------------------------

const median = (xs) => {
  const s = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ok = (samples) => samples.filter((s) => !s.error);
const medianMs = (samples) => median(ok(samples).map((s) => s.ms));
const medianRSSMB = (samples) => {
  const m = median(ok(samples).map((s) => s.maxRSSKB));
  return m === null ? null : m / 1024;
};
const fmtMs = (ms) =>
  ms === null
    ? "-"
    : ms >= 10_000
      ? `${(ms / 1000).toFixed(1)} s`
      : ms >= 1000
        ? `${(ms / 1000).toFixed(2)} s`
        : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
const fmtMB = (mb) => (mb === null ? "-" : `${Math.round(mb)} MB`);

function evaluate(w, byId) {
  const libSamples = w.samples.lib;
  const ref = w.baseFrom ? (byId.get(w.baseFrom.id)?.samples[w.baseFrom.role] ?? []) : w.samples.base;
  const libErrors = libSamples.filter((s) => s.error);
  const baseErrors = (w.base ? w.samples.base : []).filter((s) => s.error);
  const t = w.target;
  const row = {
    id: w.id,
    name: w.name,
    time: null,
    rss: null,
    baseline: null,
    baselineRSS: null,
    ratio: null,
    target: "info",
    result: "info",
    notes: [],
  };
  row.time = medianMs(libSamples);
  row.rss = medianRSSMB(libSamples);
  row.baseline = medianMs(ref);
  row.baselineRSS = medianRSSMB(ref);
  if (t.kind === "rssRatio") {
    const of = byId.get(t.of);
    row.time = null;
    row.rss = of ? medianRSSMB(of.samples[t.role ?? "lib"]) : null;
    row.baseline = null;
    row.ratio = row.rss !== null && row.baselineRSS ? row.rss / row.baselineRSS : null;
    row.target = t.max === null ? "info" : `RSS <= ${t.max}x`;
    row.result = row.ratio === null ? "ERROR" : t.max === null ? "info" : row.ratio <= t.max ? "pass" : "FAIL";
  } else if (t.kind === "perPartition") {
    // A baseline, when there is one, is shown beside the absolute target: the floor it sets.
    row.ratio = row.time !== null && row.baseline ? row.time / row.baseline : null;
    row.perPartition = row.time === null ? null : row.time / t.count;
    row.target = t.max === null ? "info" : `< ${t.max} ms/partition`;
    row.result = row.perPartition === null ? "ERROR" : t.max === null ? "info" : row.perPartition < t.max ? "pass" : "FAIL";
    if (row.perPartition !== null)
      row.notes.push(
        `${row.perPartition.toFixed(3)} ms/partition${t.reference ? `; ${t.reference}: ${(row.perPartition / PYTHON_W4_MS).toFixed(2)}x` : ""}` +
          (row.baseline === null ? "" : `; baseline ${(row.baseline / t.count).toFixed(3)} ms/partition`),
      );
  } else if (t.kind === "scaling") {
    // Per-partition time at `count` partitions over that at `baseCount` (the reference row's).
    row.ratio = row.time !== null && row.baseline ? row.time / t.count / (row.baseline / t.baseCount) : null;
    row.perPartition = row.time === null ? null : row.time / t.count;
    row.target = `<= ${t.max}x per partition`;
    row.result = row.ratio === null ? "ERROR" : row.ratio <= t.max ? "pass" : "FAIL";
    if (row.baseline !== null)
      row.notes.push(
        `${(row.time / t.count).toFixed(3)} ms/partition at ${t.count} against ${(row.baseline / t.baseCount).toFixed(3)} at ${t.baseCount}`,
      );
  } else if (t.kind === "abs") {
    row.ratio = row.time !== null && row.baseline ? row.time / row.baseline : null;
    row.target = `< ${fmtMs(t.max)} (absolute)`;
    row.result = row.time === null ? "ERROR" : row.time < t.max ? "pass" : "FAIL";
  } else {
    row.ratio = row.time !== null && row.baseline ? row.time / row.baseline : null;
    const parts = [];
    if (t.max !== null && t.max !== undefined) parts.push(`<= ${t.max}x`);
    if (t.absMax) parts.push(`< ${fmtMs(t.absMax)}`);
    if (t.rssMaxMB) parts.push(`RSS <= ${t.rssMaxMB} MB`);
    if (t.count && row.time !== null) {
      row.perPartition = row.time / t.count;
      row.notes.push(
        `${row.perPartition.toFixed(3)} ms/partition; baseline ${row.baseline === null ? "-" : (row.baseline / t.count).toFixed(3)} ms/partition`,
      );
    }
    row.target = parts.length ? parts.join(", ") : "info";
    if (row.time === null || row.ratio === null) row.result = "ERROR";
    else if (!parts.length) row.result = "info";
    else
      row.result =
        (t.max === null || t.max === undefined || row.ratio <= t.max) &&
        (!t.absMax || row.time < t.absMax) &&
        (!t.rssMaxMB || (row.rss ?? Infinity) <= t.rssMaxMB)
          ? "pass"
          : "FAIL";
  }
  if (libErrors.length)
    row.notes.push(`${libErrors.length}/${libSamples.length} runs crashed: ${libErrors[0].error.split("\n")[0].slice(0, 300)}`);
  if (baseErrors.length) row.notes.push(`baseline: ${baseErrors.length} runs crashed: ${baseErrors[0].error.split("\n")[0].slice(0, 200)}`);
  if (w.id === "P2" && row.time !== null && row.baseline !== null) {
    const count = size.poolDays;
    // What the pool adds to (or saves on) each partition, against W1 over its 365.
    const overhead = row.time / count - row.baseline / 365;
    row.poolOverheadMs = overhead;
    row.notes.push(
      `pool ${fmtMs(row.time)} vs in-process ${fmtMs(row.baseline)}; the pool adds ${overhead.toFixed(2)} ms a partition (pool / ${count} - in-process / 365)`,
    );
  }
  if (w.external && t.count && row.time !== null && row.baseline !== null) {
    // A hook that names its partitions (or jobs) a run: what the workload adds to each, against its baseline.
    row.overheadPerPartitionMs = (row.time - row.baseline) / t.count;
    row.notes.push(`${row.overheadPerPartitionMs.toFixed(2)} ms a partition more than the baseline ((time - baseline) / ${t.count})`);
  }
  if (w.id === "PV") {
    const cpu = (samples) => median(ok(samples).map((s) => s.extra?.cpuMs));
    const [terminal, piped] = [cpu(libSamples), cpu(ref)];
    if (terminal !== null && piped)
      row.notes.push(
        `CPU time (user + system): terminal ${fmtMs(terminal)}, piped ${fmtMs(piped)}, ${(terminal / piped).toFixed(2)}x; wall clock ${row.ratio === null ? "-" : `${row.ratio.toFixed(2)}x`}`,
      );
  }
  if (w.cpu) {
    // The work's CPU time (extra.cpuMs, every thread of the child): what a loaded machine's clock blurs.
    const cpu = (samples) => median(ok(samples).map((s) => s.extra?.cpuMs));
    const [work, base] = [cpu(libSamples), cpu(ref)];
    if (work !== null && base) {
      row.cpuRatio = work / base;
      row.notes.push(`CPU time (user + system, the work only): ${fmtMs(work)} against ${fmtMs(base)}, ${row.cpuRatio.toFixed(2)}x`);
    }
  }
  if (w.id === "W7-UNIQUE" && row.rss !== null && row.baselineRSS !== null)
    row.notes.push(
      `unique adds ${fmtMB(row.rss - row.baselineRSS)} of peak RSS (${fmtMB(row.rss)} against ${fmtMB(row.baselineRSS)}) and ${row.ratio === null ? "-" : `${row.ratio.toFixed(2)}x`} the time`,
    );
  if (w.id === "C10Y" && row.time !== null) row.notes.push(`absolute ${fmtMs(row.time)} for ${TEN_YEARS_DAYS} partitions`);
  row.crashed = libErrors.length > 0 && !w.info;
  return row;
}

function printTable(rows) {
  const header = ["workload", "median time", "peak RSS", "baseline median", "baseline RSS", "ratio", "target", "result"];
  const lines = rows.map((r) => [
    `${r.id} ${r.name}`,
    r.perPartition !== undefined && r.perPartition !== null ? `${fmtMs(r.time)} (${r.perPartition.toFixed(3)} ms/p)` : fmtMs(r.time),
    fmtMB(r.rss),
    fmtMs(r.baseline),
    fmtMB(r.baselineRSS),
    r.ratio === null ? "-" : `${r.ratio.toFixed(2)}x`,
    r.target,
    r.result,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log(fmt(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const l of lines) console.log(fmt(l));
  const notes = rows.flatMap((r) => r.notes.map((n) => `  ${r.id}: ${n}`));
  if (notes.length) console.log(`\n${notes.join("\n")}`);
}

// --- main ---------------------------------------------------------------------------------------

async function main() {
  const startedAt = new Date();
  const loadStart = os.loadavg();
  const build = ensureBuilt();
  mkdirSync(DATA, { recursive: true });
  const workloads = [...WORKLOADS, ...(await discoverHooks())].filter(
    (w) =>
      !only ||
      only.includes(w.id) ||
      (w.id === "W1" && only.some((id) => ["W2", "W3", "W6", "W6-BASE", "P2", "OS1", "W1-NONDURABLE"].includes(id))) ||
      (w.id === "W4-CSV" && only.some((id) => ["W4-FILE", "W4-OS", "W4-CSV-3650"].includes(id))),
  );
  for (const w of workloads) w.samples = { lib: [], base: [], setup: null };
  const cpus = os.cpus();
  console.log(
    `bench: ${workloads.map((w) => w.id).join(", ")}; ${runs} run(s) each; ${cpus.length} x ${cpus[0]?.model ?? "cpu"}; node ${process.version}; load average at start ${loadStart.map((l) => l.toFixed(2)).join(" ")}${smoke ? "; SMOKE sizes" : ""}`,
  );

  for (const w of workloads) {
    if (!w.setup) continue;
    process.stdout.write(`  setup ${w.id} ... `);
    if (w.setup.fresh) rmSync(w.setup.fresh, { recursive: true, force: true });
    w.samples.setup = await runSpec(w.setup);
    console.log(w.samples.setup.error ? `failed: ${w.samples.setup.error.split("\n")[0]}` : fmtMs(w.samples.setup.ms));
  }

  for (let round = 0; round < runs; round++) {
    for (const w of workloads) {
      const pair = [w.lib ? ["lib", w.lib] : null, w.base ? ["base", w.base] : null].filter(Boolean);
      if (round % 2 === 1) pair.reverse();
      for (const [role, spec] of pair) {
        if (spec.fresh) rmSync(spec.fresh, { recursive: true, force: true });
        if (globalThis.gc) globalThis.gc();
        const sample = await runSpec(spec);
        sample.round = round;
        sample.loadavg = os.loadavg()[0];
        w.samples[role].push(sample);
        const shown = sample.error
          ? `ERROR ${sample.error.split("\n")[0].slice(0, 160)}`
          : `${fmtMs(sample.ms)}, ${fmtMB(sample.maxRSSKB === null ? null : sample.maxRSSKB / 1024)}`;
        console.log(`  [${round + 1}/${runs}] ${w.id} ${role === "lib" ? "workload" : "baseline"}: ${shown}`);
      }
    }
  }

  const byId = new Map(workloads.map((w) => [w.id, w]));
  const rows = workloads.map((w) => evaluate(w, byId));
  const loadEnd = os.loadavg();
  console.log(
    `\ninterloper benchmarks: median of ${runs} run(s), each in a fresh process; load average ${loadStart.map((l) => l.toFixed(2)).join(" ")} at start, ${loadEnd.map((l) => l.toFixed(2)).join(" ")} at end\n`,
  );
  printTable(rows);

  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    smoke,
    runs,
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? null,
      totalMemMB: Math.round(os.totalmem() / 2 ** 20),
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      node: process.version,
      loadavgStart: loadStart,
      loadavgEnd: loadEnd,
    },
    build,
    workloads: workloads.map((w, i) => ({
      id: w.id,
      name: w.name,
      what: w.what,
      baseline: w.baseWhat ?? null,
      target: w.target,
      median: rows[i],
      samples: w.samples,
    })),
  };
  const out = join(BENCH, smoke ? "results.smoke.json" : "results.json");
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${out}`);
  if (!flag("--keep-data") && !value("--data-dir", null)) rmSync(DATA, { recursive: true, force: true });
  const crashed = rows.filter((r) => r.crashed);
  if (crashed.length) {
    console.log(`bench: ${crashed.map((r) => r.id).join(", ")} crashed (see the notes above)`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
