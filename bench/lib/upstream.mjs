// UR1: what an upstream read costs inside a run against a plain read of the same partition in the
// same run (issue 41, item 10). A daily `orders` (10 rows a day) is stored over three years on
// CSV; a run of `daily` over the last 365 days (concurrency 1) reads its day of orders as a
// dependency (the lookup of the records of the day read, its provenance, then the read) and,
// inside its run(), reads the same day again plainly (`orders.read(day)`). Each read is timed
// from its start to its end (the dependency's by the run's read events), on the clock and in CPU
// time (extra.cpuMs, steadier on a loaded machine), and summed. The workload reports the
// dependency reads, the baseline the plain ones: the same run, in two fresh processes.
const now = () => performance.now();
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const STORED = "2023-01-01..2025-12-31";
const READ = "2025-01-01..2025-12-31";

/** The two assets; `plain` collects the time of the plain reads `daily` makes. */
async function project(dir, plain = { ms: 0, cpuMs: 0, reads: 0 }) {
  const il = await import("../../dist/index.js");
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2023-01-01" }),
    run: (ctx) => Array.from({ length: 10 }, (_, n) => ({ date: ctx.partition.key, n })),
  });
  const daily = il.asset({
    key: "daily",
    partitioning: new il.TimePartitionConfig({ column: "date", start: "2023-01-01" }),
    requires: { orders: "orders" },
    destinations: new il.MemoryDestination(),
    async run(ctx, deps) {
      const [t0, cpu0] = [now(), cpuNow()];
      const again = await shop.assets.orders.read(ctx.partition);
      [plain.ms, plain.cpuMs, plain.reads] = [plain.ms + now() - t0, plain.cpuMs + cpuNow() - cpu0, plain.reads + 1];
      if (again.length !== deps.orders.length)
        throw new Error(`${ctx.partition.key}: read ${again.length} rows, then ${deps.orders.length}`);
      return [{ date: ctx.partition.key, orders: deps.orders.length }];
    },
  });
  const shop = il.source({ key: "shop", assets: [orders, daily] })({
    destinations: new il.CSVDestination({ basePath: dir, durable: false }),
  });
  return { il, config: il.defineConfig({ sources: [shop] }), plain };
}

/** Untimed setup: three years of orders. */
export async function writeUpstream({ dir }) {
  const { il, config } = await project(dir);
  const session = await il.openProject(config);
  const t0 = now();
  const outcome = await session.materialize({ selection: "orders", window: STORED, concurrency: 8 });
  if (outcome.status !== "completed") throw new Error(`setup ended ${outcome.status}`);
  await session.close();
  return { ms: now() - t0, extra: {} };
}

/** The run of `daily` over 365 days; `report`: "dependency" (its reads of orders as a dependency) or "plain" (its plain reads). */
export async function upstreamReadsInRun({ dir, report }) {
  const { il, config, plain } = await project(dir);
  const session = await il.openProject(config);
  const dependency = { ms: 0, cpuMs: 0, reads: 0 };
  let [started, cpuStarted] = [0, 0];
  session.on((event) => {
    if (event.type === "destination:read:started") [started, cpuStarted] = [now(), cpuNow()];
    else if (event.type === "destination:read:completed")
      [dependency.ms, dependency.cpuMs, dependency.reads] = [
        dependency.ms + now() - started,
        dependency.cpuMs + cpuNow() - cpuStarted,
        dependency.reads + 1,
      ];
  });
  const t0 = now();
  const outcome = await session.materialize({ selection: "daily", window: READ, concurrency: 1 });
  const runMs = now() - t0;
  await session.close();
  if (outcome.status !== "completed" || dependency.reads !== 365 || plain.reads !== 365)
    throw new Error(`the run ended ${outcome.status} after ${dependency.reads} dependency reads and ${plain.reads} plain ones`);
  const { ms, cpuMs, reads } = report === "plain" ? plain : dependency;
  return { ms, extra: { reads, cpuMs, runMs } };
}
