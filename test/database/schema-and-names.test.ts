import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IOContext, type AssetRef } from "../../src/destination/index.js";
import { SchemaError } from "../../src/errors.js";
import { TimeGranularity, TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { FieldSpec } from "../../src/schema/index.js";
import { dialects, type DialectHarness } from "./dialects.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const ctx = (asset: AssetRef, window: PartitionWindow | Partition | null, schema: readonly FieldSpec[] | null) =>
  new IOContext({ asset, window, schema, metadata: { runId: "r" } });
const day = (d: string) => new TimePartitionWindow(d, d, TimeGranularity.DAY);

const v1: FieldSpec[] = [
  { name: "date", type: "date", nullable: false },
  { name: "id", type: "integer", nullable: false },
];
const v2: FieldSpec[] = [...v1, { name: "note", type: "string", nullable: true }];

// Names that would end the quoted identifier and run a statement if quoting were wrong.
const EVIL_TABLE = 'x"`; DROP TABLE y; --';
const EVIL_DATASET = "d\"`'; DROP SCHEMA s; --";
const EVIL_COLUMN = 'c"`; DELETE FROM y; --';

for (const dialect of await dialects()) {
  describe.skipIf(!dialect.available)(`tables, schemas and names (${dialect.name})`, () => {
    let h: DialectHarness;
    beforeEach(() => {
      h = dialect.make();
    });
    afterEach(() => h.cleanup());
    const orders: AssetRef = {
      key: "shop.orders",
      table: "orders",
      dataset: "shop",
      partitioning: daily,
      description: 'Orders; it\'s "quoted" \\ text',
    };

    it("adds a column a later schema adds; older rows read it as null", async () => {
      await h.destination.write(ctx(orders, day("2026-01-01"), v1), [{ date: "2026-01-01", id: 1 }]);
      await h.destination.write(ctx(orders, day("2026-01-02"), v2), [{ date: "2026-01-02", id: 2, note: "new" }]);
      const window = new TimePartitionWindow("2026-01-01", "2026-01-02", TimeGranularity.DAY);
      expect(await h.destination.read(ctx(orders, window, v2))).toEqual([
        { date: "2026-01-01", id: 1, note: null },
        { date: "2026-01-02", id: 2, note: "new" },
      ]);
    });

    it("refuses a changed column type with a SchemaError naming the column", async () => {
      await h.destination.write(ctx(orders, day("2026-01-01"), v1), [{ date: "2026-01-01", id: 1 }]);
      const changed: FieldSpec[] = [v1[0]!, { name: "id", type: "string", nullable: false }];
      const error = await h.destination
        .write(ctx(orders, day("2026-01-02"), changed), [{ date: "2026-01-02", id: "two" }])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as Error).message).toContain('"id"');
      expect(await h.destination.read(ctx(orders, day("2026-01-01"), v1))).toEqual([{ date: "2026-01-01", id: 1 }]);
    });

    it("creates the table without a schema, from the rows", async () => {
      await h.destination.write(ctx(orders, day("2026-01-01"), null), [{ date: "2026-01-01", id: 1, ok: true }]);
      expect(await h.destination.read(ctx(orders, day("2026-01-01"), [...v1, { name: "ok", type: "boolean", nullable: true }]))).toEqual([
        { date: "2026-01-01", id: 1, ok: true },
      ]);
    });

    it("quotes table, dataset and column names: none can inject SQL", async () => {
      const y: AssetRef = { key: "evil.y", table: "y", dataset: EVIL_DATASET, partitioning: null };
      const ySchema: FieldSpec[] = [{ name: "id", type: "integer", nullable: false }];
      await h.destination.write(ctx(y, null, ySchema), [{ id: 1 }]);

      const evil: AssetRef = {
        key: "evil.x",
        table: EVIL_TABLE,
        dataset: EVIL_DATASET,
        partitioning: new TimePartitionConfig({ column: EVIL_COLUMN }),
      };
      const schema: FieldSpec[] = [
        { name: EVIL_COLUMN, type: "date", nullable: false },
        { name: "v", type: "string", nullable: true },
      ];
      const row = { [EVIL_COLUMN]: "2026-01-01", v: "'); DROP TABLE y; --" };
      await h.destination.write(ctx(evil, day("2026-01-01"), schema), [row]);
      expect(await h.destination.read(ctx(evil, day("2026-01-01"), schema))).toEqual([row]);
      expect(await h.destination.partitionRowCounts(ctx(evil, null, schema))).toEqual({ "2026-01-01": 1 });
      await h.destination.write(ctx(evil, day("2026-01-01"), schema), []);
      expect(await h.destination.read(ctx(y, null, ySchema))).toEqual([{ id: 1 }]);
    });
  });
}
