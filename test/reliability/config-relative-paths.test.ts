// Regression (issue 17 item 7): relative destination paths resolved against the current
// folder, so a command run from a subfolder of a project saw no data ("0 of 366") and wrote a
// new empty data/ there. They must resolve against the config file's folder, from any folder,
// with the config named by -c or found upward; `list --verbose` shows where each destination
// keeps its data (absolute, no password); a config with no asset is bad input naming the file.
import { cp, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt, FIXTURES, listFiles, oneLineError, ROOT } from "../e2e/helpers.js";

const NOW = "2026-01-04T10:00:00Z";
let project: string;
let sub: string;
let deeper: string;

beforeAll(async () => {
  await ensureBuilt();
  project = await realpath(await mkdtemp(join(tmpdir(), "interloper-relative-")));
  await cp(join(FIXTURES, "relative", "interloper.config.ts"), join(project, "interloper.config.ts"));
  // The copied config imports "interloper" as a user's project would: from its node_modules.
  await mkdir(join(project, "node_modules"));
  await symlink(ROOT, join(project, "node_modules", "interloper"), "dir");
  sub = join(project, "sub");
  deeper = join(sub, "deeper");
  await mkdir(deeper, { recursive: true });
  const made = await cli(["materialize", "orders", "stock", "events", "-w", "2026-01-01..2026-01-03"], { cwd: project });
  expect(made.exitCode, made.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

interface CoverageJson {
  asset: string;
  materialized: number;
  missing: number;
}

describe("destination paths are relative to the config file", () => {
  it("coverage from a subfolder sees the data, with -c ../interloper.config.ts and with the config found upward", async () => {
    for (const [cwd, args] of [
      [sub, ["-c", "../interloper.config.ts"]],
      [deeper, []],
    ] as const) {
      const result = await cli(["coverage", "--json", ...args], { cwd, env: { INTERLOPER_NOW: NOW } });
      expect(result.exitCode, result.stderr).toBe(0);
      const all = JSON.parse(result.stdout) as CoverageJson[];
      expect(
        all.map((c) => [c.asset, c.materialized, c.missing]),
        cwd,
      ).toEqual([
        ["rel.orders", 3, 0],
        ["rel.stock", 3, 0],
        ["rel.events", 3, 0],
      ]);
    }
    expect(await listFiles(sub)).toEqual([]);
  });

  it("materialize from a subfolder writes beside the config, nothing in the subfolder", async () => {
    const result = await cli(["materialize", "orders", "stock", "events", "-p", "2026-01-04", "-c", "../interloper.config.ts"], {
      cwd: sub,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const files = await listFiles(project);
    expect(files).toContain("data/rel/orders/date=2026-01-04/data.csv");
    expect(files).toContain("files/rel/events/date=2026-01-04/data.v8");
    expect(files.some((f) => f.startsWith("lake/raw/rel/events/date=2026-01-04/"))).toBe(true);
    expect(files).toContain("warehouse.db");
    expect(await listFiles(sub)).toEqual([]);
  });

  it("list --verbose prints every destination's absolute location, no password", async () => {
    const result = await cli(["list", "--verbose"], { cwd: deeper });
    expect(result.exitCode, result.stderr).toBe(0);
    const out = result.outLines;
    expect(out).toContain(`  location      CSVDestination: ${join(project, "data")}`);
    expect(out).toContain(`  location      SQLiteDestination: ${join(project, "warehouse.db")}`);
    expect(out).toContain(`  location      lake: ${join(project, "lake", "raw")}`);
    expect(out).toContain(`                files: ${join(project, "files")}`);
    expect(out).toContain("  location      PostgresDestination: postgres://loader:***@127.0.0.1:5432/test");
    expect(result.stdout).not.toContain("s3cret-pw");
    // Without --verbose, no locations.
    const plain = await cli(["list"], { cwd: deeper });
    expect(plain.stdout).not.toContain("location");
  });

  it("a config that defines no asset is exit 2, one line naming the file", async () => {
    const empty = join(sub, "empty.config.ts");
    await writeFile(empty, `import { defineConfig } from "interloper";\nexport default defineConfig({ sources: [] });\n`);
    try {
      for (const command of [["list"], ["coverage"], ["materialize"]]) {
        const result = await cli([...command, "-c", "empty.config.ts"], { cwd: sub });
        expect(result.exitCode, result.stderr).toBe(2);
        expect(oneLineError(result)).toMatch(
          new RegExp(`^interloper: ${empty.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: the config defines no assets: `),
        );
        expect(result.stdout).toBe("");
      }
    } finally {
      await rm(empty);
    }
  });
});
