// The benchmark's assets, built with the *built* package (dist/), as a user would import it.
import { z } from "zod";
import * as il from "../../dist/index.js";
import { rowBatches, rowsForDay } from "./rows.mjs";

export { il };

export const Order = z.object({
  date: z.iso.date(),
  order_id: z.number().int(),
  customer: z.string(),
  amount: z.number(),
  status: z.string(),
});

export const YEAR_2025 = "2025-01-01..2025-12-31";

/**
 * A daily `orders` asset in a `shop` source, bound to `destination`.
 * rows: rows per partition. stream: return an async iterable of row batches instead of an array.
 */
export function shopProject({ destination, rows = 10_000, stream = false, start = "2016-01-01", schema = true }) {
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date", start }),
    ...(schema ? { schema: Order } : {}),
    run(context) {
      const day = il.TimeGranularity.DAY.format(context.partitionDate);
      return stream ? rowBatches(day, rows) : rowsForDay(day, rows);
    },
  });
  const Shop = il.source({ key: "shop", assets: [orders] });
  const shop = Shop({ destinations: destination });
  return { shop, orders: shop.assets.orders, dag: new il.DAG(shop) };
}

/** Throws unless a run or backfill result completed, with the first error found. */
export function assertCompleted(result, what) {
  if (result.status === "completed") return;
  const runs = result.partitions ? result.partitions.map((p) => p.result).filter(Boolean) : [result];
  for (const run of runs) {
    for (const execution of Object.values(run.assetExecutions ?? {})) {
      if (execution.error) throw new Error(`${what} ${result.status}: ${execution.error.message ?? execution.error}`);
    }
  }
  throw new Error(`${what} ended ${result.status}`);
}
