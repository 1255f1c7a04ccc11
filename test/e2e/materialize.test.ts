// `interloper materialize` end to end: partitions, windows as backfills and as one execution,
// list partitions, --json, --dry-run and --lookback, on the shop fixture project.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { dayIn, ensureBuilt, orderCount, partitionFile, readCsv, useSandboxes } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

interface JsonEvent {
  readonly type: string;
  readonly runId?: string;
  readonly partition?: string;
  readonly asset?: string;
  readonly [field: string]: unknown;
}

function parseLines(stdout: string): JsonEvent[] {
  const lines = stdout.split("\n");
  expect(lines.at(-1)).toBe(""); // ends with a newline
  return lines.slice(0, -1).map((line) => JSON.parse(line) as JsonEvent);
}

describe.concurrent("materialize", () => {
  it("materializes one partition (-p) into its partition file", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-p", "2026-01-05"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual([partitionFile("shop", "orders", "date", "2026-01-05")]);
    const rows = await readCsv(join(box.data, partitionFile("shop", "orders", "date", "2026-01-05")));
    expect(rows).toHaveLength(orderCount("2026-01-05"));
    expect(rows.every((row) => row["date"] === "2026-01-05")).toBe(true);
    // CI output: plain lines on stderr (one per finished run, then the summary), no escapes.
    expect(result.stderr).toMatch(/^ok\s+shop\.orders\s+3 rows/m);
    expect(result.stderr).toMatch(/^Done: /m);
    expect(result.stderr).not.toContain("\u001b[");
  });

  it("runs a window of an asset without allowWindow as a backfill: one file per partition", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-04"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const days = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"];
    expect(await box.dataFiles()).toEqual(days.map((d) => partitionFile("shop", "orders", "date", d)));
    for (const day of days)
      expect(await readCsv(join(box.data, partitionFile("shop", "orders", "date", day)))).toHaveLength(orderCount(day));
    // One plain line per finished partition, then the summary.
    expect(result.errLines.filter((line) => /^ok\s+\[\d\/4\]/.test(line))).toHaveLength(4);
    const total = days.reduce((sum, d) => sum + orderCount(d), 0);
    expect(result.stderr).toContain(`Done: 4 of 4 partitions completed, ${total} rows`);
  });

  it("runs a window of an asset with allowWindow as one execution", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "events", "-w", "2026-01-01..2026-01-03", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = parseLines(result.stdout);
    expect(events.filter((e) => e.type === "asset:started")).toHaveLength(1);
    expect(events.filter((e) => e.type === "run:started")).toEqual([
      expect.objectContaining({ partition: "2026-01-01..2026-01-03", assets: ["shop.events"] }),
    ]);
    expect(events.some((e) => e.type.startsWith("backfill:"))).toBe(false);
    // The asset's own log says it saw the whole window.
    expect(events.filter((e) => e.type === "log").map((e) => e["message"])).toEqual(["events run for 2026-01-01..2026-01-03"]);
    expect(await box.dataFiles()).toEqual(
      ["2026-01-01", "2026-01-02", "2026-01-03"].map((d) => partitionFile("shop", "events", "date", d)),
    );
  });

  it("materializes a list partition (-p eu) and a list window (-w eu..us)", async () => {
    const box = await sandbox();
    const one = await box.run(["materialize", "sales", "-p", "eu"]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual([partitionFile("regions", "sales", "region", "eu")]);
    const window = await box.run(["materialize", "sales", "-w", "eu..us"]);
    expect(window.exitCode, window.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual([
      partitionFile("regions", "sales", "region", "eu"),
      partitionFile("regions", "sales", "region", "us"),
    ]);
    expect(window.stderr).toContain("Done: 2 of 2 partitions completed");
    const rows = await readCsv(join(box.data, partitionFile("regions", "sales", "region", "us")));
    expect(rows.map((r) => r["region"])).toEqual(["us", "us", "us"]);
  });

  it("without CI, output that is not a terminal still gets plain lines (no ink, no escapes)", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-02"], {
      env: { CI: undefined, NO_COLOR: undefined },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.errLines.filter((line) => /^ok\s+\[\d\/2\]/.test(line))).toHaveLength(2);
    expect(result.stderr).toContain("Done: 2 of 2 partitions completed");
    expect(result.stderr).not.toContain("\u001b[");
  });

  it("a single key given as --window is a window of one", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-w", "2026-03-01"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual([partitionFile("shop", "orders", "date", "2026-03-01")]);
  });

  it("materializes an asset with its dependency in one run, and an unpartitioned asset by qualified key", async () => {
    const box = await sandbox();
    const both = await box.run(["materialize", "orders", "daily_revenue", "-p", "2026-01-02"]);
    expect(both.exitCode, both.stderr).toBe(0);
    const revenue = await readCsv(join(box.data, partitionFile("shop", "daily_revenue", "date", "2026-01-02")));
    expect(revenue).toHaveLength(1);
    const customers = await box.run(["materialize", "shop.customers"]);
    expect(customers.exitCode, customers.stderr).toBe(0);
    expect(await box.dataFiles()).toContain("shop/customers/data.csv");
  });

  it("--json writes only JSON lines on stdout, with runIds, for a backfill", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-03", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = parseLines(result.stdout);
    const types = new Set(events.map((e) => e.type));
    for (const type of ["backfill:started", "run:started", "asset:started", "asset:completed", "run:completed", "backfill:completed"])
      expect(types).toContain(type);
    for (const event of events) {
      expect(typeof event.runId, JSON.stringify(event)).toBe("string");
      expect(event.runId!.length).toBeGreaterThan(0);
      expect(typeof event["time"]).toBe("string");
    }
    expect(events.filter((e) => e.type === "run:started")).toHaveLength(3);
    const completed = events.filter((e) => e.type === "asset:completed");
    expect(completed.map((e) => e.partition).sort()).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"]);
    for (const e of completed) expect(e["rows"]).toBe(orderCount(e.partition!));
    // Every run of the backfill has its own runId; the backfill's events carry the backfill's.
    const backfill = events.find((e) => e.type === "backfill:started")!;
    expect(events.find((e) => e.type === "backfill:completed")!.runId).toBe(backfill.runId);
    expect(backfill["partitions"]).toEqual(["2026-01-03", "2026-01-02", "2026-01-01"]);
    expect(new Set(events.filter((e) => e.type === "run:started").map((e) => e.runId)).size).toBe(3);
  });

  it("--json on a failing backfill still writes only JSON on stdout and exits 1", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-03", "--json", "--no-fail-fast"], {
      env: { INTERLOPER_FAIL: "2026-01-02" },
    });
    expect(result.exitCode, result.stderr).toBe(1);
    const events = parseLines(result.stdout);
    const failed = events.find((e) => e.type === "asset:failed")!;
    expect(failed.partition).toBe("2026-01-02");
    expect(JSON.stringify(failed["error"])).toContain("orders feed unavailable for 2026-01-02");
    expect(events.map((e) => e.type)).toContain("backfill:failed");
  });

  it("--dry-run on an empty project writes nothing and prints the runs", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-03", "--dry-run"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await box.files()).toEqual([]);
    expect(result.stdout).toMatch(/shop\.orders -> .*CSV/); // the asset and its destination
    for (const day of ["2026-01-01", "2026-01-02", "2026-01-03"]) expect(result.stdout).toContain(day);
    expect(result.stdout).not.toContain("replaces");
  });

  it("--dry-run prints the row counts of stored partitions it would replace, and leaves them unchanged", async () => {
    const box = await sandbox();
    const seeded = await box.run(["materialize", "orders", "-w", "2026-01-02..2026-01-03"]);
    expect(seeded.exitCode, seeded.stderr).toBe(0);
    const before = await box.files();
    const contents = await Promise.all(before.map((f) => readFile(join(box.data, f), "utf8")));
    const result = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-05", "--dry-run"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await box.files()).toEqual(before);
    expect(await Promise.all(before.map((f) => readFile(join(box.data, f), "utf8")))).toEqual(contents);
    expect(result.stdout).toContain(`2026-01-02: ${orderCount("2026-01-02")}`);
    expect(result.stdout).toContain(`2026-01-03: ${orderCount("2026-01-03")}`);
    expect(result.stdout).not.toMatch(/2026-01-0[145]: \d/);
    expect(result.stdout).toContain(`${orderCount("2026-01-02") + orderCount("2026-01-03")} rows`);
    // Every run is listed: five partitions.
    for (const day of ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05"])
      expect(result.stdout).toMatch(new RegExp(`^\\s+${day}: shop\\.orders$`, "m"));
  });

  it("--lookback 3 --offset 1 materializes the three days before today (UTC)", async () => {
    const box = await sandbox();
    const before = new Date();
    const result = await box.run(["materialize", "orders", "--lookback", "3", "--offset", "1", "--json"]);
    const after = new Date();
    expect(result.exitCode, result.stderr).toBe(0);
    const started = parseLines(result.stdout).find((e) => e.type === "backfill:started")!;
    const expected = (now: Date) => `${dayIn("UTC", now, -3)}..${dayIn("UTC", now, -1)}`;
    expect([expected(before), expected(after)]).toContain(started["window"]);
    const [start, end] = String(started["window"]).split("..");
    expect(await box.dataFiles()).toHaveLength(3);
    expect(await box.dataFiles()).toContain(partitionFile("shop", "orders", "date", start!));
    expect(await box.dataFiles()).toContain(partitionFile("shop", "orders", "date", end!));
  });

  it("--tz follows the calendar of the zone (plan --json of --lookback 2 in UTC+14 and UTC-11)", async () => {
    const box = await sandbox();
    for (const zone of ["Pacific/Kiritimati", "Pacific/Pago_Pago"]) {
      const before = new Date();
      const result = await box.run(["plan", "orders", "--lookback", "2", "--tz", zone, "--json"]);
      const after = new Date();
      expect(result.exitCode, result.stderr).toBe(0);
      const plan = JSON.parse(result.stdout) as { window: string };
      // The zone's yesterday and the day before: today is in progress.
      const expected = (now: Date) => `${dayIn(zone, now, -2)}..${dayIn(zone, now, -1)}`;
      expect([expected(before), expected(after)]).toContain(plan.window);
    }
    expect(await box.files()).toEqual([]);
  });
});
