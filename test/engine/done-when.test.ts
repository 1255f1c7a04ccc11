// The "done when": one module defines sources and assets; one call materializes a day,
// a window or a backfill into CSV files, which read back typed.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { listFiles } from "../contract/temp-dir.js";
import { day, days, tempDir } from "./helpers.js";

// ---- the user's module -------------------------------------------------------------------

const CustomerSchema = z.object({ id: z.number().int(), name: z.string(), vip: z.boolean() });
const OrderSchema = z.object({
  date: z.iso.date(),
  id: z.number().int(),
  customer: z.number().int(),
  amount: z.number(),
  note: z.string().nullable(),
});
const TotalSchema = z.object({ date: z.iso.date(), revenue_eur: z.number(), vip_orders: z.number().int() });
const RateSchema = z.object({ ccy: z.string(), rate: z.number() });

const windowedDaily = () => new il.TimePartitionConfig({ column: "date", start: "2026-01-01", allowWindow: true });
const executions: string[] = [];

const rates = il.asset({ key: "rates", schema: RateSchema, run: () => (executions.push("rates"), [{ ccy: "USD", rate: 0.5 }]) });
const Fx = il.source({ key: "fx", assets: [rates] });

const customers = il.asset({
  key: "customers",
  schema: CustomerSchema,
  run: () => (
    executions.push("customers"),
    [
      { id: 1, name: "Ann", vip: true },
      { id: 2, name: "Bob", vip: false },
    ]
  ),
});

const orders = il.asset({
  key: "orders",
  partitioning: windowedDaily(),
  schema: OrderSchema,
  strategy: "strict",
  run: (ctx) => {
    executions.push(`orders ${String(ctx.window)}`);
    return ctx.window!.partitions.flatMap((p, i) => [
      { date: p.key, id: i * 2 + 1, customer: 1, amount: 10 + i, note: null },
      { date: p.key, id: i * 2 + 2, customer: 2, amount: 4, note: "gift" },
    ]);
  },
});

const dailyTotals = il.asset({
  key: "daily_totals",
  partitioning: windowedDaily(),
  schema: TotalSchema,
  requires: { orders, customers, rates: "fx.rates" },
  run: (ctx, deps) => {
    executions.push(`daily_totals ${String(ctx.window)}`);
    const rate = (deps.rates as Array<{ rate: number }>)[0]!.rate;
    const vip = new Set(deps.customers.filter((c) => c.vip).map((c) => c.id));
    return ctx.window!.partitions.map((p) => {
      const mine = deps.orders.filter((o) => o.date === p.key);
      return {
        date: p.key,
        revenue_eur: mine.reduce((sum, o) => sum + o.amount, 0) * rate,
        vip_orders: mine.filter((o) => vip.has(o.customer)).length,
      };
    });
  },
});

const Shop = il.source({ key: "shop", assets: [customers, orders, dailyTotals] });

function pipeline(basePath: string): il.DAG {
  const csv = new il.CSVDestination({ basePath });
  return new il.DAG(Shop({ destinations: csv }), Fx({ destinations: csv }));
}

// ---- the tests -----------------------------------------------------------------------------

describe("done when: a module of sources and assets materialized into CSV", () => {
  let dir: { path: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir();
    executions.length = 0;
  });
  afterEach(async () => {
    await dir.remove();
  });

  const dataFiles = async () => (await listFiles(dir.path)).filter((f) => !f.split("/").pop()!.startsWith("."));

  it("materializes a day with one call and reads it back typed", async () => {
    const dag = pipeline(dir.path);
    const result = await dag.materialize(day("2026-01-02"));
    expect(result.status).toBe("completed");
    expect(await dataFiles()).toEqual([
      "fx/rates/data.csv",
      "shop/customers/data.csv",
      "shop/daily_totals/date=2026-01-02/data.csv",
      "shop/orders/date=2026-01-02/data.csv",
    ]);
    const raw = await readFile(join(dir.path, "shop/orders/date=2026-01-02/data.csv"), "utf8");
    expect(raw.split(/\r?\n/)[0]).toBe("date,id,customer,amount,note");

    const back = OrderSchema.array().parse(await dag.find("shop.orders")!.read(day("2026-01-02")));
    expectTypeOf(back).toEqualTypeOf<z.output<typeof OrderSchema>[]>();
    expect(back).toEqual([
      { date: "2026-01-02", id: 1, customer: 1, amount: 10, note: null },
      { date: "2026-01-02", id: 2, customer: 2, amount: 4, note: "gift" },
    ]);
    const totals = TotalSchema.array().parse(await dag.find("shop.daily_totals")!.read(day("2026-01-02")));
    expect(totals).toEqual([{ date: "2026-01-02", revenue_eur: 7, vip_orders: 1 }]);
    const people = CustomerSchema.array().parse(await dag.find("shop.customers")!.read());
    expect(people.map((c) => c.vip)).toEqual([true, false]);
  });

  it("materializes a window as one execution per asset, stored per partition", async () => {
    const dag = pipeline(dir.path);
    const result = await dag.materialize(days("2026-01-03", "2026-01-05"));
    expect(result.status).toBe("completed");
    expect(executions.filter((e) => e.startsWith("orders"))).toEqual(["orders 2026-01-03..2026-01-05"]);
    expect(executions.filter((e) => e.startsWith("daily_totals"))).toEqual(["daily_totals 2026-01-03..2026-01-05"]);
    expect((await dataFiles()).filter((f) => f.startsWith("shop/daily_totals/"))).toEqual([
      "shop/daily_totals/date=2026-01-03/data.csv",
      "shop/daily_totals/date=2026-01-04/data.csv",
      "shop/daily_totals/date=2026-01-05/data.csv",
    ]);
    const totals = TotalSchema.array().parse(await dag.find("shop.daily_totals")!.read(days("2026-01-03", "2026-01-05")));
    expect(totals).toEqual([
      { date: "2026-01-03", revenue_eur: 7, vip_orders: 1 },
      { date: "2026-01-04", revenue_eur: 7.5, vip_orders: 1 },
      { date: "2026-01-05", revenue_eur: 8, vip_orders: 1 },
    ]);
  });

  it("backfills a window one partition per run and reads the whole range back typed", async () => {
    const dag = pipeline(dir.path);
    const result = await il.backfill(dag, days("2026-01-06", "2026-01-08"), { concurrency: 2 });
    expect(result.status).toBe("completed");
    expect(result.partitions.map((p) => p.key)).toEqual(["2026-01-08", "2026-01-07", "2026-01-06"]);
    expect(executions.filter((e) => e === "customers" || e === "rates").sort()).toEqual(["customers", "rates"]);
    expect(executions.filter((e) => e.startsWith("orders")).sort()).toEqual([
      "orders 2026-01-06",
      "orders 2026-01-07",
      "orders 2026-01-08",
    ]);
    expect(await dag.find("shop.orders")!.partitionRowCounts()).toEqual({ "2026-01-06": 2, "2026-01-07": 2, "2026-01-08": 2 });
    const totals = TotalSchema.array().parse(await dag.find("shop.daily_totals")!.read(days("2026-01-06", "2026-01-08")));
    expect(totals).toEqual([
      { date: "2026-01-06", revenue_eur: 7, vip_orders: 1 },
      { date: "2026-01-07", revenue_eur: 7, vip_orders: 1 },
      { date: "2026-01-08", revenue_eur: 7, vip_orders: 1 },
    ]);
  });

  it("combines a day, a window and a backfill in one store", async () => {
    const dag = pipeline(dir.path);
    expect((await dag.materialize(day("2026-01-01"))).status).toBe("completed");
    expect((await dag.materialize(days("2026-01-02", "2026-01-03"))).status).toBe("completed");
    expect((await il.backfill(dag, days("2026-01-04", "2026-01-05"))).status).toBe("completed");
    const counts = await dag.find("shop.daily_totals")!.partitionRowCounts();
    expect(Object.keys(counts)).toEqual(["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05"]);
    const all = OrderSchema.array().parse(await dag.find("shop.orders")!.read(days("2026-01-01", "2026-01-05")));
    expect(all).toHaveLength(10);
    expect(all.every((o) => typeof o.amount === "number" && (o.note === null || typeof o.note === "string"))).toBe(true);
  });
});
