// A destination's report reaches the user through the run's events: the warning for written
// data without the partition column is a `log` event of level warn, printed by the plain log
// and carried by --json, for a one-partition write and a window alike.
import { beforeAll, describe, expect, it } from "vitest";
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
