// Multi partitions in the SQL destinations, beyond the contract: one column per dimension,
// filtered each (never a joined key), an index over all of them, and the row counts of every
// combination from one query.
import { describe, expect, it } from "vitest";
import { SQLiteDestination } from "../../src/destination/database/index.js";
import { IOContext } from "../../src/destination/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import { stock, stockConfig, stockRows, stockSchema } from "../contract/multi.js";

/** A SQLite destination that keeps every statement it runs. */
class Watched extends SQLiteDestination {
  readonly statements: string[] = [];
  protected override run(sql: string, params?: readonly unknown[]): Promise<Row[]> {
    this.statements.push(sql);
    return super.run(sql, params);
  }
}

const ctx = (window: PartitionWindow | Partition | null) =>
  new IOContext({ asset: stock, window, schema: stockSchema, metadata: { runId: "r" } });

describe("SQLiteDestination with multi partitions", () => {
  it("stores each dimension in its own column, indexed together in declared order", async () => {
    const dest = new Watched({ path: ":memory:" });
    try {
      await dest.write(ctx(stockConfig.window("2026-01-05", "2026-01-06")), stockRows());
      const indexes = dest.statements.filter((sql) => sql.startsWith("CREATE INDEX") && sql.includes('"shop.stock"'));
      expect(indexes).toEqual([expect.stringMatching(/ON "shop\.stock" \("date", "region" DESC\)$/)]);
      const stored = await dest.select("stock", "shop", [{ column: "region", value: "us" }]);
      expect(stored!.map((row) => [row["date"], row["region"], row["sku"]])).toEqual([
        ["2026-01-06", "us", 1],
        ["2026-01-05", "us", 5],
      ]);
    } finally {
      await dest.close();
    }
  });

  it("selects, replaces and counts by every dimension's column, never by a joined key", async () => {
    const dest = new Watched({ path: ":memory:" });
    try {
      await dest.write(ctx(stockConfig.window("2026-01-05", "2026-01-06")), stockRows());
      dest.statements.length = 0;
      await dest.write(ctx(stockConfig.partition("2026-01-05|eu")), [{ date: "2026-01-05", region: "eu", sku: 9, qty: 9 }]);
      const deletes = dest.statements.filter((sql) => sql.startsWith('DELETE FROM "shop.stock"'));
      expect(deletes).toEqual(['DELETE FROM "shop.stock" WHERE ("date" >= ? AND "date" < ?) AND ("region" = ?)']);
      expect(dest.statements.join("\n")).not.toContain("2026-01-05|eu");

      dest.statements.length = 0;
      const counts = await dest.partitionRowCounts(ctx(null));
      expect(counts["2026-01-05|eu"]).toBe(1);
      const counting = dest.statements.filter((sql) => sql.includes("COUNT(*)") && sql.includes('"shop.stock"'));
      expect(counting).toHaveLength(1);
      expect(counting[0]).toContain('"region"');
    } finally {
      await dest.close();
    }
  });
});
