// ST10Y: coverage with staleness against plain coverage, over 10 years of a daily asset rolled up
// by week and by month (3,647 + 521 + 119 partitions on CSV), as issue 34 sets it. The lib
// computes coverage through a session (stale partitions marked: the records of each asset read);
// the baseline is the plain coverage of the same three assets (counts only).
const now = () => performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const DAYS = "2016-01-04..2025-12-28"; // Monday to Sunday: every week whole, 3,647 days
const ASSETS = ["shop.revenue", "shop.weekly", "shop.monthly"];

async function project(dir) {
  const il = await import("../../dist/index.js");
  const rows = (column) => (ctx) => [{ [column]: ctx.partition.key, n: 1 }];
  const time = (column, granularity) => new il.TimePartitionConfig({ column, granularity, start: "2016-01-04" });
  const revenue = il.asset({ key: "revenue", partitioning: time("day", il.TimeGranularity.DAY), run: rows("day") });
  const weekly = il.asset({
    key: "weekly",
    partitioning: time("week", il.TimeGranularity.WEEK),
    requires: { revenue: "revenue" },
    run: rows("week"),
  });
  const monthly = il.asset({
    key: "monthly",
    partitioning: time("month", il.TimeGranularity.MONTH),
    requires: { revenue: "revenue" },
    run: rows("month"),
  });
  const destination = new il.CSVDestination({ basePath: dir, durable: false });
  const config = il.defineConfig({
    sources: [il.source({ key: "shop", assets: [revenue, weekly, monthly] })({ destinations: destination })],
  });
  return { il, config };
}

/** Untimed setup: the three assets over 10 years, then 10 days written again (their weeks and months stale). */
export async function writeRollups({ dir }) {
  const { il, config } = await project(dir);
  const session = await il.openProject(config);
  const t0 = now();
  const outcome = await session.materialize({ window: DAYS, concurrency: 8 });
  if (outcome.status !== "completed") throw new Error(`setup ended ${outcome.status}`);
  const corrected = [
    "2016-03-01",
    "2018-07-15",
    "2020-02-29",
    "2021-12-31",
    "2022-06-06",
    "2023-01-02",
    "2024-05-05",
    "2025-01-15",
    "2025-08-08",
    "2025-12-01",
  ];
  for (const day of corrected) await session.materialize({ selection: "revenue", partition: day });
  await session.close();
  return { ms: now() - t0, extra: {} };
}

async function timedCalls(fn) {
  await fn();
  await fn();
  const samples = [];
  let value;
  for (let i = 0; i < 9; i++) {
    const t0 = now();
    value = await fn();
    samples.push(now() - t0);
  }
  return { ms: median(samples), inner: samples, value };
}

/** Coverage of revenue, weekly and monthly with their stale partitions marked, warm: median of 9 calls after 2. */
export async function staleCoverage({ dir }) {
  const { il, config } = await project(dir);
  const session = await il.openProject(config);
  const { ms, inner, value } = await timedCalls(() => session.coverage(ASSETS, { window: DAYS }));
  const stale = value.map((c) => c.stale);
  // Each corrected day makes its week and its month stale (the days themselves read nothing).
  if (stale[0] !== 0 || stale[1] < 1 || stale[2] < 1) throw new Error(`expected stale weeks and months, found ${stale.join(", ")}`);
  await session.close();
  return { ms, extra: { inner, stale } };
}

/** The same coverage without staleness: each asset's counts only. */
export async function plainCoverage({ dir }) {
  const { il, config } = await project(dir);
  const session = await il.openProject(config);
  const assets = ASSETS.map((key) => session.project.dag.find(key));
  const { ms, inner } = await timedCalls(() => Promise.all(assets.map((asset) => il.assetCoverage(asset, { window: DAYS }))));
  await session.close();
  return { ms, extra: { inner } };
}
