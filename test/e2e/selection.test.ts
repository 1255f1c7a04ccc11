// The selection end to end on the shop fixture (shop: orders -> daily_revenue, events,
// customers; regions: sales; archive: customers; tags: orders "sales", daily_revenue "finance"
// and "daily-report", events "web" and "daily-report"): the same selectors and --exclude in
// list, plan, materialize and coverage, and their one-line errors.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, oneLineError, partitionFile, useSandboxes, type Sandbox } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

async function listed(box: Sandbox, args: string[]): Promise<string[]> {
  const result = await box.run(["list", ...args, "--json"]);
  expect(result.exitCode, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { key: string }[]).map((a) => a.key);
}

async function planned(
  box: Sandbox,
  args: string[],
): Promise<{ assets: string[]; runs: { partition: string | null; assets: string[] }[] }> {
  const result = await box.run(["plan", ...args, "--json"]);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe.concurrent("list", () => {
  it("shows only the selected assets, upstream first, with their tags", async () => {
    const box = await sandbox();
    expect(await listed(box, [])).toEqual([
      "shop.orders",
      "shop.daily_revenue",
      "shop.events",
      "shop.customers",
      "regions.sales",
      "archive.customers",
    ]);
    expect(await listed(box, ["orders+"])).toEqual(["shop.orders", "shop.daily_revenue"]);
    expect(await listed(box, ["+daily_revenue"])).toEqual(["shop.orders", "shop.daily_revenue"]);
    expect(await listed(box, ["tag:daily-report"])).toEqual(["shop.daily_revenue", "shop.events"]);
    expect(await listed(box, ["regions", "archive"])).toEqual(["regions.sales", "archive.customers"]);
    expect(await listed(box, ["shop", "--exclude", "tag:finance", "--exclude", "shop.customers"])).toEqual(["shop.orders", "shop.events"]);
    expect(await listed(box, ["--exclude", "shop"])).toEqual(["regions.sales", "archive.customers"]);
    const text = await box.run(["list", "daily_revenue"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^shop\.daily_revenue\n/);
    expect(text.stdout).toMatch(/^ {2}tags {10}finance, daily-report$/m);
    expect(text.stdout).not.toMatch(/^shop\.orders/m);
  });
});

describe.concurrent("plan", () => {
  it("plans the selected materializable assets", async () => {
    const box = await sandbox();
    expect((await planned(box, ["+daily_revenue", "-p", "2026-01-15"])).runs).toEqual([
      { partition: "2026-01-15", assets: ["shop.orders", "shop.daily_revenue"] },
    ]);
    expect((await planned(box, ["orders+", "--exclude", "daily_revenue", "-w", "2026-01-01..2026-01-02"])).assets).toEqual(["shop.orders"]);
    expect((await planned(box, ["tag:daily-report", "-p", "2026-01-15"])).assets).toEqual(["shop.daily_revenue", "shop.events"]);
    expect((await planned(box, ["source:archive"])).runs).toEqual([{ partition: null, assets: ["archive.customers"] }]);
  });

  it("--missing: the selected partitioned assets; an unpartitioned one named by key is refused", async () => {
    const box = await sandbox();
    const plan = await planned(box, ["shop", "--exclude", "events", "--missing", "-w", "2026-01-01..2026-01-02"]);
    expect(plan.assets).toEqual(["shop.orders", "shop.daily_revenue"]);
    expect(plan.runs.map((r) => r.partition)).toEqual(["2026-01-02", "2026-01-01"]);
    const refused = await box.run(["plan", "shop.customers", "--missing"]);
    expect(refused.exitCode).toBe(2);
    expect(oneLineError(refused)).toBe('interloper: asset "shop.customers" is not partitioned: --missing needs a partitioned asset');
  });
});

describe.concurrent("materialize", () => {
  it("runs the selection: +daily_revenue writes both days' orders and revenue; --exclude leaves assets out", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "+daily_revenue", "-w", "2026-01-15..2026-01-16"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const days = ["2026-01-15", "2026-01-16"];
    expect(await box.dataFiles()).toEqual(
      [
        ...days.map((d) => partitionFile("shop", "daily_revenue", "date", d)),
        ...days.map((d) => partitionFile("shop", "orders", "date", d)),
      ].sort(),
    );
    const excluded = await box.run([
      "materialize",
      "shop",
      "--exclude",
      "tag:daily-report",
      "--exclude",
      "orders",
      "--exclude",
      "+daily_revenue",
    ]);
    expect(excluded.exitCode, excluded.stderr).toBe(0);
    expect((await box.dataFiles()).filter((f) => f.includes("customers"))).toEqual(["shop/customers/data.csv"]);
  });
});

describe.concurrent("coverage", () => {
  it("one asset key: one object; several assets: an array of them, as with none; text: one line each", async () => {
    const box = await sandbox();
    const one = await box.run(["coverage", "orders", "-w", "2026-01-01..2026-01-03", "--json"]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ asset: "shop.orders", expected: 3 });
    for (const args of [["orders", "daily_revenue"], ["orders+"], ["tag:sales", "tag:finance"]]) {
      const several = await box.run(["coverage", ...args, "-w", "2026-01-01..2026-01-03", "--json"]);
      expect(several.exitCode, several.stderr).toBe(0);
      expect(
        (JSON.parse(several.stdout) as { asset: string }[]).map((c) => c.asset),
        args.join(" "),
      ).toEqual(["shop.orders", "shop.daily_revenue"]);
    }
    const source = await box.run(["coverage", "shop", "--exclude", "events", "--json"]);
    expect(source.exitCode, source.stderr).toBe(0);
    expect((JSON.parse(source.stdout) as { asset: string }[]).map((c) => c.asset)).toEqual(["shop.orders", "shop.daily_revenue"]);
    const text = await box.run(["coverage", "tag:daily-report", "-w", "2026-01-01..2026-01-03"]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.outLines.map((line) => line.split(/\s+/)[0])).toEqual(["shop.daily_revenue", "shop.events"]);
  });
});

describe.concurrent("bad selections: exit 2, one line naming the selector and the nearest known name, nothing written", () => {
  const cases: Array<{ args: string[]; says: Array<string | RegExp> }> = [
    { args: ["materialize", "+ordrs", "-p", "2026-01-15"], says: ['no asset or source "ordrs"', 'did you mean "orders"'] },
    {
      args: ["materialize", "orders", "--exclude", "tag:sale", "-p", "2026-01-15"],
      says: ['--exclude: no asset has the tag "sale"', 'did you mean "tag:sales"'],
    },
    { args: ["plan", "tag:finanse"], says: ['no asset has the tag "finanse"', 'did you mean "tag:finance"'] },
    { args: ["plan", "source:shp"], says: ['no source "shp"', 'did you mean "source:shop"'] },
    { args: ["coverage", "shop.ordrs"], says: ['no asset "shop.ordrs"', 'did you mean "shop.orders"'] },
    { args: ["coverage", "customers+"], says: ['"customers+" is ambiguous', "shop.customers", "archive.customers"] },
    { args: ["coverage", "archive"], says: ['the selection "archive" leaves no partitioned asset'] },
    { args: ["list", "orders++"], says: ['"orders++" is not a selector', "tag:NAME"] },
    { args: ["list", "regions", "--exclude", "sales"], says: ['the selection "regions --exclude sales" leaves no asset'] },
  ];
  it.each(cases)("$args", async ({ args, says }) => {
    const box = await sandbox();
    const result = await box.run(args);
    expect(result.exitCode, result.stderr).toBe(2);
    const line = oneLineError(result);
    for (const expected of says)
      expect(line).toMatch(expected instanceof RegExp ? expected : new RegExp(expected.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    expect(result.stdout).toBe("");
    expect(await box.files()).toEqual([]);
  });
});
