// Partitions of several dimensions on the command line (issue 36, item 5), through the built CLI:
// list and plan name the dimensions, --values narrows a list dimension (and refuses a value not
// declared), a project-wide window runs every combination and the assets that read them, a
// failed combination fails alone, coverage draws one row per combination, and the explorer's `m`
// materializes the one combination under its cursor.
import { execa } from "execa";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, installPackages, oneLineError, usePreparedSandbox, useSandboxes, type CliResult, type Sandbox } from "./helpers.js";

const CONFIG = `
import * as il from "interloper";

const base = process.env["INTERLOPER_TEST_DATA"] ?? "./data";
const failOn = new Set((process.env["FAIL_ON"] ?? "").split(";").filter(Boolean));
const REGIONS = ["eu", "us", "apac"];
const day = () => new il.TimePartitionConfig({ column: "date", start: "2026-01-01" });
const regions = () => new il.ListPartitionConfig({ column: "region", values: REGIONS });
const sum = (rows: unknown) => (rows as Array<{ units: number }>).reduce((s, r) => s + Number(r.units), 0);

// Units of a region's day: the day of the month times 1 (eu), 10 (us) or 100 (apac).
const stock = il.asset({
  key: "stock",
  partitioning: new il.MultiPartitionConfig({ date: day(), region: regions() }),
  run(ctx) {
    const { date, region } = (ctx.partition as il.MultiPartition).keys;
    if (failOn.has(ctx.partition!.key)) throw new Error(\`the \${region} API is down\`);
    return [{ date, region, units: Number(date!.slice(8)) * 10 ** REGIONS.indexOf(region!) }];
  },
});

const daily_total = il.asset({
  key: "daily_total",
  partitioning: day(),
  requires: { stock },
  run: (ctx, deps) => [{ date: ctx.partition!.key, units: sum(deps.stock), regions: (deps.stock as unknown[]).length }],
});

const monthly_stock = il.asset({
  key: "monthly_stock",
  partitioning: new il.MultiPartitionConfig({
    month: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH, start: "2026-01" }),
    region: regions(),
  }),
  requires: { stock },
  run(ctx, deps) {
    const { month, region } = (ctx.partition as il.MultiPartition).keys;
    return [{ month, region, units: sum(deps.stock), days: (deps.stock as unknown[]).length }];
  },
});

export default il.defineConfig({
  sources: [
    il.source({ key: "shop", assets: [stock, daily_total, monthly_stock] })({ destinations: new il.CSVDestination({ basePath: base }) }),
  ],
});
`;

// One fixed "now" for every command: coverage expects 2026-01-01..2026-02-04 whatever the clock says.
const NOW = "2026-02-05T12:00:00Z";
const sandbox = useSandboxes();

async function prepare(box: Sandbox): Promise<void> {
  await installPackages(box.dir);
  await box.write("interloper.config.ts", CONFIG);
}

type Partition = { key: string; status: string; rows: number | null; keys: Record<string, string> };

/** The partition keys a materialize run reports as run (its `ok` or `FAIL` lines, on stderr), in the order printed. */
const ranKeys = (result: CliResult, mark = "ok|FAIL") =>
  result.errLines.flatMap((line) => new RegExp(`^(?:${mark})\\s+(?:\\[\\s*\\d+/\\d+\\]\\s+)?(\\S+)`).exec(line)?.slice(1) ?? []);
/** The keys of the stock runs of a plan's JSON. */
const stockRuns = (result: CliResult) =>
  (JSON.parse(result.stdout) as { runs: Array<{ partition: string; assets: string[] }> }).runs
    .filter((r) => r.assets.includes("shop.stock"))
    .map((r) => r.partition);
/** Terminal output as text: escape sequences (colours, cursor moves) removed. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\u001b[()][A-Z0-9]/g, "");
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

describe("multi partitions on the command line", () => {
  const box = usePreparedSandbox(sandbox, prepare);
  const run = (args: readonly string[], env: Record<string, string> = {}) =>
    box.run(args, { config: null, env: { INTERLOPER_NOW: NOW, ...env } });
  const json = async <T>(args: readonly string[]): Promise<T> => {
    const result = await run(args);
    expect(result.exitCode, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };
  const stockCoverage = async (window: string) =>
    (await json<{ partitions: Partition[] }>(["coverage", "stock", "-w", window, "--json"])).partitions;

  it("list and plan name the dimensions; --values narrows, adds up when repeated, and refuses a value not declared", async () => {
    const list = await run(["list"]);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.outLines).toContain(
      `  partitioning  keys date|region: date = day on "date" from 2026-01-01; region = list on "region": eu, us, apac`,
    );
    expect(list.outLines).toContain(
      `  partitioning  keys month|region: month = month on "month" from 2026-01; region = list on "region": eu, us, apac`,
    );

    const plan = await run(["plan", "-w", "2026-01-01..2026-01-02"]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.outLines).toContain("Keys of shop.stock are date|region: date (day) | region (eu, us, apac)");
    expect(plan.outLines).toContain("1. 2026-01-02|eu  shop.stock");
    expect(plan.outLines).toContain("6. 2026-01-01|apac  shop.stock");
    expect(plan.outLines).toContain("8. 2026-01-01  shop.daily_total");

    // A whole month: every combination of stock, every day of the total, and each region's month.
    const month = await json<{ runs: Array<{ partition: string; assets: string[] }>; dimensions: Record<string, string[]> }>([
      "plan",
      "-w",
      "2026-01-01..2026-01-31",
      "--json",
    ]);
    expect(month.dimensions).toEqual({ "shop.stock": ["date", "region"], "shop.monthly_stock": ["month", "region"] });
    expect(month.runs).toHaveLength(31 * 3 + 31 + 3);
    expect(month.runs.filter((r) => r.assets.includes("shop.monthly_stock")).map((r) => r.partition)).toEqual([
      "2026-01|eu",
      "2026-01|us",
      "2026-01|apac",
    ]);

    const narrowed = await run(["plan", "-w", "2026-01-01..2026-01-02", "--values", "region=eu,us", "--json"]);
    expect(stockRuns(narrowed)).toEqual(["2026-01-02|eu", "2026-01-02|us", "2026-01-01|eu", "2026-01-01|us"]);
    const twice = await run(["plan", "-w", "2026-01-01..2026-01-02", "--values", "region=eu", "--values", "region=apac", "--json"]);
    expect(stockRuns(twice)).toEqual(["2026-01-02|eu", "2026-01-02|apac", "2026-01-01|eu", "2026-01-01|apac"]);

    const bad = await run(["plan", "-w", "2026-01-01..2026-01-02", "--values", "region=mars"]);
    expect(bad.exitCode).toBe(2);
    const line = oneLineError(bad);
    expect(line).toContain(`"mars" is not a declared value`);
    expect(line).toContain("eu, us, apac");
  });

  it("a combination of a period not begun is refused as a time key is; --include-current lets it run (issue 41, item 28)", async () => {
    for (const args of [
      ["materialize", "stock", "-p", "2026-06-01|eu"],
      ["materialize", "stock", "-p", "9999-12-31|eu"],
      ["plan", "stock", "-w", "2026-02-01..2026-02-09|eu,us"],
    ]) {
      const refused = await run(args);
      expect(refused.exitCode, refused.stderr).toBe(2);
      expect(oneLineError(refused)).toMatch(
        /^interloper: (partition|window) \S+ (has|reaches \S+, which has) not begun \(now is 2026-02-05T12:00:00.000Z\)/,
      );
    }
    const meant = await run(["plan", "stock", "-p", "2026-06-01|eu", "--include-current", "--json"]);
    expect(meant.exitCode, meant.stderr).toBe(0);
    expect(stockRuns(meant)).toEqual(["2026-06-01|eu"]);
  });

  it("a project-wide window runs each combination, the day across its regions and each region's month", async () => {
    const result = await run(["materialize", "-w", "2026-01-01..2026-01-31"]);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toContain("Done: 127 of 127 partitions completed");

    // CSV gives every value back as text. Day 5: 5 (eu) + 50 (us) + 500 (apac).
    expect(await json(["show", "daily_total", "-p", "2026-01-05", "--format", "json"])).toEqual([
      { date: "2026-01-05", units: "555", regions: "3" },
    ]);
    // eu's January: 1 + 2 + ... + 31.
    expect(await json(["show", "monthly_stock", "-w", "2026-01|eu", "--format", "json"])).toEqual([
      { month: "2026-01", region: "eu", units: "496", days: "31" },
    ]);
    expect(await json(["show", "stock", "-p", "date=2026-01-05,region=us", "--format", "json"])).toEqual([
      { date: "2026-01-05", region: "us", units: "50" },
    ]);
    expect(await json(["show", "monthly_stock", "-w", "2026-01", "--values", "region=apac", "--format", "json"])).toEqual([
      { month: "2026-01", region: "apac", units: "49600", days: "31" },
    ]);
  });

  it("a failed combination fails alone, coverage names it with its keys, and --missing runs just it", async () => {
    const failed = await run(["materialize", "stock", "-w", "2026-02-01..2026-02-02"], { FAIL_ON: "2026-02-02|us" });
    expect(failed.exitCode).not.toBe(0);
    expect(failed.stdout + failed.stderr).toContain("the us API is down");
    expect(ranKeys(failed, "FAIL")).toEqual(["2026-02-02|us"]);
    expect(ranKeys(failed, "ok").sort()).toEqual(["2026-02-01|apac", "2026-02-01|eu", "2026-02-01|us", "2026-02-02|apac", "2026-02-02|eu"]);

    const partitions = await stockCoverage("2026-02-01..2026-02-02");
    expect(partitions.filter((p) => p.status === "materialized")).toHaveLength(5);
    expect(partitions.filter((p) => p.status !== "materialized")).toEqual([
      { key: "2026-02-02|us", status: "missing", rows: null, keys: { date: "2026-02-02", region: "us" } },
    ]);

    const again = await run(["materialize", "stock", "--missing", "-w", "2026-02-01..2026-02-02"]);
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    expect(ranKeys(again)).toEqual(["2026-02-02|us"]);
    // Nothing is missing now: plan says so, as materialize does, rather than planning a backfill of 0 runs.
    const none = await run(["plan", "stock", "--missing", "-w", "2026-02-01..2026-02-02"]);
    expect([none.exitCode, none.outLines[0]]).toEqual([0, "Nothing to do: no partition is missing in 2026-02-01..2026-02-02."]);
  });

  it("coverage draws one row per combination, one combination's calendar with --values, and keeps --json whole", async () => {
    // Not a terminal: the plain lines. Up to yesterday (2026-02-04), nothing of 2026-02-03.. is stored yet.
    const all = await run(["coverage", "--html", "report.html"]);
    expect(all.exitCode, all.stderr).toBe(0);
    const line = (asset: string) => all.outLines.find((l) => l.startsWith(`${asset} `));
    for (const region of ["eu", "us", "apac"]) {
      expect(line(`shop.stock[${region}]`)).toMatch(/ 33\/35 +33 rows +missing 2026-02-03\.\.2026-02-04$/);
      expect(line(`shop.monthly_stock[${region}]`)).toMatch(/ 1\/1 +1 row$/);
    }
    expect(line("shop.daily_total")).toMatch(/ 31\/35 +31 rows +missing 2026-02-01\.\.2026-02-04$/);
    expect(all.outLines).toHaveLength(7);
    expect(await readFile(join(box.dir, "report.html"), "utf8")).toContain("shop.stock[eu]");

    const rows = await run(["coverage", "stock", "-w", "2026-01-01..2026-01-31"]);
    expect(rows.exitCode, rows.stderr).toBe(0);
    expect(rows.outLines[0]).toBe("shop.stock  date (day) x region (eu, us, apac): 3 combinations, 2026-01-01..2026-01-31");
    expect(rows.outLines.slice(1, 4).map((l) => l.split(/ +/)[0])).toEqual(["[eu]", "[us]", "[apac]"]);
    for (const row of rows.outLines.slice(1, 4)) expect(row).toMatch(/ 31\/31 +31 rows$/);
    expect(rows.outLines).toContain("expected 93  materialized 93  empty 0  missing 0  unexpected 0");

    const one = await run(["coverage", "stock", "--values", "region=us", "-w", "2026-01-01..2026-01-31"]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.outLines).toContain(`shop.stock[us]  day partitions on "date", 2026-01-01..2026-01-31`);
    expect(one.outLines).toContain("expected 31  materialized 31  empty 0  missing 0  unexpected 0");

    // --json: the asset whole (not cut into combinations), each partition with its keys.
    const whole = await json<{ asset: string; expected: number; partitions: Partition[] }>(["coverage", "stock", "--json"]);
    expect(whole.asset).toBe("shop.stock");
    expect(whole.expected).toBe(35 * 3);
    expect(whole.partitions.find((p) => p.key === "2026-01-05|apac")?.keys).toEqual({ date: "2026-01-05", region: "apac" });
  });

  it(
    "in the explorer (a pseudo-terminal): ↓ to a combination, ← to a missing day, m materializes that combination only",
    { timeout: 120_000 },
    async () => {
      // eu's 2026-02-03..2026-02-04 stored; us and apac missing there.
      const eu = await run(["materialize", "stock", "-w", "2026-02-03..2026-02-04", "--values", "region=eu"]);
      expect(eu.exitCode, eu.stdout + eu.stderr).toBe(0);

      const command = `stty cols 100 rows 40; exec ${quote(process.execPath)} ${quote(BIN)} coverage -i`;
      const child = execa("script", ["-qfec", command, "/dev/null"], {
        cwd: box.dir,
        env: {
          INTERLOPER_TEST_DATA: box.data,
          INTERLOPER_NOW: NOW,
          NO_COLOR: "1",
          CI: undefined,
          FORCE_COLOR: undefined,
          DEBUG: undefined,
        },
        reject: false,
        timeout: 110_000,
      });
      let screen = "";
      let exited = false;
      const waiters: Array<() => void> = [];
      const wakeAll = () => {
        for (const wake of waiters.splice(0)) wake();
      };
      child.stdout!.on("data", (chunk: Buffer) => {
        screen += chunk.toString("utf8");
        wakeAll();
      });
      // An explorer that exits (a crash) fails the wait at once, with its last screen, rather than at the test's timeout.
      child.on("exit", () => {
        exited = true;
        wakeAll();
      });
      /** Resolves, with the length of the output then, once the output from `from` on shows `text`. */
      const shows = (text: string, from = 0) =>
        new Promise<number>((resolve, reject) => {
          const look = () => {
            if (plain(screen.slice(from)).includes(text)) resolve(screen.length);
            else if (exited)
              reject(new Error(`the explorer exited before showing ${JSON.stringify(text)}:\n${plain(screen).slice(-2000)}`));
            else waiters.push(look);
          };
          look();
        });
      const type = (keys: string) => child.stdin!.write(keys);

      // It opens on the first combination, at its day in progress (as a time asset's calendar does).
      let seen = await shows("q quit");
      expect(plain(screen)).toContain("shop.stock[eu] 2026-02-05: in progress, nothing stored so far");
      for (const asset of ["shop.stock[us]", "shop.stock[apac]", "shop.monthly_stock[eu]"]) expect(plain(screen)).toContain(`  ${asset} `);
      type("\u001b[B");
      seen = await shows("shop.stock[us] 2026-02-05: in progress", seen);
      type("\u001b[D");
      seen = await shows("shop.stock[us] 2026-02-04: missing; m materializes 2026-02-03..2026-02-04", seen);
      type("\u001b[D");
      seen = await shows("shop.stock[us] 2026-02-03: missing; m materializes 2026-02-03..2026-02-04", seen);
      type("m");
      // Both from the frame before m, as the message and the refreshed view may come in one write.
      await shows("materialize shop.stock -w 2026-02-03..2026-02-04|us: done; coverage refreshed", seen);
      // The refreshed explorer opens where it was: on the day just written.
      await shows("shop.stock[us] 2026-02-03: 1 row", seen);
      type("q");
      const result = await child;
      expect(result.exitCode, plain(screen).slice(-2000)).toBe(0);

      // us's two days are stored now; apac's same days are still missing, nothing else ran.
      const partitions = await stockCoverage("2026-02-01..2026-02-04");
      expect(partitions.filter((p) => p.status !== "materialized").map((p) => p.key)).toEqual(["2026-02-03|apac", "2026-02-04|apac"]);
    },
  );
});
