// C3Y50: coverage of one multi asset (a day x 50 regions) over 3 years, 54,750 partitions on CSV,
// as issue 36 sets it ("within 2x of a listing of the same folders"). The data is written once,
// through CSVDestination itself (so its ledger counts every partition as written), and reused by
// every round; the baseline lists the same nested folders and counts the data files.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { timed } from "./tasks.mjs";

const now = () => performance.now();
const FIRST = "2021-01-01";

/** `count` consecutive ISO days from FIRST (2021..2023 has no leap day: 3 years are 1,095 days). */
const dayKeys = (count) =>
  Array.from({ length: count }, (_, i) => new Date(Date.parse(`${FIRST}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10));
const regions = (count) => Array.from({ length: count }, (_, i) => `r${String(i).padStart(2, "0")}`);

function stockAsset(il, values) {
  return {
    key: "shop.stock",
    table: "stock",
    dataset: "shop",
    partitioning: new il.MultiPartitionConfig({
      date: new il.TimePartitionConfig({ column: "date", start: FIRST }),
      region: new il.ListPartitionConfig({ column: "region", values }),
    }),
  };
}

/** Untimed setup: every day x region partition, one row each, through CSVDestination (no syncs, 32 at once). */
export async function writeMulti({ dir, days = 1_095, values = 50 }) {
  const il = await import("../../dist/index.js");
  const destination = new il.CSVDestination({ basePath: dir, durable: false });
  const asset = stockAsset(il, regions(values));
  const keys = dayKeys(days).flatMap((day) => regions(values).map((region) => `${day}|${region}`));
  let next = 0;
  const t0 = now();
  const worker = async () => {
    while (next < keys.length) {
      const partition = asset.partitioning.fromKey(keys[next++]);
      const context = new il.IOContext({ asset, window: partition, metadata: { runId: "bench" } });
      await destination.writePartition(context, partition, [{ ...partition.keys, n: 1 }]);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return { ms: now() - t0, extra: { partitions: keys.length } };
}

export async function coverageMulti({ dir, days = 1_095, values = 50 }) {
  const il = await import("../../dist/index.js");
  const { partitioning } = stockAsset(il, regions(values));
  const stock = il.asset({ key: "stock", partitioning, run: () => [] });
  const shop = il.source({ key: "shop", assets: [stock] })({ destinations: new il.CSVDestination({ basePath: dir }) });
  const list = dayKeys(days);
  const window = `${list[0]}..${list.at(-1)}`;
  const { ms, inner, value, cpuMs } = await timed(() => il.assetCoverage(shop.assets.stock, { window }), { warm: 1, repeat: 5 });
  const count = days * values;
  if (value.expected !== count || value.materialized !== count)
    throw new Error(`coverage expected ${value.expected} and found ${value.materialized} of ${count} partitions`);
  return { ms, extra: { inner, cpuMs, materialized: value.materialized, rows: value.rows } };
}

/** readdir of each folder in `paths`, at most 1,024 at once: the entries of each, in order. */
async function listAll(paths) {
  const out = [];
  for (let start = 0; start < paths.length; start += 1024)
    out.push(...(await Promise.all(paths.slice(start, start + 1024).map((p) => readdir(p)))));
  return out;
}

/** A recursive listing of the table folder (days, their regions, their files) counting the data files. */
export async function coverageMultiBaseline({ dir }) {
  const table = join(dir, "shop", "stock");
  const { ms, inner, value, cpuMs } = await timed(
    async () => {
      const dayFolders = (await readdir(table)).filter((n) => n.startsWith("date=")).map((n) => join(table, n));
      const regionLists = await listAll(dayFolders);
      const regionFolders = dayFolders.flatMap((day, i) => regionLists[i].filter((n) => n.startsWith("region=")).map((n) => join(day, n)));
      const files = await listAll(regionFolders);
      return files.reduce((sum, names) => sum + names.filter((n) => n === "data.csv").length, 0);
    },
    { warm: 1, repeat: 5 },
  );
  return { ms, extra: { inner, cpuMs, partitions: value } };
}
