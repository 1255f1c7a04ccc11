// An example project: run it with
//   npx interloper materialize -c interloper.config.example.ts --window 2012-01-01..2012-01-31
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/sync";
import { z } from "zod";
import * as il from "interloper";

const data = new il.CSVDestination({ basePath: "./data" });

// --- Seattle weather: daily observations from a public-domain NOAA extract (2012-2015) ---------

const Weather = z.object({
  date: z.iso.date(),
  precipitation: z.number(),
  temp_max: z.number(),
  temp_min: z.number(),
  wind: z.number(),
  weather: z.string(),
});

const weatherFile = fileURLToPath(new URL("./fixtures/seattle-weather.csv", import.meta.url));
let weatherRows: Record<string, string>[] | undefined;

const observations = il.asset({
  key: "observations",
  description: "Daily weather in Seattle, one row per day",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2012-01-01" }),
  schema: Weather,
  strategy: "reconcile", // the file holds text; reconcile turns it into the schema's types
  run(context) {
    weatherRows ??= parse(readFileSync(weatherFile), { columns: true }) as Record<string, string>[];
    const day = il.TimeGranularity.DAY.format(context.partitionDate);
    return weatherRows.filter((row) => row.date === day);
  },
});

const WeatherSource = il.source({ key: "weather", assets: [observations] });

// --- A shop: deterministic orders per day, their daily revenue, and the customers --------------

const Order = z.object({
  date: z.iso.date(),
  order_id: z.number().int(),
  customer: z.string(),
  amount: z.number(),
  status: z.string(),
});

const customers = il.asset({
  key: "customers",
  description: "Every customer (unpartitioned: rewritten whole on each run)",
  schema: z.object({ customer: z.string(), segment: z.string() }),
  run: () =>
    Array.from({ length: 20 }, (_, i) => ({ customer: `c${String(i).padStart(3, "0")}`, segment: i % 4 === 0 ? "business" : "consumer" })),
});

const orders = il.asset({
  key: "orders",
  description: "Orders placed each day",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2012-01-01" }),
  schema: Order,
  run(context) {
    const day = il.TimeGranularity.DAY.format(context.partitionDate);
    const seed = Number(day.replaceAll("-", ""));
    return Array.from({ length: 25 + (seed % 17) }, (_, i) => ({
      date: day,
      order_id: seed * 100 + i,
      customer: `c${String((seed + i * 7) % 20).padStart(3, "0")}`,
      amount: Math.round(((seed * (i + 3)) % 20_000) + 100) / 100,
      status: (seed + i) % 11 === 0 ? "refunded" : "paid",
    }));
  },
});

const revenue = il.asset({
  key: "daily_revenue",
  description: "Paid revenue per day, from orders",
  partitioning: new il.TimePartitionConfig({ column: "date", start: "2012-01-01" }),
  schema: z.object({ date: z.iso.date(), orders: z.number().int(), revenue: z.number() }),
  requires: { orders },
  run(context, { orders }) {
    const paid = orders.filter((order) => order.status === "paid");
    const total = paid.reduce((sum, order) => sum + order.amount, 0);
    return [{ date: il.TimeGranularity.DAY.format(context.partitionDate), orders: paid.length, revenue: Math.round(total * 100) / 100 }];
  },
});

const Shop = il.source({ key: "shop", assets: [customers, orders, revenue] });

export default il.defineConfig({
  sources: [WeatherSource({ destinations: data }), Shop({ destinations: data })],
  concurrency: 4,
});
