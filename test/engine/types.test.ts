// Type tests: `expectTypeOf` checks nothing at runtime; `tsc --noEmit` is what proves these.
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";

const OrderSchema = z.object({ id: z.number().int(), date: z.iso.date(), note: z.string().nullable() });
type Order = z.output<typeof OrderSchema>;

const orders = il.asset({
  key: "orders",
  schema: OrderSchema,
  run: () => [{ id: 1, date: "2026-01-01", note: null }],
});

const totals = il.asset({
  key: "totals",
  run: async () => ({ sum: 3, currency: "EUR" as const }),
});

const counts = il.asset({
  key: "counts",
  run: () => [1, 2, 3],
});

describe("dependency types", () => {
  it("types a dependency on a definition with a zod schema as that schema's output array", () => {
    il.asset({
      key: "report",
      requires: { orders },
      run: (_ctx, deps) => {
        expectTypeOf(deps.orders).toEqualTypeOf<Order[]>();
        expectTypeOf(deps.orders[0]!.id).toEqualTypeOf<number>();
        expectTypeOf(deps.orders[0]!.note).toEqualTypeOf<string | null>();
        return [];
      },
    });
    expect(true).toBe(true);
  });

  it("types a dependency on a definition without a schema as the upstream run's (awaited) return type", () => {
    il.asset({
      key: "report",
      requires: { totals, counts },
      run: (_ctx, { totals, counts }) => {
        expectTypeOf(totals).toEqualTypeOf<{ sum: number; currency: "EUR" }>();
        expectTypeOf(counts).toEqualTypeOf<number[]>();
        return [];
      },
    });
    expect(true).toBe(true);
  });

  it("types optional dependencies as possibly undefined and key strings as unknown", () => {
    il.asset({
      key: "report",
      requires: { byKey: "shop.orders" },
      optionalRequires: { orders },
      run: (_ctx, deps) => {
        expectTypeOf(deps.orders).toEqualTypeOf<Order[] | undefined>();
        expectTypeOf(deps.byKey).toEqualTypeOf<unknown>();
        return [];
      },
    });
    expect(true).toBe(true);
  });

  it("exposes the DependencyData helper with the same inference", () => {
    expectTypeOf<il.DependencyData<typeof orders>>().toEqualTypeOf<Order[]>();
    expectTypeOf<il.DependencyData<typeof totals>>().toEqualTypeOf<{ sum: number; currency: "EUR" }>();
    expect(true).toBe(true);
  });

  it("keeps the upstream type across granularities: a monthly asset requiring a daily one", () => {
    const daily = il.asset({
      key: "daily",
      partitioning: new il.TimePartitionConfig({ column: "date" }),
      schema: OrderSchema,
      run: () => [{ id: 1, date: "2026-01-01", note: null }],
    });
    il.asset({
      key: "monthly",
      partitioning: new il.TimePartitionConfig({ column: "month", granularity: il.TimeGranularity.MONTH }),
      requires: { daily },
      run: (_ctx, { daily }) => {
        expectTypeOf(daily).toEqualTypeOf<Order[]>();
        return [];
      },
    });
    expect(true).toBe(true);
  });

  it("types the explicit mapping form { asset, mapping } as the upstream's data, in requires and optionalRequires", () => {
    il.asset({
      key: "rolling",
      requires: {
        week: { asset: orders, mapping: il.trailing(7) },
        before: { asset: totals, mapping: il.previousPeriod() },
        byKey: { asset: "shop.orders" },
      },
      optionalRequires: { maybe: { asset: orders, mapping: il.previousPeriod() } },
      run: (_ctx, { week, before, byKey, maybe }) => {
        expectTypeOf(week).toEqualTypeOf<Order[]>();
        expectTypeOf(before).toEqualTypeOf<{ sum: number; currency: "EUR" }>();
        expectTypeOf(byKey).toEqualTypeOf<unknown>();
        expectTypeOf(maybe).toEqualTypeOf<Order[] | undefined>();
        return [];
      },
    });
    expectTypeOf<il.DependencyData<{ asset: typeof orders; mapping: il.TimeWindowMapping }>>().toEqualTypeOf<Order[]>();
    expect(() =>
      // @ts-expect-error a mapping is a TimeWindowMapping, not a number
      il.asset({ key: "bad", requires: { week: { asset: orders, mapping: 7 } }, run: () => [] }),
    ).toThrow(il.ConfigError);
    expect(true).toBe(true);
  });

  it("types a runtime source's assets by key", () => {
    const shop = il.source({ key: "shop", assets: [orders, totals] })();
    expectTypeOf(shop.assets.orders).toEqualTypeOf<il.Asset>();
    expectTypeOf(shop.assets.totals).toEqualTypeOf<il.Asset>();
    expect(Object.keys(shop.assets).sort()).toEqual(["orders", "totals"]);
  });
});

describe("run's return against the schema (issue 32.11)", () => {
  const Session = z.object({ customer_id: z.string(), ms: z.number() });

  it("rows of the schema's input type check; a mistyped or misspelt field is a type error", async () => {
    const ok = il.asset({ key: "sessions", schema: Session, run: () => [{ customer_id: "c1", ms: 12 }] });
    il.asset({
      key: "sessions",
      schema: Session,
      // @ts-expect-error ms is a number in the schema
      run: () => [{ customer_id: "c1", ms: "fast" }],
    });
    il.asset({
      key: "sessions",
      schema: Session,
      // @ts-expect-error customerId is not customer_id
      run: async () => [{ customerId: "c1", ms: 12 }],
    });
    // Streams of rows and of batches, and columns, are typed by the same rows.
    il.asset({
      key: "sessions",
      schema: Session,
      async *run() {
        yield [{ customer_id: "c1", ms: 1 }];
      },
    });
    il.asset({ key: "sessions", schema: Session, run: () => ({ customer_id: ["c1"], ms: [1] }) });
    // "reconcile" turns text into the schema's types: text rows (a parsed CSV file) are taken as they are.
    il.asset({ key: "sessions", schema: Session, strategy: "reconcile", run: () => [{ customer_id: "c1", ms: "12" }] });
    expect(await ok.run({} as il.ExecutionContext, {})).toEqual([{ customer_id: "c1", ms: 12 }]);
  });
});
