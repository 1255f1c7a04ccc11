// `show`: numbers right-aligned, --destination picks what to read, counts agree ("1 row").
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, installPackages, oneLineError, useSandboxes, type Sandbox } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

// Two destinations: CSV files in ./data (the first) and a SQLite file ./warehouse.db.
const CONFIG = `import * as il from "interloper";
const prices = il.asset({
  key: "prices",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  destinations: { files: new il.CSVDestination({ basePath: "./data" }), warehouse: new il.SQLiteDestination({ path: "warehouse.db" }) },
  run: (context) => [
    { date: context.partition!.key, item: "apple", price: 7, count: 1200 },
    { date: context.partition!.key, item: "melon", price: 12.5, count: 3 },
  ],
});
const single = il.asset({ key: "single", destinations: new il.CSVDestination({ basePath: "./data" }), run: () => [{ n: 1 }] });
export default il.defineConfig({ sources: [il.source({ key: "market", assets: [prices, single] })()] });
`;

let made: Promise<Sandbox> | undefined;
function project(): Promise<Sandbox> {
  made ??= (async () => {
    const box = await sandbox();
    await installPackages(box.dir);
    await box.write("interloper.config.ts", CONFIG);
    const result = await box.run(["materialize", "-p", "2026-01-02"], { config: null });
    expect(result.exitCode, result.stderr).toBe(0);
    return box;
  })();
  return made;
}

describe.concurrent("show", () => {
  it("right-aligns the columns of numbers, names included; text stays left", async () => {
    const box = await project();
    const result = await box.run(["show", "prices", "-p", "2026-01-02"], { config: null });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines.slice(0, 4)).toEqual([
      "date        item   price  count",
      "──────────  ─────  ─────  ─────",
      "2026-01-02  apple      7   1200",
      "2026-01-02  melon   12.5      3",
    ]);
    expect(result.outLines[4]).toBe("2 rows in 2026-01-02");
  });

  it('one row is "1 row"', async () => {
    const box = await project();
    const result = await box.run(["show", "single"], { config: null });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines.at(-1)).toBe("1 row");
  });

  it("--destination reads the one named, and says so; the default is the first", async () => {
    const box = await project();
    // Without the CSV files the first destination has nothing; the warehouse still has it.
    const copy = await sandbox();
    await installPackages(copy.dir);
    await copy.write("interloper.config.ts", CONFIG);
    expect((await copy.run(["materialize", "prices", "-p", "2026-01-02"], { config: null })).exitCode).toBe(0);
    await rm(join(copy.dir, "data"), { recursive: true });
    const first = await copy.run(["show", "prices", "-p", "2026-01-02"], { config: null });
    expect(first.exitCode).toBe(2);
    expect(oneLineError(first)).toContain("2026-01-02");
    const warehouse = await copy.run(["show", "prices", "-p", "2026-01-02", "--destination", "warehouse", "--format", "json"], {
      config: null,
    });
    expect(warehouse.exitCode, warehouse.stderr).toBe(0);
    expect(JSON.parse(warehouse.stdout)).toEqual([
      { date: "2026-01-02", item: "apple", price: 7, count: 1200 },
      { date: "2026-01-02", item: "melon", price: 12.5, count: 3 },
    ]);
    const table = await box.run(["show", "prices", "-p", "2026-01-02", "--destination", "warehouse"], { config: null });
    expect(table.outLines.at(-1)).toBe("2 rows in 2026-01-02 from warehouse");
  });

  it("--destination naming no destination of the asset: one line naming it and the ones there are, exit 2", async () => {
    const box = await project();
    const result = await box.run(["show", "prices", "-p", "2026-01-02", "--destination", "lake"], { config: null });
    expect(result.exitCode).toBe(2);
    expect(oneLineError(result)).toBe(
      'interloper: --destination "lake": asset "market.prices" has no such destination (expected one of: files, warehouse)',
    );
  });
});
