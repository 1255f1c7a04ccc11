// A destination's report reaches the user through the run's events: the warning for written
// data without the partition column is a `log` event of level warn, printed by the plain log
// and carried by --json, for a one-partition write and a window alike.
import { beforeAll, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureBuilt, ROOT, useSandboxes } from "./helpers.js";

const sandbox = useSandboxes();

const CONFIG = `import * as il from ${JSON.stringify(join(ROOT, "dist", "index.js"))};

const Shop = il.source({
  key: "shop",
  assets: [
    il.asset({
      key: "orders",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01", allowWindow: true }),
      destinations: new il.SQLiteDestination({ path: "./warehouse.db" }),
      run: () => [{ id: 1 }, { id: 2 }],
    }),
  ],
});

export default il.defineConfig({ sources: [Shop()] });
`;

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

describe("a destination's warning, through the CLI", () => {
  it("is a warning line of the plain log, for one partition and for a window", async () => {
    const box = await sandbox();
    const config = await box.write("interloper.config.ts", CONFIG);
    const one = await box.run(["materialize", "orders", "-p", "2026-01-01"], { config });
    expect(one.exitCode).toBe(0);
    expect(one.errLines).toContain(
      'warning: shop.orders: asset "shop.orders": the data written to SQLite has no "date" column, so reads of partition 2026-01-01 will not find these 2 rows',
    );
    const window = await box.run(["materialize", "orders", "-w", "2026-01-02..2026-01-03"], { config });
    expect(window.exitCode).toBe(0);
    expect(window.errLines.filter((line) => line.startsWith("warning: "))).toEqual([
      'warning: shop.orders: asset "shop.orders": the data written to SQLite has no "date" column, so reads of the partitions of 2026-01-02..2026-01-03 will not find these 2 rows',
    ]);
    // No process warning besides: the event is the one report.
    expect(window.stderr).not.toContain("InterloperWarning");
  });

  it("is a log event of level warn in --json, for one partition and for a window", async () => {
    const box = await sandbox();
    const config = await box.write("interloper.config.ts", CONFIG);
    for (const [window, scope] of [
      ["2026-01-01", "partition 2026-01-01"],
      ["2026-01-02..2026-01-03", "the partitions of 2026-01-02..2026-01-03"],
    ] as const) {
      const result = await box.run(["materialize", "orders", "-w", window, "--json"], { config });
      expect(result.exitCode).toBe(0);
      const events = result.outLines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const logs = events.filter((event) => event["type"] === "log");
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        level: "warn",
        asset: "shop.orders",
        message: `asset "shop.orders": the data written to SQLite has no "date" column, so reads of ${scope} will not find these 2 rows`,
      });
      expect(result.stderr).not.toContain("InterloperWarning");
    }
  });
});

const CSV_CONFIG = `import * as il from ${JSON.stringify(join(ROOT, "dist", "index.js"))};

const Shop = il.source({
  key: "shop",
  assets: [
    il.asset({
      key: "orders",
      partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
      destinations: new il.CSVDestination({ basePath: "./data" }),
      run: (ctx: il.ExecutionContext) => [{ date: ctx.partition!.key, id: 1 }],
    }),
  ],
});

export default il.defineConfig({ sources: [Shop()] });
`;

describe("issue 41.26: a damaged record met outside a run", () => {
  it("is one interloper warning line on stderr (a JSON log event with --json), never a Node process warning, a checksum that fails included", async () => {
    const box = await sandbox();
    const config = await box.write("interloper.config.ts", CSV_CONFIG);
    expect((await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-02"], { config })).exitCode).toBe(0);
    // One digit of a record changed in place: the line's checksum no longer holds.
    const ledger = join(box.dir, "data", "shop", "orders", ".data.csv.ledger");
    await writeFile(ledger, (await readFile(ledger, "utf8")).replace('\\"rows\\":1', '\\"rows\\":7'));
    const warning = `warning: CSVDestination: asset "shop.orders": a materialization record in ${ledger} is damaged or was edited by hand; it is left out (provenance unknown)`;
    for (const args of [
      ["history", "orders"],
      ["plan", "--stale", "-w", "2026-01-01..2026-01-02"],
    ]) {
      const result = await box.run(args, { config });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.errLines).toEqual([`interloper: ${warning}`]);
    }
    const json = await box.run(["history", "orders", "--json"], { config });
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toHaveLength(1);
    expect(json.errLines.map((line) => JSON.parse(line) as unknown)).toEqual([
      { type: "log", level: "warn", message: warning.slice("warning: ".length) },
    ]);
  });
});
