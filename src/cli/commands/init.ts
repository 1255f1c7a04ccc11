import { existsSync } from "node:fs";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { SEARCH_PLACES } from "../../config/find-config.js";
import { ConfigError } from "../../errors.js";
import type { GlobalOptions } from "../main.js";
import { printable } from "../printable.js";
import { commandNow } from "../now.js";
import { packageVersion } from "../../package-root.js";

/** The line .gitignore gets: the data folder the starting config writes into. */
const IGNORED = "/data/";

/**
 * `interloper init`: writes a starting config (the file `--config` names, else
 * interloper.config.ts here) and adds its data folder to .gitignore. Refuses, changing
 * nothing, when that folder already has a config.
 */
export async function initCommand(flags: GlobalOptions): Promise<number> {
  const target = resolve(flags.config ?? "interloper.config.ts");
  const folder = dirname(target);
  const existing = [target, ...SEARCH_PLACES.filter((name) => name !== "package.json").map((name) => join(folder, name))].find((path) =>
    existsSync(path),
  );
  if (existing)
    throw new ConfigError(
      `${existing} already exists: init writes a new project and never overwrites one (edit that config, or remove it first)`,
    );
  const start = `${commandNow().getUTCFullYear() - 1}-01-01`;
  // "wx": a config another process writes meanwhile is not overwritten either.
  await writeFile(target, starterConfig(start), { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EEXIST") throw new ConfigError(`${target} already exists: init never overwrites a config`);
    throw error;
  });
  const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
  out(`Created ${target}: source "shop", daily asset "shop.orders" (from ${start}), CSV files in ./data`);
  if (await ignoreData(folder)) out(`Added ${IGNORED} to ${join(folder, ".gitignore")}`);
  if (!flags.quiet) {
    const yesterday = new Date(commandNow().getTime() - 86_400_000).toISOString().slice(0, 10);
    const config = basename(target) === "interloper.config.ts" ? "" : ` -c ${basename(target)}`;
    // interloper is not on npm yet: `npm install interloper` would fail.
    out(
      `Next: install the packages it imports: zod, and interloper from a clone of it (not yet published on npm): in the clone run \`npm install && npm pack\`, then here \`npm install zod /path/to/interloper/interloper-${packageVersion()}.tgz\`; then`,
    );
    out(`  interloper check${config}`);
    out(`  interloper materialize -p ${yesterday}${config}`);
    out(`  interloper show orders -p ${yesterday}${config}`);
  }
  return 0;
}

/** Adds the data folder to .gitignore (created if need be) unless a line already ignores it; says whether it did. */
async function ignoreData(folder: string): Promise<boolean> {
  const path = join(folder, ".gitignore");
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (text !== null && text.split(/\r?\n/).some((line) => ["data", "data/", "/data", "/data/"].includes(line.trim()))) return false;
  await appendFile(path, `${text && !text.endsWith("\n") ? "\n" : ""}${IGNORED}\n`);
  return true;
}

/** The starting config: it runs as written, on made-up data, and shows each part once. */
function starterConfig(start: string): string {
  return `// The interloper project: its sources, assets and where their data goes.
// Written by \`interloper init\`; see \`interloper --help\`. Try:
//   interloper check                          validate this file, running nothing
//   interloper materialize -p <a past day>    run one daily partition and write it
//   interloper coverage orders                which days are stored, which are missing
import { z } from "zod";
import * as il from "interloper";

// Where the data goes: CSV files under ./data, relative to this file (ignored by git).
const files = new il.CSVDestination({ basePath: "./data" });

// The columns of each row; rows are checked and typed against it.
const Order = z.object({
  date: z.iso.date(),
  order_id: z.number().int(),
  amount: z.number(),
});

// One partition per day: run() returns that day's rows. Replace its body with a query or an
// API call for the day in context.partitionDate.
const orders = il.asset({
  key: "orders",
  description: "Orders placed each day (made-up data to start from)",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "${start}" }),
  schema: Order,
  run(context) {
    const day = il.TimeGranularity.DAY.format(context.partitionDate);
    return [1, 2, 3].map((n) => ({ date: day, order_id: n, amount: n * 12.5 }));
  },
});

// A source groups assets and gives them their destinations.
const Shop = il.source({ key: "shop", assets: [orders] });

export default il.defineConfig({
  sources: [Shop({ destinations: files })],
});
`;
}
