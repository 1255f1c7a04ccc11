// `interloper coverage --html <file>` opened in a real browser (issue 6): headless Chromium
// driven by playwright-core, offline. Checks one SVG cell per expected partition, the missing
// ones marked, that the page requests nothing beyond its own file, and saves a screenshot.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import { installPackages, usePreparedSandbox, useSandboxes } from "./helpers.js";
import { COVERAGE, prepare } from "./coverage-helpers.js";
import { materializeWithWarehouseDown, runOnDestinations } from "./destinations-helpers.js";
import { prepareStale, STALE_WINDOW } from "./stale-helpers.js";

/** The chromium binary (`which chromium`), or null when it is not installed. */
function findChromium(): string | null {
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      const path = execFileSync("which", [name], { encoding: "utf8" }).trim();
      if (path && existsSync(path)) return path;
    } catch {
      // not on PATH
    }
  }
  return existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : null;
}

const CHROMIUM = findChromium();
const REQUIRED = Boolean(process.env["CI"]);
if (!CHROMIUM && !REQUIRED)
  console.log(
    "coverage --html browser test skipped: chromium is not installed (apt-get install chromium to enable it; it is required when CI is set)",
  );

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

const sandbox = useSandboxes();

// The DOM types this test touches (the project's tsconfig has no DOM lib).
interface Attributed {
  getAttribute(name: string): string | null;
}
interface Boxed {
  getBBox(): { width: number; height: number };
}

interface CoverageJson {
  asset: string;
  expected: number;
  materialized: number;
  empty: number;
  missing: number;
  stale: number;
  rows: number;
  partitions: Array<{ key: string; status: string; rows: number | null }>;
  inProgress: { key: string } | null;
}

/** Runs `use` with a headless Chromium of its own (a fresh profile), closed and removed after. */
async function withChromium(use: (context: BrowserContext) => Promise<void>): Promise<void> {
  const profile = await mkdtemp(join(tmpdir(), "interloper-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM!,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
  });
  try {
    await use(context);
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

describe("coverage --html in headless Chromium", () => {
  const box = usePreparedSandbox(sandbox, prepare);

  it("fails when chromium is missing and CI is set", () => {
    if (REQUIRED && !CHROMIUM)
      throw new Error("chromium is not installed, and CI is set: the coverage --html browser test cannot run (apt-get install chromium)");
  });

  it.skipIf(!CHROMIUM)("one rect per expected partition, missing ones marked, no network, a screenshot", { timeout: 120_000 }, async () => {
    const report = join(box.dir, "coverage.html");
    const written = await box.run(["coverage", "--html", report], { config: COVERAGE });
    expect(written.exitCode, written.stderr).toBe(0);
    expect(written.stderr).toContain(`coverage report written to ${report}`);
    const json = await box.run(["coverage", "--json"], { config: COVERAGE });
    expect(json.exitCode, json.stderr).toBe(0);
    const coverages = JSON.parse(json.stdout) as CoverageJson[];
    expect(coverages.map((c) => c.asset)).toEqual(["cov.orders", "cov.hourly", "cov.monthly", "cov.regions"]);

    const shot = join(box.dir, "coverage.png");
    await withChromium(async (context) => {
      const requests: string[] = [];
      const outside: string[] = [];
      await context.route("**/*", async (route) => {
        const url = route.request().url();
        requests.push(url);
        if (url.startsWith("file:")) await route.continue();
        else {
          outside.push(url);
          await route.abort();
        }
      });
      const page = context.pages()[0] ?? (await context.newPage());
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      const url = pathToFileURL(report).href;
      await page.goto(url, { waitUntil: "load" });
      // The project (named by its folder: the fixture has no package.json) and its config.
      expect(await page.title()).toBe("coverage: coverage");
      expect(await page.locator("h1").innerText()).toBe("coverage: coverage");
      expect(await page.locator("p.project").innerText()).toBe(`config ${COVERAGE}`);
      // The overview opens the report: one row per asset, in order, with its counts.
      const overview = await page
        .locator("table.overview tbody tr")
        .evaluateAll((rows) =>
          rows.map((row) =>
            [
              ...(row as unknown as { querySelectorAll(s: string): Iterable<{ textContent: string | null }> }).querySelectorAll("th, td"),
            ].map((cell) => cell.textContent ?? ""),
          ),
        );
      expect(overview.map((cells) => cells.slice(0, 7))).toEqual(
        coverages.map((c) => [
          c.asset,
          String(c.expected),
          String(c.materialized),
          String(c.empty),
          String(c.missing),
          String(c.stale),
          c.rows.toLocaleString("en-US"),
        ]),
      );
      // Last written: the newest data file of an asset that has any, as the CSV files say.
      const written = overview.map((cells) => cells[7]!);
      expect(written[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
      expect(written[1]).toBe("never");
      expect(await page.locator("table.overview a").first().getAttribute("href")).toBe("#asset-cov-orders");
      expect(await page.locator("#asset-cov-orders h2").innerText()).toBe("cov.orders");

      for (const c of coverages) {
        const section = page.locator(`section[data-asset="${c.asset}"]`);
        expect(await section.count(), c.asset).toBe(1);
        const rects = section.locator("svg rect.partition");
        // The expected partitions, then the period in progress with its own class.
        const expectedKeys = [
          ...c.partitions.filter((p) => p.status !== "unexpected").map((p) => p.key),
          ...(c.inProgress ? [c.inProgress.key] : []),
        ];
        expect(await rects.count(), c.asset).toBe(c.expected + (c.inProgress ? 1 : 0));
        const inProgress = await section
          .locator("svg rect.partition.in-progress")
          .evaluateAll((nodes) => nodes.map((n) => (n as unknown as Attributed).getAttribute("data-key")));
        expect(inProgress, c.asset).toEqual(c.inProgress ? [c.inProgress.key] : []);
        const keys = await rects.evaluateAll((nodes) => nodes.map((n) => (n as unknown as Attributed).getAttribute("data-key")));
        expect([...keys].sort(), c.asset).toEqual([...expectedKeys].sort());
        const missing = await section
          .locator("svg rect.partition.missing")
          .evaluateAll((nodes) => nodes.map((n) => (n as unknown as Attributed).getAttribute("data-key")));
        expect([...missing].sort(), c.asset).toEqual(
          c.partitions
            .filter((p) => p.status === "missing")
            .map((p) => p.key)
            .sort(),
        );
        // Every cell is drawn with a size (the SVG lays out, nothing collapsed).
        const sizes = await rects.evaluateAll((nodes) =>
          nodes.map((n) => (n as unknown as Boxed).getBBox()).map((b) => b.width * b.height),
        );
        expect(
          sizes.every((s) => s > 0),
          c.asset,
        ).toBe(true);
      }
      // The totals and ranges are on the page.
      const text = await page.locator("body").innerText();
      const orders = coverages[0]!;
      expect(text).toContain(`expected ${orders.expected}`);
      expect(text).toContain(`missing ${orders.missing}`);
      expect(text).toContain(`in progress (not expected yet): ${orders.inProgress!.key}`);

      await page.screenshot({ path: shot, fullPage: true });
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
      expect(requests).toEqual([url]);
    });
    const png = await readFile(shot);
    expect((await stat(shot)).size).toBeGreaterThan(1000);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it.skipIf(!CHROMIUM)(
    "an asset of two destinations: a day missing in one of them is marked partial, naming it, and each destination has its line",
    { timeout: 120_000 },
    async () => {
      const two = await sandbox();
      await materializeWithWarehouseDown(two, "2026-01-04");
      const report = join(two.dir, "coverage.html");
      const written = await runOnDestinations(two, ["coverage", "--html", report]);
      expect(written.exitCode, written.stderr).toBe(0);
      await withChromium(async (context) => {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(pathToFileURL(report).href, { waitUntil: "load" });
        const section = page.locator('section[data-asset="shop.daily_revenue"]');
        const partial = await section
          .locator("svg rect.partition.missing.partial")
          .evaluateAll((nodes) =>
            nodes.map((n) => [
              (n as unknown as Attributed).getAttribute("data-key"),
              (n as unknown as Attributed).getAttribute("data-missing-in"),
            ]),
          );
        expect(partial).toEqual([["2026-01-04", "warehouse"]]);
        expect(await section.locator('svg rect[data-key="2026-01-04"] title').textContent()).toBe(
          "2026-01-04: missing in warehouse (held by csv)",
        );
        expect(await section.locator("svg rect.partition.materialized").count()).toBe(5);
        const text = await page.locator("body").innerText();
        expect(text).toContain("missing in some destinations");
        expect(text).toContain("destination csv (CSV files): 6/6 stored, 6 rows");
        expect(text).toContain("destination warehouse (SQLite): 5/6 stored, 5 rows; missing 2026-01-04");
      });
    },
  );

  it.skipIf(!CHROMIUM)(
    "stale partitions: their own class and colour, their reasons in the tooltip, the legend and the overview's count",
    { timeout: 120_000 },
    async () => {
      const stale = await sandbox();
      await prepareStale(stale);
      const report = join(stale.dir, "coverage.html");
      const written = await stale.run(["coverage", "--html", report, "-w", STALE_WINDOW], { config: null });
      expect(written.exitCode, written.stderr).toBe(0);
      await withChromium(async (context) => {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(pathToFileURL(report).href, { waitUntil: "load" });
        const section = page.locator('section[data-asset="shop.revenue"]');
        const cells = await section.locator("svg rect.partition.stale").evaluateAll((nodes) =>
          nodes.map((n) => ({
            key: (n as unknown as Attributed).getAttribute("data-key"),
            fill: (n as unknown as Attributed).getAttribute("fill"),
            reasons: (n as unknown as Attributed).getAttribute("data-stale-reasons"),
          })),
        );
        expect(cells.map((c) => c.key)).toEqual(["2026-01-05", "2026-01-03"]);
        for (const cell of cells) expect(cell.reasons).toMatch(new RegExp(`^shop\\.orders ${cell.key} was materialized again at `));
        // A colour of its own: not a shade of rows, nor empty's, missing's or in progress's.
        const fresh = await section
          .locator("svg rect.partition.materialized:not(.stale)")
          .evaluateAll((nodes) => nodes.map((n) => (n as unknown as Attributed).getAttribute("fill")));
        expect(fresh).toHaveLength(3);
        for (const fill of fresh) expect(fill).not.toBe(cells[0]!.fill);
        expect(await section.locator('svg rect[data-key="2026-01-03"] title').textContent()).toMatch(
          /^2026-01-03: 1 row; stale: shop\.orders 2026-01-03 was materialized again at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
        );
        expect(await page.locator('section[data-asset="shop.orders"] svg rect.partition.stale').count()).toBe(0);
        const text = await page.locator("body").innerText();
        expect(text).toContain("stale (stored, out of date)");
        expect(text).toContain("stale (out of date; materialize --stale rebuilds them): 2026-01-03, 2026-01-05");
        expect(await page.locator('table.overview tr[data-asset="shop.revenue"] td.stale').innerText()).toBe("2");
        expect(await page.locator('table.overview tr[data-asset="shop.revenue"]').getAttribute("class")).toBe("has-stale");
        expect(await page.locator('table.overview tr[data-asset="shop.orders"] td.stale').innerText()).toBe("0");
      });
    },
  );
});

// Issue 41.2: the report asked a local object store's `pathOf`, which takes an object's name, for
// a partition's file, and crashed ("name.split is not a function"). No browser needed to see it.
it("writes the report of an asset in a local object store, its last write read from its files", { timeout: 60_000 }, async () => {
  const box = await sandbox();
  await installPackages(box.dir);
  await box.write(
    "interloper.config.ts",
    `import * as il from "interloper";
const orders = il.asset({
  key: "orders",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2026-01-01" }),
  run: (context) => [{ date: context.partition!.key, n: 1 }],
});
export default il.defineConfig({
  sources: [il.source({ key: "shop", assets: [orders] })({ destinations: new il.LocalObjectStoreDestination({ basePath: "./lake" }) })],
});
`,
  );
  const env = { INTERLOPER_NOW: "2026-01-03T12:00:00Z" };
  expect((await box.run(["materialize", "-w", "2026-01-01..2026-01-02"], { config: null, env })).exitCode).toBe(0);
  const report = join(box.dir, "coverage.html");
  const written = await box.run(["coverage", "--html", report], { config: null, env });
  expect(written.exitCode, written.stderr).toBe(0);
  const html = await readFile(report, "utf8");
  expect(html).toContain('data-asset="shop.orders"');
  expect(html).toMatch(/<td class="written"><time datetime="\d{4}-/);
});
