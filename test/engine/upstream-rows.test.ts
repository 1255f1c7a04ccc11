// Reads are native: a database backend's `select` may give columns. A downstream asset still
// receives rows when the upstream declares a schema (its type says rows), and any dependency
// declared with il.Upstream.rows receives rows whatever the destination gives.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";

/** A SQLite backend whose reads come back as columns, as a columnar store's would. */
class ColumnarSQLite extends il.SQLiteDestination {
  // Typed as SQLite's rows for the override; DatabaseDestination takes any table its select gives.
  override async select(table: string, dataset: string | null, where: il.PartitionFilter | null): Promise<il.Row[] | null> {
    const rows = await super.select(table, dataset, where);
    return rows === null ? null : (il.TableData.from(rows)!.to("columns") as unknown as il.Row[]);
  }
}

const day = il.TimePartition.fromKey("2026-01-02");
const partitioning = new il.TimePartitionConfig({ column: "date" });

function run(assets: il.AssetDefinition[], destination: il.Destination): Promise<il.RunResult> {
  const shop = il.source({ key: "shop", assets })({ destinations: destination });
  return new il.DAG(shop).materialize(day);
}

describe("upstream data delivered as rows", () => {
  it("gives a downstream asset rows of an upstream with a schema, though the destination reads columns", async () => {
    const orders = il.asset({
      key: "orders",
      partitioning,
      schema: z.object({ date: z.iso.date(), x: z.number().int() }),
      run: () => [
        { date: "2026-01-02", x: 1 },
        { date: "2026-01-02", x: 2 },
      ],
    });
    const seen: unknown[] = [];
    const total = il.asset({
      key: "total",
      partitioning,
      requires: { orders },
      run: (context, { orders: rows }) => {
        seen.push(rows);
        return [{ date: context.partition!.key, total: rows.reduce((sum, row) => sum + row.x, 0) }];
      },
    });
    const destination = new ColumnarSQLite({ path: ":memory:" });
    try {
      const result = await run([orders, total], destination);
      expect(result.status).toBe("completed");
      expect(seen).toEqual([
        [
          { date: "2026-01-02", x: 1 },
          { date: "2026-01-02", x: 2 },
        ],
      ]);
    } finally {
      await destination.close();
    }
  });

  it("gives il.Upstream.rows dependencies rows, and the others what the destination read", async () => {
    const orders = il.asset({ key: "orders", partitioning, run: () => [{ date: "2026-01-02", x: 1 }] });
    const seen: Record<string, unknown> = {};
    const reader = il.asset({
      key: "reader",
      partitioning,
      requires: { native: orders, rows: il.Upstream.rows(orders), mapped: il.Upstream.rows({ asset: "orders", mapping: il.trailing(1) }) },
      run: (context, dependencies) => {
        Object.assign(seen, dependencies);
        const typed: il.Row[] = dependencies.rows;
        return [{ date: context.partition!.key, n: typed.length }];
      },
    });
    const destination = new ColumnarSQLite({ path: ":memory:" });
    try {
      expect((await run([orders, reader], destination)).status).toBe("completed");
      expect(seen).toEqual({
        native: { date: ["2026-01-02"], x: [1] },
        rows: [{ date: "2026-01-02", x: 1 }],
        mapped: [{ date: "2026-01-02", x: 1 }],
      });
    } finally {
      await destination.close();
    }
  });

  it("refuses rows of data that is no table, naming both assets", async () => {
    const note = il.asset({ key: "note", run: () => "hello" });
    const reader = il.asset({ key: "reader", requires: { note: il.Upstream.rows(note) }, run: () => [] });
    const result = await run([note, reader], new il.MemoryDestination());
    expect(result.status).toBe("failed");
    const error = result.assetExecutions["shop.reader"]!.error!;
    expect(error).toBeInstanceOf(il.SchemaError);
    expect(error.message).toBe(
      'asset "shop.reader" reads "shop.note" as rows (il.Upstream.rows), but its destination gave string "hello", which is no table',
    );
  });

  it('is declared as a dependency spec, and `as` takes "rows" only', () => {
    expect(il.Upstream.rows("shop.orders")).toEqual({ asset: "shop.orders", as: "rows" });
    const refuse = () => il.asset({ key: "a", requires: { o: { asset: "orders", as: "frame" as "rows" } }, run: () => [] });
    expect(refuse).toThrow(il.ConfigError);
    expect(refuse).toThrow('asset "a": requires.o.as must be "rows", got "frame"');
  });
});
