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
 * The checks a workload may put on `orders` (issue 35), by name, so that a child process is told
 * them in its JSON options. "four": W1-CHECKS's four built-ins (notNull on two columns, unique
 * on the id, acceptedValues on the status, range on the amount); "unique": W7-UNIQUE's one.
 * Every row of rows.mjs passes them all: the workloads time checks that pass, as a day's data does.
 */
export const CHECK_SETS = {
  four: () => [
    il.checks.notNull("order_id", "amount"),
    il.checks.unique("order_id"),
    il.checks.acceptedValues("status", ["paid", "refunded", "pending"]),
    il.checks.range("amount", { min: 0 }),
  ],
  unique: () => [il.checks.unique("order_id")],
};

/**
 * A daily `orders` asset in a `shop` source, bound to `destination`.
 * rows: rows per partition. stream: return an async iterable of row batches instead of an array.
 * checks: the name of one of CHECK_SETS, or none.
 */
export function shopProject({ destination, rows = 10_000, stream = false, start = "2016-01-01", schema = true, checks }) {
  if (checks !== undefined && !Object.hasOwn(CHECK_SETS, checks))
    throw new Error(`unknown check set ${JSON.stringify(checks)}; expected one of ${Object.keys(CHECK_SETS).join(", ")}`);
  const orders = il.asset({
    key: "orders",
    partitioning: new il.TimePartitionConfig({ column: "date", start }),
    ...(schema ? { schema: Order } : {}),
    ...(checks ? { checks: CHECK_SETS[checks]() } : {}),
    run(context) {
      const day = il.TimeGranularity.DAY.format(context.partitionDate);
      return stream ? rowBatches(day, rows) : rowsForDay(day, rows);
    },
  });
  const Shop = il.source({ key: "shop", assets: [orders] });
  const shop = Shop({ destinations: destination });
  return { shop, orders: shop.assets.orders, dag: new il.DAG(shop) };
}

/**
 * Throws unless the last write of `partition` recorded `expected` check verdicts, all passed: the
 * proof that a workload with checks ran them (read after the clock stops). Returns their messages.
 */
export async function assertChecked(orders, partition, expected) {
  const [record] = await orders.history(partition, { limit: 1 });
  const verdicts = record?.checks ?? [];
  if (verdicts.length !== expected || verdicts.some((v) => !v.passed))
    throw new Error(`${partition}: expected ${expected} passed checks in its record, found ${JSON.stringify(verdicts)}`);
  return verdicts.map((v) => `${v.name}: ${v.message}`);
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
