// `materialize --dry-run`: with --json one JSON object; with --missing only what would run is
// said to be replaced.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, orderCount, useSandboxes } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

describe.concurrent("materialize --dry-run", () => {
  it("an unpartitioned asset: the stored rows it would replace, in --json and in text (issue 32.8)", async () => {
    const box = await sandbox();
    const fresh = JSON.parse((await box.run(["materialize", "shop.customers", "--dry-run", "--json"])).stdout);
    expect(fresh.assets[0].replaces).toEqual({ partitions: {}, rows: 0 });
    const seeded = await box.run(["materialize", "shop.customers"]);
    expect(seeded.exitCode, seeded.stderr).toBe(0);
    const [json, text] = await Promise.all([
      box.run(["materialize", "shop.customers", "--dry-run", "--json"]),
      box.run(["materialize", "shop.customers", "--dry-run"]),
    ]);
    expect(JSON.parse(json.stdout).assets[0].replaces).toEqual({ partitions: {}, rows: 2, unpartitioned: true });
    expect(text.outLines).toContain("    replaces the stored data, 2 rows");
  });

  it("--json prints one JSON object: runs, destinations, and the stored partitions it would replace", async () => {
    const box = await sandbox();
    const seeded = await box.run(["materialize", "orders", "-p", "2026-01-02"]);
    expect(seeded.exitCode, seeded.stderr).toBe(0);
    const before = await box.files();
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-03", "--dry-run", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines).toHaveLength(1);
    const dryRun = JSON.parse(result.stdout);
    expect(dryRun).toMatchObject({ dryRun: true, mode: "backfill", window: "2026-01-01..2026-01-03", order: "newest", skipped: [] });
    expect(dryRun.runs).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"].map((partition) => ({ partition, assets: ["shop.orders"] })));
    expect(dryRun.assets).toHaveLength(1);
    expect(dryRun.assets[0].key).toBe("shop.orders");
    expect(dryRun.assets[0].destinations).toEqual([{ key: expect.any(String), type: expect.stringMatching(/CSV/) }]);
    expect(dryRun.assets[0].replaces).toEqual({ partitions: { "2026-01-02": orderCount("2026-01-02") }, rows: orderCount("2026-01-02") });
    expect(await box.files()).toEqual(before);
  });

  it("with one stored partition, the text says 1 stored partition and agrees in number", async () => {
    const box = await sandbox();
    const seeded = await box.run(["materialize", "orders", "-p", "2026-01-02"]);
    expect(seeded.exitCode, seeded.stderr).toBe(0);
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-03", "--dry-run"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `replaces 1 stored partition, ${orderCount("2026-01-02")} rows (2026-01-02: ${orderCount("2026-01-02")})`,
    );
    expect(result.stdout).toContain("Would backfill 3 runs (newest first)");
  });

  it("--missing --dry-run replaces nothing it will not run: the stored partitions are left out", async () => {
    const box = await sandbox();
    for (const day of ["2026-01-01", "2026-01-03"]) {
      const seeded = await box.run(["materialize", "orders", "-p", day]);
      expect(seeded.exitCode, seeded.stderr).toBe(0);
    }
    const text = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-04", "--missing", "--dry-run"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).not.toContain("replaces");
    expect(text.stdout).toMatch(/^\s+2026-01-04: shop\.orders$/m);
    expect(text.stdout).toMatch(/^\s+2026-01-02: shop\.orders$/m);
    expect(text.stdout).not.toMatch(/^\s+2026-01-0[13]: /m);
    const json = JSON.parse(
      (await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-04", "--missing", "--dry-run", "--json"])).stdout,
    );
    expect(json.assets[0].replaces).toEqual({ partitions: {}, rows: 0 });
    expect(json.runs.map((r: { partition: string }) => r.partition)).toEqual(["2026-01-04", "2026-01-02"]);
  });

  it('--missing --dry-run --json with nothing missing: the object with no runs on stdout, "Nothing to do" on stderr, exit 0', async () => {
    const box = await sandbox();
    const seeded = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-02"]);
    expect(seeded.exitCode, seeded.stderr).toBe(0);
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-02", "--missing", "--dry-run", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      dryRun: true,
      runs: [],
      assets: [{ key: "shop.orders", replaces: { partitions: {}, rows: 0 } }],
    });
    expect(result.stderr).toMatch(/^Nothing to do: no partition is missing/);
  });
});
