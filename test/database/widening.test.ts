// Integers into number columns (issue 17, item 5): an integer partition written beside number
// partitions is stored in the number column, never refused as a changed type, as long as the
// column holds it exactly. SQLite, PostgreSQL and MariaDB, real servers.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { SchemaError } from "../../src/errors.js";
import { TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { dialects, type DialectHarness } from "./dialects.js";
import { quoteBacktick, quoteDouble } from "../../src/destination/database/sql-dialect.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const ctx = (asset: AssetRef, window: PartitionWindow | Partition | null, schema: readonly FieldSpec[] | null) =>
  new IOContext({ asset, window, schema, metadata: { runId: "r" } });
const day = (d: string) => new TimePartitionWindow(d, d, TimeGranularity.DAY);
const both = new TimePartitionWindow("2026-01-01", "2026-01-02", TimeGranularity.DAY);

const schemaOf = (type: "integer" | "number"): FieldSpec[] => [
  { name: "date", type: "date", nullable: false },
  { name: "amount", type, nullable: true },
];
const revenue: AssetRef = { key: "shop.revenue", table: "revenue", dataset: null, partitioning: daily, description: null };
const TWO_53 = 2n ** 53n;

/** Runs SQL on the harness's own connection, in the dataset it renamed `null` to. */
async function sql(h: DialectHarness, name: string, statement: (table: string) => string): Promise<void> {
  const iso = (h as unknown as { iso?: { rename(d: string | null): string } }).iso;
  const table =
    name === "postgres"
      ? `${quoteDouble(iso!.rename(null))}.${quoteDouble("revenue")}`
      : name === "mysql"
        ? `${quoteBacktick(iso!.rename(null))}.${quoteBacktick("revenue")}`
        : quoteDouble("revenue");
  await (h.destination as unknown as { run(sql: string): Promise<unknown> }).run(statement(table));
}

for (const dialect of await dialects()) {
  describe.skipIf(!dialect.available)(`integers into number columns (${dialect.name})`, () => {
    let h: DialectHarness;
    beforeEach(() => {
      h = dialect.make();
    });
    afterEach(() => h.cleanup());

    it("an integer partition is stored in the column earlier number partitions made", async () => {
      await h.destination.write(ctx(revenue, day("2026-01-01"), schemaOf("number")), [{ date: "2026-01-01", amount: 1.5 }]);
      await h.destination.write(ctx(revenue, day("2026-01-02"), schemaOf("integer")), [{ date: "2026-01-02", amount: 2 }]);
      expect(await h.destination.read(ctx(revenue, both, schemaOf("number")))).toEqual([
        { date: "2026-01-01", amount: 1.5 },
        { date: "2026-01-02", amount: 2 },
      ]);
      expect(await h.destination.read(ctx(revenue, day("2026-01-02"), schemaOf("integer")))).toEqual([{ date: "2026-01-02", amount: 2 }]);
      expect(await h.destination.partitionRowCounts(ctx(revenue, null, null))).toEqual({ "2026-01-01": 1, "2026-01-02": 1 });
    });

    it("without a schema: a whole-number day inferred as integer after a fractional day inferred as number", async () => {
      await h.destination.write(ctx(revenue, day("2026-01-01"), null), [{ date: "2026-01-01", amount: 12.25 }]);
      await h.destination.write(ctx(revenue, day("2026-01-02"), null), [{ date: "2026-01-02", amount: 40 }]);
      const rows = (await h.destination.read(ctx(revenue, both, null))) as Array<{ amount: unknown }>;
      expect(rows.map((r) => r.amount)).toEqual([12.25, 40]);
    });

    it("integers up to 2^53 in magnitude are stored exactly, bigints included; beyond, the write is refused and the partition keeps its rows", async () => {
      await h.destination.write(ctx(revenue, day("2026-01-01"), schemaOf("number")), [{ date: "2026-01-01", amount: 0.5 }]);
      await h.destination.write(ctx(revenue, day("2026-01-02"), schemaOf("integer")), [
        { date: "2026-01-02", amount: Number.MAX_SAFE_INTEGER },
        { date: "2026-01-02", amount: TWO_53 },
        { date: "2026-01-02", amount: -TWO_53 },
      ]);
      const stored = (await h.destination.read(ctx(revenue, day("2026-01-02"), schemaOf("number")))) as Array<{ amount: number }>;
      expect(stored.map((r) => r.amount)).toEqual([Number.MAX_SAFE_INTEGER, 2 ** 53, -(2 ** 53)]);
      const error = await h.destination
        .write(ctx(revenue, day("2026-01-02"), schemaOf("integer")), [
          { date: "2026-01-02", amount: 1 },
          { date: "2026-01-02", amount: TWO_53 + 1n },
        ])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as Error).message).toMatch(
        /cannot write field "amount" at row 1: 9007199254740993 does not fit column "amount" of table revenue \(.+\) exactly: a double holds integers up to 2\^53/,
      );
      expect(((await h.destination.read(ctx(revenue, day("2026-01-02"), schemaOf("number")))) as unknown[]).length).toBe(3);
    });

    it("a number partition into an integer column is still refused: the column would not hold it", async () => {
      await h.destination.write(ctx(revenue, day("2026-01-01"), schemaOf("integer")), [{ date: "2026-01-01", amount: 1 }]);
      const error = await h.destination
        .write(ctx(revenue, day("2026-01-02"), schemaOf("number")), [{ date: "2026-01-02", amount: 1.5 }])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as Error).message).toContain('column "amount" of table revenue');
    });

    if (dialect.name !== "sqlite") {
      const exact = dialect.name === "postgres" ? "numeric" : "DECIMAL(30,0)";
      it(`a ${exact} column holds every integer exactly, bigints beyond 2^53 included`, async () => {
        await h.destination.write(ctx(revenue, day("2026-01-01"), schemaOf("integer")), [{ date: "2026-01-01", amount: 1 }]);
        await sql(h, dialect.name, (table) =>
          dialect.name === "postgres"
            ? `ALTER TABLE ${table} ALTER COLUMN "amount" TYPE numeric`
            : `ALTER TABLE ${table} MODIFY COLUMN \`amount\` DECIMAL(30,0)`,
        );
        // Every write asks the catalog afresh, so it sees the column as altered.
        await h.destination.write(ctx(revenue, day("2026-01-02"), schemaOf("integer")), [{ date: "2026-01-02", amount: 2n ** 60n }]);
        expect(await h.destination.read(ctx(revenue, both, schemaOf("integer")))).toEqual([
          { date: "2026-01-01", amount: 1 },
          { date: "2026-01-02", amount: 2n ** 60n },
        ]);
      });

      const single = dialect.name === "postgres" ? "real" : "FLOAT";
      it(`a single-precision ${single} column is not widened to: it rounds integers past 2^24`, async () => {
        await h.destination.write(ctx(revenue, day("2026-01-01"), schemaOf("integer")), [{ date: "2026-01-01", amount: 1 }]);
        await sql(h, dialect.name, (table) =>
          dialect.name === "postgres"
            ? `ALTER TABLE ${table} ALTER COLUMN "amount" TYPE real`
            : `ALTER TABLE ${table} MODIFY COLUMN \`amount\` FLOAT`,
        );
        const error = await h.destination
          .write(ctx(revenue, day("2026-01-02"), schemaOf("integer")), [{ date: "2026-01-02", amount: 16_777_217 }])
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SchemaError);
        expect((error as Error).message).toContain('column "amount" of table revenue');
      });
    }
  });
}
