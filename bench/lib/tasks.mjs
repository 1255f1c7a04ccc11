// Every timed task. Each runs in its own fresh process (see child.mjs); `ms` is measured around
// the work only (module loading excluded), and the child reports its own peak RSS.
import { createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { once } from "node:events";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { COLUMNS, days, rowBatches, rowsForDay } from "./rows.mjs";

const now = () => performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const lazyProject = () => import("./project.mjs");

/**
 * Times `fn` once after `warm` untimed calls, or the median of `repeat` timed calls. cpuMs: the
 * process's CPU time (user + system, every thread: the thread pool's file work too) over the
 * timed calls, a call on average; steadier than the clock on a loaded machine.
 */
export async function timed(fn, { warm = 0, repeat = 1 } = {}) {
  for (let i = 0; i < warm; i++) await fn();
  const samples = [];
  let value;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < repeat; i++) {
    const t0 = now();
    value = await fn();
    samples.push(now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  return { ms: median(samples), inner: samples, value, cpuMs: (cpu.user + cpu.system) / 1000 / repeat };
}

function tableDir(base) {
  return join(base, "shop", "orders");
}

// --- W1 / W6 / pool: backfill to CSV ---------------------------------------------------------------

export async function backfillCsv({
  dir,
  days: count = 365,
  rows = 10_000,
  first = "2025-01-01",
  processes,
  configPath,
  cwd,
  destination = "csv",
  durable = true,
  checks,
}) {
  const { il, shopProject, assertCompleted, assertChecked, CHECK_SETS } = await lazyProject();
  const dest =
    destination === "objectstore-local"
      ? new il.LocalObjectStoreDestination({ basePath: dir, format: "csv", durable })
      : new il.CSVDestination({ basePath: dir, durable });
  const { dag, orders } = shopProject({ destination: dest, rows, checks });
  const list = days(first, count);
  const window = il.TimePartitionWindow.parse(`${list[0]}..${list.at(-1)}`);
  const options = processes ? { processes, childProcess: { configPath, cwd, env: { BENCH_DIR: dir, BENCH_ROWS: String(rows) } } } : {};
  const { ms, value, cpuMs } = await timed(() => il.backfill(dag, window, options));
  assertCompleted(value, "backfill");
  // W1-CHECKS: the last partition's record holds every check's passed verdict (they ran).
  const verdicts = checks ? await assertChecked(orders, list.at(-1), CHECK_SETS[checks]().length) : undefined;
  return { ms, extra: { partitions: value.partitions.length, msPerPartition: ms / value.partitions.length, cpuMs, verdicts } };
}

export async function backfillCsvBaseline({ dir, days: count = 365, rows = 10_000, first = "2025-01-01" }) {
  const list = days(first, count);
  const { ms } = await timed(async () => {
    for (const day of list) {
      const folder = join(tableDir(dir), `date=${day}`);
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, "data.csv"), stringify(rowsForDay(day, rows), { header: true, columns: COLUMNS }));
    }
  });
  return { ms, extra: { partitions: list.length } };
}

// --- W2 and the 10-year coverage: coverage from stored counts ---------------------------------------

export async function coverage({ dir, window, start = "2016-01-01" }) {
  const { il, shopProject } = await lazyProject();
  const { assetCoverage } = await import("../../dist/index.js");
  const { orders } = shopProject({ destination: new il.CSVDestination({ basePath: dir }), start });
  const { ms, inner, value } = await timed(() => assetCoverage(orders, { window }), { warm: 3, repeat: 15 });
  return { ms, extra: { inner, expected: value.expected, materialized: value.materialized, missing: value.missing, rows: value.rows } };
}

export async function coverageBaseline({ dir }) {
  const table = tableDir(dir);
  const { ms, inner, value } = await timed(
    async () => {
      const names = (await readdir(table)).filter((n) => n.startsWith("date="));
      const stats = await Promise.all(names.map((n) => stat(join(table, n, "data.csv"))));
      return stats.length;
    },
    { warm: 3, repeat: 15 },
  );
  return { ms, extra: { inner, partitions: value } };
}

// --- W3: read a window back as one typed table ---------------------------------------------------

export async function readWindow({ dir, window = "2025-01-01..2025-12-31" }) {
  const { il, shopProject } = await lazyProject();
  const { orders } = shopProject({ destination: new il.CSVDestination({ basePath: dir }) });
  const { ms, value } = await timed(() => orders.read(il.TimePartitionWindow.parse(window)));
  const rows = Array.isArray(value) ? value : (il.TableData.from(value)?.rows ?? []);
  if (typeof rows[0]?.amount !== "number" || typeof rows[0]?.order_id !== "number")
    throw new Error(`read did not give typed rows: ${JSON.stringify(rows[0])}`);
  return { ms, extra: { rows: rows.length } };
}

export async function readWindowBaseline({ dir, first = "2025-01-01", days: count = 365 }) {
  const { ms, value } = await timed(async () => {
    const all = [];
    for (const day of days(first, count)) {
      const rows = parse(await readFile(join(tableDir(dir), `date=${day}`, "data.csv")), { columns: true });
      for (const row of rows) {
        row.order_id = Number(row.order_id);
        row.amount = Number(row.amount);
        all.push(row);
      }
    }
    return all;
  });
  return { ms, extra: { rows: value.length } };
}

// --- W4: per-partition overhead ------------------------------------------------------------------

/** A destination of W4's kinds: memory, csv, file (FileDestination), objectstore (LocalObjectStoreDestination, csv). */
function overheadDestination(il, destination, dir, durable) {
  if (destination === "memory") return new il.MemoryDestination();
  if (destination === "file") return new il.FileDestination({ basePath: dir, durable });
  if (destination === "objectstore") return new il.LocalObjectStoreDestination({ basePath: dir, format: "csv", durable });
  return new il.CSVDestination({ basePath: dir, durable });
}

export async function overhead({ dir, destination = "memory", count = 365, durable = true, concurrency }) {
  const { il, shopProject, assertCompleted } = await lazyProject();
  const { dag } = shopProject({ destination: overheadDestination(il, destination, dir, durable), rows: 1 });
  const list = days("2016-01-01", count);
  const window = il.TimePartitionWindow.parse(`${list[0]}..${list.at(-1)}`);
  const { ms, value } = await timed(() => il.backfill(dag, window, concurrency ? { concurrency } : {}));
  assertCompleted(value, "backfill");
  return { ms, extra: { msPerPartition: ms / count } };
}

/**
 * W4's raw baseline: per partition, one atomic file write with no framework: mkdir of the
 * partition folder, a temporary file with the one-row CSV, rename over data.csv. `durable` gives
 * it the destinations' default durability: the file's bytes synced before the rename, its folder
 * after, and the parent of the folder the mkdir made (what writeFileAtomic does). `concurrency`
 * writes run at once (each partition in its own folder, as a backfill writes them): what the
 * disk gives at the engine's default concurrency, whose syncs wait on the disk and overlap.
 */
export async function atomicWritesBaseline({ dir, count = 365, durable = true, concurrency = 1 }) {
  const { open, rename } = await import("node:fs/promises");
  const list = days("2016-01-01", count);
  const syncFolder = async (folder) => {
    const handle = await open(folder, "r");
    await handle.sync();
    await handle.close();
  };
  const writeOne = async (day) => {
    const folder = join(tableDir(dir), `date=${day}`);
    const created = await mkdir(folder, { recursive: true });
    const path = join(folder, "data.csv");
    const temp = join(folder, `.data.csv.tmp-${process.pid}`);
    const handle = await open(temp, "wx");
    await handle.write(stringify(rowsForDay(day, 1), { header: true, columns: COLUMNS }));
    if (durable) await handle.datasync();
    await handle.close();
    await rename(temp, path);
    if (durable) await Promise.all([folder, ...parentsOfNew(created, folder)].map(syncFolder));
  };
  const { ms } = await timed(async () => {
    let next = 0;
    const worker = async () => {
      while (next < list.length) await writeOne(list[next++]);
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  });
  return { ms, extra: { msPerPartition: ms / count } };
}

/** The parent of each folder from `created` (the first one mkdir made) down to `folder`. */
function parentsOfNew(created, folder) {
  if (created === undefined) return [];
  const parents = [];
  for (let at = folder; ; at = dirname(at)) {
    parents.push(dirname(at));
    if (at === created) return parents;
  }
}

// --- C100K-HOURLY: coverage of 100,000 hourly partitions -------------------------------------------

const hourKeys = (count) =>
  Array.from({ length: count }, (_, i) => new Date(Date.parse("2015-01-01T00:00:00Z") + i * 3_600_000).toISOString().slice(0, 13));

function hourlyAsset(il) {
  return {
    key: "shop.events",
    table: "events",
    dataset: "shop",
    partitioning: new il.TimePartitionConfig({ column: "hour", granularity: "hour", start: new Date("2015-01-01T00:00:00Z") }),
  };
}

/** Untimed setup: `count` hourly partitions of one row, written through CSVDestination (no syncs, 16 at once). */
export async function writeHourly({ dir, count = 100_000 }) {
  const { il } = await lazyProject();
  const destination = new il.CSVDestination({ basePath: dir, durable: false });
  const asset = hourlyAsset(il);
  const keys = hourKeys(count);
  let next = 0;
  const t0 = now();
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++];
      const partition = il.TimePartition.fromKey(key);
      const context = new il.IOContext({ asset, window: partition, metadata: { runId: "bench" } });
      await destination.writePartition(context, partition, [{ hour: key, n: 1 }]);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { ms: now() - t0, extra: { partitions: count } };
}

export async function coverageHourly({ dir, count = 100_000 }) {
  const { il } = await lazyProject();
  const { assetCoverage } = await import("../../dist/index.js");
  const events = il.asset({ key: "events", partitioning: hourlyAsset(il).partitioning, run: () => [] });
  const shop = il.source({ key: "shop", assets: [events] })({ destinations: new il.CSVDestination({ basePath: dir }) });
  const keys = hourKeys(count);
  const window = `${keys[0]}..${keys.at(-1)}`;
  const { ms, inner, value } = await timed(() => assetCoverage(shop.assets.events, { window }), { warm: 1, repeat: 5 });
  if (value.materialized !== count) throw new Error(`coverage found ${value.materialized} of ${count} partitions`);
  return { ms, extra: { inner, materialized: value.materialized, rows: value.rows } };
}

export async function coverageHourlyBaseline({ dir }) {
  const table = join(dir, "shop", "events");
  const { ms, inner, value } = await timed(
    async () => {
      const names = (await readdir(table)).filter((n) => n.startsWith("hour="));
      const stats = [];
      for (let start = 0; start < names.length; start += 1024)
        stats.push(...(await Promise.all(names.slice(start, start + 1024).map((n) => stat(join(table, n, "data.csv"))))));
      return stats.length;
    },
    { warm: 1, repeat: 5 },
  );
  return { ms, extra: { inner, partitions: value } };
}

// --- W7: one huge partition, streamed -----------------------------------------------------------

export async function stream({ dir, rows = 5_000_000, batch = 10_000, shape = "stream", checks }) {
  const { il, shopProject, assertCompleted, assertChecked, CHECK_SETS } = await lazyProject();
  const project = shopProject({ destination: new il.CSVDestination({ basePath: dir }), rows, stream: shape === "stream", checks });
  const { ms, value, cpuMs } = await timed(() => project.dag.materialize(il.TimePartition.fromKey("2025-01-01")));
  assertCompleted(value, "materialize");
  // W7-UNIQUE: the partition's record holds unique's passed verdict (it saw every batch).
  const verdicts = checks ? await assertChecked(project.orders, "2025-01-01", CHECK_SETS[checks]().length) : undefined;
  const written = (await stat(join(tableDir(dir), "date=2025-01-01", "data.csv"))).size;
  return { ms, extra: { bytes: written, batch, cpuMs, verdicts } };
}

export async function streamBaseline({ dir, rows = 5_000_000, batch = 10_000 }) {
  const folder = join(tableDir(dir), "date=2025-01-01");
  await mkdir(folder, { recursive: true });
  const file = join(folder, "data.csv");
  const { ms } = await timed(async () => {
    const out = createWriteStream(file);
    let header = true;
    for await (const rowsBatch of rowBatches("2025-01-01", rows, batch)) {
      if (!out.write(stringify(rowsBatch, { header, columns: COLUMNS }))) await once(out, "drain");
      header = false;
    }
    out.end();
    await once(out, "finish");
  });
  return { ms, extra: { bytes: (await stat(file)).size } };
}

// --- hooks: workloads other engineers own (bench/database/*) -----------------------------------

export async function external({ file, name, role, options = {} }) {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url);
  const mod = await jiti.import(file);
  const workloads = mod.workloads ?? (mod.default ? [].concat(mod.default) : []);
  const workload = workloads.find((w) => w.name === name);
  if (!workload) throw new Error(`${file} has no workload ${name}`);
  const fn = role === "baseline" ? workload.baseline : workload.run;
  // setup and teardown are told which of the two they prepare for ({ role: "run" | "baseline" }).
  if (workload.setup) await workload.setup({ ...options, role });
  const { ms, value } = await timed(() => fn(options));
  if (workload.teardown) await workload.teardown({ ...options, role });
  return { ms, extra: value && typeof value === "object" ? value : {} };
}

/** Lists the runnable workloads of a hook file: [{name, title, target, reason?}]. */
export async function probe({ file }) {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url);
  const mod = await jiti.import(file);
  const workloads = mod.workloads ?? (mod.default ? [].concat(mod.default) : []);
  const out = [];
  for (const w of workloads) {
    if (!w || typeof w.name !== "string" || typeof w.run !== "function") continue;
    let reason = null;
    try {
      const ok = w.available ? await w.available() : true;
      if (ok !== true) reason = typeof ok === "string" ? ok : "not available";
    } catch (error) {
      reason = `available() threw: ${error.message}`;
    }
    const count = Number.isInteger(w.count) && w.count > 0 ? w.count : null;
    out.push({
      name: w.name,
      title: w.title ?? w.name,
      target: w.target ?? null,
      count,
      hasBaseline: typeof w.baseline === "function",
      reason,
    });
  }
  return { ms: 0, extra: { workloads: out } };
}
