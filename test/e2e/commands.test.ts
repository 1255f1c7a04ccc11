// `list`, `plan`, `show` and `--help` end to end, on the shop fixture project.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, orderCount, useSandboxes, type Sandbox } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

interface Described {
  key: string;
  source: string | null;
  partitioning: Record<string, unknown> | null;
  destinations: { key: string; type: string; default: boolean }[];
  dependencies: { name: string; asset: string | null; optional: boolean }[];
  schema: { name: string; type: string; nullable: boolean }[] | null;
}

/** A sandbox holding orders for 2026-01-01..2026-01-03 and the customers. */
let stocked: Promise<Sandbox> | undefined;
function withOrders(): Promise<Sandbox> {
  stocked ??= (async () => {
    const box = await sandbox();
    const orders = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-03"]);
    expect(orders.exitCode, orders.stderr).toBe(0);
    const customers = await box.run(["materialize", "shop.customers"]);
    expect(customers.exitCode, customers.stderr).toBe(0);
    return box;
  })();
  return stocked;
}

describe.concurrent("list", () => {
  it("prints every asset with its partitioning, storage, dependencies and schema", async () => {
    const box = await sandbox();
    const result = await box.run(["list"]);
    expect(result.exitCode, result.stderr).toBe(0);
    for (const key of ["shop.orders", "shop.daily_revenue", "shop.events", "shop.customers", "regions.sales", "archive.customers"])
      expect(result.stdout).toMatch(new RegExp(`^${key.replace(".", "\\.")}\\b`, "m"));
    expect(result.stdout).toContain("2020-01-01");
    expect(result.stdout).toContain("eu, us, apac");
    expect(result.stdout).toMatch(/shop\.orders/);
    expect(result.stdout).toContain("order_id");
    expect(result.stdout).toMatch(/windows allowed/);
    expect(result.stdout).toMatch(/unpartitioned/);
  });

  it("--json prints one parseable array with key, source, partitioning, destinations, dependencies and schema", async () => {
    const box = await sandbox();
    const result = await box.run(["list", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const assets = JSON.parse(result.stdout) as Described[];
    expect(assets.map((a) => a.key).sort()).toEqual([
      "archive.customers",
      "regions.sales",
      "shop.customers",
      "shop.daily_revenue",
      "shop.events",
      "shop.orders",
    ]);
    for (const asset of assets) {
      for (const field of ["key", "source", "partitioning", "destinations", "dependencies", "schema"])
        expect(asset, asset.key).toHaveProperty(field);
    }
    const byKey = Object.fromEntries(assets.map((a) => [a.key, a]));
    const orders = byKey["shop.orders"]!;
    expect(orders.source).toBe("shop");
    expect(orders.partitioning).toMatchObject({ kind: "time", column: "date", granularity: "day", allowWindow: false });
    expect(String(orders.partitioning!["start"])).toMatch(/^2020-01-01/);
    expect(orders.destinations).toHaveLength(1);
    expect(orders.destinations[0]!.type).toMatch(/CSV/);
    expect(orders.schema!.map((f) => f.name)).toEqual(["date", "order_id", "amount", "status"]);
    expect(byKey["shop.daily_revenue"]!.dependencies).toEqual([{ name: "orders", asset: "shop.orders", optional: false }]);
    expect(byKey["shop.events"]!.partitioning).toMatchObject({ allowWindow: true });
    expect(byKey["regions.sales"]!.partitioning).toMatchObject({ kind: "list", column: "region", values: ["eu", "us", "apac"] });
    expect(byKey["shop.customers"]!.partitioning).toBeNull();
    expect(byKey["archive.customers"]!.schema).toBeNull();
  });
});

describe.concurrent("plan", () => {
  it("prints the runs of a backfill in order, newest first by default", async () => {
    const box = await sandbox();
    const result = await box.run(["plan", "orders", "-w", "2026-01-01..2026-01-03"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines[0]).toMatch(/3 runs.*newest first.*2026-01-01\.\.2026-01-03/);
    expect(result.outLines.slice(1).map((l) => l.trim())).toEqual([
      "1. 2026-01-03  shop.orders",
      "2. 2026-01-02  shop.orders",
      "3. 2026-01-01  shop.orders",
    ]);
    expect(await box.files()).toEqual([]);
  });

  it("--json gives the mode, window, order, assets and runs", async () => {
    const box = await sandbox();
    const backfill = await box.run(["plan", "orders", "daily_revenue", "-w", "2026-01-01..2026-01-02", "--order", "oldest", "--json"]);
    expect(backfill.exitCode, backfill.stderr).toBe(0);
    expect(JSON.parse(backfill.stdout)).toEqual({
      mode: "backfill",
      window: "2026-01-01..2026-01-02",
      order: "oldest",
      assets: ["shop.orders", "shop.daily_revenue"],
      runs: [
        { partition: "2026-01-01", assets: ["shop.orders", "shop.daily_revenue"] },
        { partition: "2026-01-02", assets: ["shop.orders", "shop.daily_revenue"] },
      ],
      skipped: [],
    });
    const whole = await box.run(["plan", "events", "-w", "2026-01-01..2026-01-07", "--json"]);
    expect(JSON.parse(whole.stdout)).toMatchObject({
      mode: "run",
      window: "2026-01-01..2026-01-07",
      runs: [{ partition: "2026-01-01..2026-01-07", assets: ["shop.events"] }],
    });
    const list = await box.run(["plan", "sales", "-w", "eu..apac", "--json"]);
    expect(JSON.parse(list.stdout)).toMatchObject({
      mode: "backfill",
      runs: [{ partition: "apac" }, { partition: "us" }, { partition: "eu" }],
    });
    expect(await box.files()).toEqual([]);
  });

  it("plans an unpartitioned asset as one run with no partition", async () => {
    const box = await sandbox();
    const result = await box.run(["plan", "shop.customers", "--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ mode: "run", window: null, runs: [{ partition: null, assets: ["shop.customers"] }] });
  });
});

describe.concurrent("show", () => {
  it("prints a partition as a table by default, with the row count", async () => {
    const box = await withOrders();
    const result = await box.run(["show", "orders", "-p", "2026-01-01"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines[0]).toMatch(/^date\s+order_id\s+amount\s+status$/);
    expect(result.outLines.filter((l) => l.startsWith("2026-01-01"))).toHaveLength(orderCount("2026-01-01"));
    expect(result.stdout).toContain(`${orderCount("2026-01-01")} rows`);
  });

  it("--format json prints rows typed by the schema", async () => {
    const box = await withOrders();
    const result = await box.run(["show", "orders", "-p", "2026-01-02", "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(rows).toHaveLength(orderCount("2026-01-02"));
    expect(rows[0]).toEqual({ date: "2026-01-02", order_id: 2026010200, amount: 1.5, status: "refunded" });
    for (const row of rows) {
      expect(typeof row["order_id"]).toBe("number");
      expect(typeof row["amount"]).toBe("number");
    }
  });

  it("--format csv prints a header and the rows", async () => {
    const box = await withOrders();
    const result = await box.run(["show", "orders", "-p", "2026-01-03", "--format", "csv"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines[0]).toBe("date,order_id,amount,status");
    expect(result.outLines).toHaveLength(1 + orderCount("2026-01-03"));
    expect(result.outLines[1]).toBe("2026-01-03,2026010300,1.5,refunded");
  });

  it("--limit cuts the rows of a window and says how many there are", async () => {
    const box = await withOrders();
    const total = orderCount("2026-01-01") + orderCount("2026-01-02") + orderCount("2026-01-03");
    const table = await box.run(["show", "orders", "-w", "2026-01-01..2026-01-03", "--limit", "2"]);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.outLines.filter((l) => /^2026-01-0\d\s/.test(l))).toHaveLength(2);
    expect(table.stdout).toContain(`2 of ${total} rows`);
    const json = await box.run(["show", "orders", "-w", "2026-01-01..2026-01-03", "--limit", "3", "--format", "json"]);
    expect(JSON.parse(json.stdout)).toHaveLength(3);
    const all = await box.run(["show", "orders", "-w", "2026-01-01..2026-01-03", "--limit", "0", "--format", "csv"]);
    expect(all.outLines).toHaveLength(1 + total);
  });

  it("shows an unpartitioned asset whole", async () => {
    const box = await withOrders();
    const result = await box.run(["show", "shop.customers", "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { customer: "c001", segment: "consumer" },
      { customer: "c002", segment: "business" },
    ]);
  });

  it("a partition never written is a one-line error naming it, exit 2", async () => {
    const box = await withOrders();
    const result = await box.run(["show", "orders", "-p", "2026-06-01"]);
    expect(result.exitCode).toBe(2);
    expect(result.errLines).toHaveLength(1);
    expect(result.errLines[0]).toContain("2026-06-01");
    expect(result.stderr).not.toContain("    at ");
  });
});

describe.concurrent("--help", () => {
  it.each([[[]], [["materialize"]], [["plan"]], [["list"]], [["show"]]] as const)(
    "interloper %j --help: exit 0, usage on stdout",
    async (command) => {
      const box = await sandbox();
      const result = await box.run([...command, "--help"], { config: null });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Usage: interloper/);
      expect(result.stderr).toBe("");
      if (command.length === 0) for (const name of ["materialize", "plan", "list", "show"]) expect(result.stdout).toContain(name);
      if (command[0] === "materialize")
        for (const option of [
          "--partition",
          "--window",
          "--lookback",
          "--offset",
          "--tz",
          "--order",
          "--concurrency",
          "--no-fail-fast",
          "--dry-run",
          "--json",
        ])
          expect(result.stdout).toContain(option);
      if (command[0] === "materialize" || command[0] === "show") expect(result.stdout).toMatch(/Examples:\n\s+\$ interloper /);
    },
  );

  it("help works without a config (run in an empty folder)", async () => {
    const box = await sandbox();
    const result = await box.run(["help", "materialize"], { config: null });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("Examples");
  });
});
