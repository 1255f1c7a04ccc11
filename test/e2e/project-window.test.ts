// A time window over a whole project (issue 17 item 2), through the built CLI, on
// fixtures/projects/warehouse copied into a sandbox folder: hourly, daily, ISO weekly, monthly,
// list-partitioned and unpartitioned assets over CSV files (./data) and SQLite
// (./warehouse.db), both relative to the config.
import { cp, mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ensureBuilt, FIXTURES, listFiles, partitionFile, readCsv, ROOT, type CliResult } from "./helpers.js";

const CONFIG = join(FIXTURES, "warehouse", "interloper.config.ts");
const WINDOW = "2026-01-01..2026-02-03";
/** The library's reason, which plan --json gives as it is. */
const STOCK_REASON = "partitioned by a list (eu, us, asia), which a window of time does not name";
/** The line the CLI prints: the reason, and the command to run the list asset instead. */
const SKIP_STOCK = `Skipping shop.stock_by_region: ${STOCK_REASON}: run \`interloper materialize shop.stock_by_region\` for all its values, or add --partition VALUE`;

beforeAll(ensureBuilt, 180_000);

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh copy of the fixture project, importing "interloper" and "zod" as a user's project would. */
async function project(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "interloper-window-")));
  made.push(dir);
  await cp(CONFIG, join(dir, "interloper.config.ts"));
  await mkdir(join(dir, "node_modules"));
  await symlink(ROOT, join(dir, "node_modules", "interloper"), "dir");
  await symlink(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
  await mkdir(join(dir, "sub"));
  return dir;
}

/** A whole project's window is some 900 runs: on a shared machine it takes a while. */
const SLOW = 180_000;

/** The CLI in `cwd`, config found upward (no -c). */
async function run(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, CI: "1", NO_COLOR: "1", ...env },
    reject: false,
    stripFinalNewline: false,
    stdin: "ignore",
    timeout: 170_000,
  });
  const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");
  const stdout = String(result.stdout ?? "");
  const stderr = String(result.stderr ?? "");
  return { stdout, stderr, exitCode: result.exitCode ?? -1, errLines: lines(stderr), outLines: lines(stdout) };
}

/** Every key from `first` to `last` of a granularity, by the fixture's key shapes. */
function days(first: string, last: string): string[] {
  const out: string[] = [];
  for (let d = new Date(`${first}T00:00:00Z`); d <= new Date(`${last}T00:00:00Z`); d = new Date(d.getTime() + 86_400_000))
    out.push(d.toISOString().slice(0, 10));
  return out;
}
const hoursOf = (dayKeys: readonly string[]) =>
  dayKeys.flatMap((day) => Array.from({ length: 24 }, (_, h) => `${day}T${String(h).padStart(2, "0")}`));

/** The partition keys of an asset stored as CSV, sorted. */
async function csvKeys(dir: string, asset: string): Promise<string[]> {
  const [dataset, table] = asset.split(".") as [string, string];
  const files = await listFiles(join(dir, "data", dataset, table));
  return files.filter((f) => f.endsWith("/data.csv")).map((f) => f.split("/")[0]!.split("=")[1]!);
}

async function csv(dir: string, asset: string, column: string, key: string): Promise<Record<string, string>[]> {
  const [dataset, table] = asset.split(".") as [string, string];
  return readCsv(join(dir, "data", partitionFile(dataset, table, column, key)));
}

/** The sum of the orders' amounts over some days, read from the CSV files. */
async function revenueOf(dir: string, dayKeys: readonly string[]): Promise<number> {
  let sum = 0;
  for (const day of dayKeys) for (const row of await csv(dir, "shop.orders", "date", day)) sum += Number(row["amount"]);
  return sum;
}

function sqlite<T>(dir: string, query: string): T[] {
  const db = new Database(join(dir, "warehouse.db"), { readonly: true });
  try {
    return db.prepare(query).all() as T[];
  } finally {
    db.close();
  }
}

const JANUARY_AND_A_BIT = days("2026-01-01", "2026-02-03");
/** ISO weeks wholly inside 2026-01-01 (a Thursday) .. 2026-02-03 (a Tuesday). */
const WEEKS = {
  "2026-W02": days("2026-01-05", "2026-01-11"),
  "2026-W03": days("2026-01-12", "2026-01-18"),
  "2026-W04": days("2026-01-19", "2026-01-25"),
  "2026-W05": days("2026-01-26", "2026-02-01"),
};

/** Asserts what a run of WINDOW over the whole project left in `dir`. */
async function expectWindowWritten(dir: string): Promise<void> {
  expect(await csvKeys(dir, "shop.orders")).toEqual(JANUARY_AND_A_BIT);
  expect(await csvKeys(dir, "shop.daily_revenue")).toEqual(JANUARY_AND_A_BIT);
  expect(await csvKeys(dir, "web.daily_events")).toEqual(JANUARY_AND_A_BIT);
  expect(await csvKeys(dir, "web.events")).toEqual(hoursOf(JANUARY_AND_A_BIT));
  expect(await csvKeys(dir, "shop.weekly_orders")).toEqual(Object.keys(WEEKS));
  expect(await csvKeys(dir, "shop.monthly_revenue")).toEqual(["2026-01"]);
  expect(await listFiles(join(dir, "data", "shop", "customers"))).toContain("data.csv");
}

describe("a window over the whole project", () => {
  let dir: string;

  it("a fresh project: everything runs but the summary of regions, which waits for the list asset no window names (exit 1, with the command that runs it)", async () => {
    dir = await project();
    const result = await run(dir, ["materialize", "--window", "2026-01-01"]);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.errLines).toContain(SKIP_STOCK);
    expect(result.stderr).toContain(
      'Not run, waiting for upstream data that is not stored:\n  shop.region_summary: "shop.stock_by_region" eu..asia\n',
    );
    expect(result.stderr).toContain(
      "Upstream data is missing: materialize it too (+ selects everything upstream) with:\n  interloper materialize +shop.region_summary\n",
    );
    expect(await csvKeys(dir, "shop.orders")).toEqual(["2026-01-01"]);
    expect(await csvKeys(dir, "web.events")).toEqual(hoursOf(["2026-01-01"]));
    expect(await listFiles(join(dir, "data", "shop", "region_summary"))).toEqual([]);
  });

  it("a list asset selected alone with no window runs all its values; the unpartitioned summary reads them", async () => {
    const stock = await run(dir, ["materialize", "stock_by_region"]);
    expect(stock.exitCode, stock.stderr).toBe(0);
    expect(await csvKeys(dir, "shop.stock_by_region")).toEqual(["asia", "eu", "us"]);
    const summary = await run(dir, ["materialize", "region_summary"]);
    expect(summary.exitCode, summary.stderr).toBe(0);
    const [row, ...rest] = await readCsv(join(dir, "data", "shop", "region_summary", "data.csv"));
    expect(rest).toEqual([]);
    expect(row).toEqual({ regions: "3", units: "60" });
    expect(sqlite<{ region: string; units: number }>(dir, 'SELECT region, units FROM "shop.stock_by_region" ORDER BY units')).toEqual([
      { region: "eu", units: 10 },
      { region: "us", units: 20 },
      { region: "asia", units: 30 },
    ]);
  });

  it(
    `materialize --window ${WINDOW} with no selection: each asset its partitions wholly inside, the list asset skipped with one line, exit 0`,
    async () => {
      const result = await run(dir, ["materialize", "--window", WINDOW]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.errLines.filter((line) => line.startsWith("Skipping"))).toEqual([SKIP_STOCK]);
      await expectWindowWritten(dir);

      // The rollups, against the days they read.
      const january = days("2026-01-01", "2026-01-31");
      const [month, ...more] = await csv(dir, "shop.monthly_revenue", "month", "2026-01");
      expect(more).toEqual([]);
      expect(month!["month"]).toBe("2026-01-01");
      expect(Number(month!["days"])).toBe(31);
      expect(Number(month!["revenue"])).toBe(await revenueOf(dir, january));
      for (const [week, weekDays] of Object.entries(WEEKS)) {
        const [row] = await csv(dir, "shop.weekly_orders", "week", week);
        expect(row!["week"], week).toBe(weekDays[0]);
        expect(Number(row!["days"]), week).toBe(7);
        expect(Number(row!["revenue"]), week).toBe(await revenueOf(dir, weekDays));
      }
      const [daily] = await csv(dir, "web.daily_events", "date", "2026-01-20");
      // Two pages an hour, views hour + page index: 24 hours, sum of (2h + 1).
      expect(daily).toEqual({ date: "2026-01-20", hours: "24", views: String(24 * 23 + 24) });

      // SQLite holds the same.
      expect(sqlite<{ n: number }>(dir, 'SELECT COUNT(DISTINCT date) AS n FROM "shop.orders"')).toEqual([{ n: 34 }]);
      expect(sqlite<{ n: number }>(dir, 'SELECT COUNT(*) AS n FROM "shop.daily_revenue"')).toEqual([{ n: 34 }]);
      const stored = sqlite<{ days: number; revenue: number }>(dir, 'SELECT days, revenue FROM "shop.monthly_revenue"');
      expect(stored).toEqual([{ days: 31, revenue: Number(month!["revenue"]) }]);
      const weeks = sqlite<{ revenue: number }>(dir, 'SELECT revenue FROM "shop.weekly_orders" ORDER BY week');
      expect(weeks.map((w) => w.revenue)).toEqual(await Promise.all(Object.values(WEEKS).map((d) => revenueOf(dir, d))));
      const [sums] = sqlite<{ total: number }>(
        dir,
        `SELECT SUM(amount) AS total FROM "shop.orders" WHERE date BETWEEN '2026-01-01' AND '2026-01-31'`,
      );
      expect(sums!.total).toBe(Number(month!["revenue"]));
    },
    SLOW,
  );

  it("plan --json: the skipped asset with its reason, and the runs in stage order (every day of orders before the month)", async () => {
    const result = await run(dir, ["plan", "--window", WINDOW, "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout) as {
      skipped: Array<{ asset: string; reason: string }>;
      runs: Array<{ partition: string | null; assets: string[] }>;
    };
    expect(plan.skipped).toEqual([{ asset: "shop.stock_by_region", reason: STOCK_REASON }]);
    const at = (asset: string, partition: string | null) =>
      plan.runs.findIndex((r) => r.partition === partition && r.assets.includes(asset));
    const month = at("shop.monthly_revenue", "2026-01");
    expect(month).toBeGreaterThan(-1);
    expect(plan.runs.filter((r) => r.assets.includes("shop.monthly_revenue")).map((r) => r.partition)).toEqual(["2026-01"]);
    for (const day of JANUARY_AND_A_BIT) {
      expect(at("shop.orders", day), day).toBeGreaterThan(-1);
      expect(at("shop.orders", day), day).toBeLessThan(month);
      expect(at("web.daily_events", day), day).toBeGreaterThan(Math.max(...hoursOf([day]).map((h) => at("web.events", h))));
    }
    expect(plan.runs.filter((r) => r.assets.includes("shop.customers"))).toEqual([{ partition: null, assets: ["shop.customers"] }]);
    expect(
      plan.runs
        .filter((r) => r.assets.includes("shop.weekly_orders"))
        .map((r) => r.partition)
        .sort(),
    ).toEqual(Object.keys(WEEKS));

    const text = await run(dir, ["plan", "--window", WINDOW]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.outLines).toContain(SKIP_STOCK);
  });

  it("--missing after deleting one day of orders and the month: re-runs exactly that day and the month", async () => {
    await rm(join(dir, "data", "shop", "orders", "date=2026-01-15"), { recursive: true });
    await rm(join(dir, "data", "shop", "monthly_revenue", "month=2026-01"), { recursive: true });
    const plan = await run(dir, ["plan", "--missing", "--window", WINDOW, "--json"]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    const runs = (JSON.parse(plan.stdout) as { runs: Array<{ partition: string | null; assets: string[] }> }).runs;
    expect(runs).toEqual([
      { partition: "2026-01-15", assets: ["shop.orders"] },
      { partition: "2026-01", assets: ["shop.monthly_revenue"] },
    ]);
    const result = await run(dir, ["materialize", "--missing", "--window", WINDOW, "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const started = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; asset?: string; partition?: string })
      .filter((e) => e.type === "asset:started")
      .map((e) => `${e.asset} ${e.partition}`);
    expect(started).toEqual(["shop.orders 2026-01-15", "shop.monthly_revenue 2026-01"]);
    await expectWindowWritten(dir);
    const [month] = await csv(dir, "shop.monthly_revenue", "month", "2026-01");
    expect(Number(month!["revenue"])).toBe(await revenueOf(dir, days("2026-01-01", "2026-01-31")));
  });
});

describe("from a subfolder, with Dagster's A...B spelling", () => {
  it(
    "runs the same partitions, beside the config, nothing in the subfolder",
    async () => {
      const dir = await project();
      const stock = await run(join(dir, "sub"), ["materialize", "stock_by_region"]);
      expect(stock.exitCode, stock.stderr).toBe(0);
      const result = await run(join(dir, "sub"), ["materialize", "--window", WINDOW.replace("..", "...")]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.errLines).toContain(SKIP_STOCK);
      await expectWindowWritten(dir);
      expect(await listFiles(join(dir, "sub"))).toEqual([]);
      expect(sqlite<{ n: number }>(dir, 'SELECT COUNT(*) AS n FROM "shop.monthly_revenue"')).toEqual([{ n: 1 }]);
    },
    SLOW,
  );
});

describe("a window that covers a month partly", () => {
  it("2026-02-10..2026-03-31: the monthly asset runs March, not February; weeks wholly inside only", async () => {
    const dir = await project();
    const result = await run(dir, ["materialize", "orders", "weekly_orders", "monthly_revenue", "--window", "2026-02-10..2026-03-31"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await csvKeys(dir, "shop.monthly_revenue")).toEqual(["2026-03"]);
    expect(await csvKeys(dir, "shop.orders")).toEqual(days("2026-02-10", "2026-03-31"));
    // 2026-02-10 is a Tuesday: W07 (from 02-09) is not wholly inside; W13 ends on 03-29, W14 on 04-05.
    expect(await csvKeys(dir, "shop.weekly_orders")).toEqual(["2026-W08", "2026-W09", "2026-W10", "2026-W11", "2026-W12", "2026-W13"]);
    const [march] = await csv(dir, "shop.monthly_revenue", "month", "2026-03");
    expect(Number(march!["days"])).toBe(31);
    expect(Number(march!["revenue"])).toBe(await revenueOf(dir, days("2026-03-01", "2026-03-31")));
  });
});

describe("a month whose days are not stored waits for them", () => {
  it("reports the missing days by range and the command that runs them too; runs once they are stored", async () => {
    const dir = await project();
    const waiting = (range: string) =>
      `Not run, waiting for upstream data that is not stored:\n  shop.monthly_revenue 2026-03: "shop.orders" ${range}\n`;
    const plus =
      "Upstream data is missing: materialize it too (+ selects everything upstream) with:\n  interloper materialize +shop.monthly_revenue --window 2026-03\n";

    const none = await run(dir, ["materialize", "monthly_revenue", "--window", "2026-03"]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain(waiting("2026-03-01..2026-03-31"));
    expect(none.stderr).toContain(plus);
    expect(await csvKeys(dir, "shop.monthly_revenue")).toEqual([]);

    const first = await run(dir, ["materialize", "orders", "--window", "2026-03-01..2026-03-10"]);
    expect(first.exitCode, first.stderr).toBe(0);
    const part = await run(dir, ["materialize", "monthly_revenue", "--window", "2026-03"]);
    expect(part.exitCode).toBe(1);
    expect(part.stderr).toContain(waiting("2026-03-11..2026-03-31"));
    expect(part.stderr).toContain(plus);
    const json = await run(dir, ["materialize", "monthly_revenue", "--window", "2026-03", "--json"]);
    expect(json.exitCode).toBe(1);
    const canceled = json.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; asset?: string; partition?: string; reason?: string })
      .filter((e) => e.type === "asset:canceled");
    expect(canceled).toMatchObject([
      { asset: "shop.monthly_revenue", partition: "2026-03", reason: 'waiting for "shop.orders" 2026-03-11..2026-03-31' },
    ]);
    expect(await csvKeys(dir, "shop.monthly_revenue")).toEqual([]);

    // The printed command: the rest of March's days, then the month.
    const all = await run(dir, ["materialize", "+shop.monthly_revenue", "--window", "2026-03"]);
    expect(all.exitCode, all.stderr).toBe(0);
    const [march] = await csv(dir, "shop.monthly_revenue", "month", "2026-03");
    expect(Number(march!["days"])).toBe(31);
    expect(Number(march!["revenue"])).toBe(await revenueOf(dir, days("2026-03-01", "2026-03-31")));
  });
});

describe("an upstream failure inside the same backfill", () => {
  it("cancels the month; the summary names the failed day and re-runs the day before the month", async () => {
    const dir = await project();
    const env = { INTERLOPER_FAIL_ORDERS: "2026-04-15" };
    const result = await run(dir, ["materialize", "orders", "monthly_revenue", "--window", "2026-04", "--no-fail-fast", "--json"], env);
    expect(result.exitCode).toBe(1);
    const events = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; asset?: string; partition?: string; reason?: string });
    expect(events.filter((e) => e.type === "asset:canceled")).toMatchObject([
      { asset: "shop.monthly_revenue", partition: "2026-04", reason: 'its dependency "shop.orders" 2026-04-15 failed' },
    ]);
    expect(await csvKeys(dir, "shop.orders")).toEqual(days("2026-04-01", "2026-04-30").filter((d) => d !== "2026-04-15"));
    expect(await csvKeys(dir, "shop.monthly_revenue")).toEqual([]);

    const text = await run(dir, ["materialize", "orders", "monthly_revenue", "--window", "2026-04", "--no-fail-fast"], env);
    expect(text.exitCode).toBe(1);
    expect(text.stderr).toContain("Failed: 29 of 31 partitions completed, 1 failed, 1 skipped (upstream failed)");
    expect(text.stderr).toContain(
      'SKIP [31/31] 2026-04  skipped (upstream failed): shop.monthly_revenue: its dependency "shop.orders" 2026-04-15 failed',
    );
    expect(text.stderr).toContain(
      '  2026-04-15: shop.orders: asset "shop.orders" failed for 2026-04-15: orders feed unavailable for 2026-04-15\n',
    );
    expect(text.stderr).toContain(
      'Not run, an upstream partition did not complete:\n  shop.monthly_revenue 2026-04: its dependency "shop.orders" 2026-04-15 failed\n',
    );
    // The day first: run in the order printed, the month then finds every day stored.
    expect(text.stderr).toContain(
      "Re-run what did not complete with:\n  interloper materialize shop.orders --partition 2026-04-15\n  interloper materialize shop.monthly_revenue --partition 2026-04\n",
    );
    expect(await csvKeys(dir, "shop.monthly_revenue")).toEqual([]);
  });
});
