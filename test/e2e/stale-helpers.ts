// Helpers of the end-to-end tests of stale partitions (issue 34): a project whose destination is
// written by the user, as docs/destinations.md shows, storing each partition as one JSON file
// that holds its rows and its materialization record together (one rename writes both), and
// returning the records from `materializations(context)`. Its records outlive the process, so
// staleness is computed by a later `interloper coverage` from what earlier runs wrote.
import { expect } from "vitest";
import { installPackages, type Sandbox } from "./helpers.js";

/** shop.orders, daily from 2026-01-01 (2 rows a day), and shop.revenue, reading the same day of orders (1 row). */
export const STALE_CONFIG = `import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as il from "interloper";

class JsonRecordsDestination extends il.Destination {
  basePath = "./store";

  private folder(context: il.IOContext): string {
    return join(this.basePath, context.asset.dataset ?? "", context.asset.table);
  }
  private file(context: il.IOContext, key: string): string {
    return join(this.folder(context), \`\${encodeURIComponent(key)}.json\`);
  }
  private stored(context: il.IOContext): Array<{ key: string; rows: unknown[]; record: il.Materialization }> {
    let names: string[] = [];
    try {
      names = readdirSync(this.folder(context)).filter((name) => name.endsWith(".json"));
    } catch {
      return [];
    }
    return names.map((name) => ({ key: decodeURIComponent(name.slice(0, -5)), ...JSON.parse(readFileSync(join(this.folder(context), name), "utf8")) }));
  }
  writePartition(context: il.IOContext, partition: il.Partition | null, data: unknown) {
    const rows = data as unknown[];
    const key = partition?.key ?? "";
    const record = context.materialization(partition, rows.length);
    mkdirSync(this.folder(context), { recursive: true });
    // The rows and their record in one file, put in place by one rename: never one without the other.
    const temporary = \`\${this.file(context, key)}.tmp\`;
    writeFileSync(temporary, JSON.stringify({ rows, record }));
    renameSync(temporary, this.file(context, key));
  }
  readPartition(context: il.IOContext, partition: il.Partition | null) {
    const found = this.stored(context).find((s) => s.key === (partition?.key ?? ""));
    if (!found) throw new il.DataNotFoundError(\`no data for \${context.asset.key} \${partition?.key ?? ""}\`);
    return found.rows;
  }
  partitionRowCounts(context: il.IOContext) {
    return Object.fromEntries(this.stored(context).map((s) => [s.key, s.rows.length]));
  }
  override materializations(context: il.IOContext) {
    const wanted = context.window ? new Set(context.window.partitions.map((p) => p.key)) : null;
    return Object.fromEntries(this.stored(context).filter((s) => !wanted || wanted.has(s.key)).map((s) => [s.key, s.record]));
  }
}

const day = () => new il.TimePartitionConfig({ column: "day", start: "2026-01-01" });
const orders = il.asset({
  key: "orders",
  partitioning: day(),
  run: (context) => [1, 2].map((n) => ({ day: context.partition!.key, n })),
});
const revenue = il.asset({
  key: "revenue",
  partitioning: day(),
  requires: { orders: "orders" },
  run: (context, { orders }) => [{ day: context.partition!.key, total: (orders as unknown[]).length }],
});

export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [orders, revenue] })({ destinations: new JsonRecordsDestination() })],
});
`;

/** The window every stale test reads: five days, all stored. */
export const STALE_WINDOW = "2026-01-01..2026-01-05";

/**
 * Makes the project in a sandbox and runs it as a user would: orders and revenue for the five
 * days, then orders again for the 3rd and the 5th, in a later process. Revenue's 3rd and 5th
 * are then stale.
 */
export async function prepareStale(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.ts", STALE_CONFIG);
  const first = await box.run(["materialize", "orders+", "-w", STALE_WINDOW], { config: null });
  expect(first.exitCode, first.stderr).toBe(0);
  for (const key of ["2026-01-03", "2026-01-05"]) {
    const again = await box.run(["materialize", "orders", "-p", key], { config: null });
    expect(again.exitCode, again.stderr).toBe(0);
  }
}
