import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";
import { caught, day, RecordingDestination, tempDir } from "./helpers.js";

beforeEach(() => il.MemoryDestination.clear());

const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1 }));

describe("keys", () => {
  it.each(["1abc", "a-b", "", "a.b", "_x", "a b"])("refuses the asset key %j with ConfigError", (key) => {
    expect(() => il.asset({ key, run: () => [] })).toThrow(il.ConfigError);
  });

  it.each(["1abc", "a-b", "", "a.b"])("refuses the source key %j with ConfigError", (key) => {
    expect(() => il.source({ key, assets: [] })).toThrow(il.ConfigError);
  });

  it.each(["a", "abc", "a1", "daily_orders", "A_b_2"])("accepts the key %j", (key) => {
    expect(il.asset({ key, run: () => [] }).key).toBe(key);
    expect(il.source({ key, assets: [] }).key).toBe(key);
  });

  it("refuses an unknown strategy, a non-PartitionConfig partitioning and a name in both requires and optionalRequires", () => {
    expect(() => il.asset({ key: "a", strategy: "loose" as il.ConformStrategy, run: () => [] })).toThrow(il.ConfigError);
    expect(() => il.asset({ key: "a", partitioning: { column: "date" } as unknown as il.PartitionConfig, run: () => [] })).toThrow(
      il.ConfigError,
    );
    expect(() => il.asset({ key: "a", requires: { x: "b" }, optionalRequires: { x: "c" }, run: () => [] })).toThrow(il.ConfigError);
  });

  it("refuses an option asset() does not read, naming the one meant when it is close (a config runs without type checking)", () => {
    const message = (options: object) => {
      try {
        il.asset({ key: "b", run: () => [], ...options } as never);
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message({ require: { a: "a" } })).toMatch(
      /^asset "b": unknown option "require" \(did you mean "requires"\?\): expected key, run, /,
    );
    expect(message({ deps: { a: "a" } })).toMatch(/^asset "b": unknown option "deps": expected key, run, partitioning, requires, /);
    expect(message({ partitioning: new Date(0) })).toBe(
      'asset "b": partitioning must be a TimePartitionConfig, ListPartitionConfig or MultiPartitionConfig, got a Date',
    );
  });

  it("refuses a source declaring the same asset key twice", () => {
    const a = il.asset({ key: "a", run: () => [] });
    expect(() => il.source({ key: "s", assets: [a, a] })).toThrow(il.ConfigError);
  });
});

describe("source settings trickle down", () => {
  it("gives assets without their own settings the source's destinations, dataset and strategy", () => {
    const dest = new il.MemoryDestination();
    const a = il.asset({ key: "a", run: () => rowsOf(1) });
    const S = il.source({ key: "shop", dataset: "warehouse", strategy: "reconcile", assets: [a] });
    const s = S({ destinations: dest });
    expect(s.assets.a.destinations).toEqual([dest]);
    expect(s.assets.a.dataset).toBe("warehouse");
    expect(s.assets.a.strategy).toBe("reconcile");
  });

  it("lets the asset's own settings win over the source's", () => {
    const sourceDest = new il.MemoryDestination();
    const assetDest = new RecordingDestination();
    const a = il.asset({ key: "a", dataset: "own", strategy: "auto", destinations: assetDest, run: () => rowsOf(1) });
    const b = il.asset({ key: "b", run: () => rowsOf(1) });
    const s = il.source({ key: "shop", dataset: "warehouse", strategy: "strict", assets: [a, b] })({ destinations: sourceDest });
    expect(s.assets.a.destinations).toEqual([assetDest]);
    expect(s.assets.a.dataset).toBe("own");
    expect(s.assets.a.strategy).toBe("auto");
    expect(s.assets.b.destinations).toEqual([sourceDest]);
    expect(s.assets.b.dataset).toBe("warehouse");
    expect(s.assets.b.strategy).toBe("strict");
  });

  it("defaults the dataset to the source key and the strategy to auto", () => {
    const s = il.source({ key: "shop", assets: [il.asset({ key: "a", run: () => [] })] })();
    expect(s.dataset).toBe("shop");
    expect(s.assets.a.dataset).toBe("shop");
    expect(s.assets.a.strategy).toBe("auto");
  });

  it("takes settings given when calling the source over those of its definition", () => {
    const S = il.source({ key: "shop", dataset: "d1", assets: [il.asset({ key: "a", run: () => [] })] });
    expect(S({ dataset: "d2" }).assets.a.dataset).toBe("d2");
    expect(S().assets.a.dataset).toBe("d1");
  });

  it("names the table through the source's table(asset), the asset key by default", async () => {
    const dest = new RecordingDestination();
    const a = il.asset({ key: "orders", run: () => rowsOf(2) });
    const plain = il.source({ key: "shop", assets: [a] })({ destinations: dest });
    expect(plain.assets.orders.table).toBe("orders");
    const prefixed = il.source({ key: "shop", assets: [a], table: (x) => `raw_${x.key}` })({ destinations: dest });
    expect(prefixed.assets.orders.table).toBe("raw_orders");
    await prefixed.assets.orders.materialize();
    const written = dest.writes()[0]!.context.asset;
    expect(written.table).toBe("raw_orders");
    expect(written.dataset).toBe("shop");
  });

  it("gives a standalone asset its key as table and no dataset", () => {
    const a = il.asset({ key: "orders", run: () => [] });
    const runtime = new il.Asset(a, null);
    expect(runtime.table).toBe("orders");
    expect(runtime.qualifiedKey).toBe("orders");
  });
});

describe("with() and independent sources", () => {
  it("asset.with() returns a reconfigured copy and leaves the original untouched", () => {
    const d1 = new il.MemoryDestination();
    const d2 = new RecordingDestination();
    const s = il.source({ key: "shop", assets: [il.asset({ key: "a", run: () => [] })] })({ destinations: d1 });
    const original = s.assets.a;
    const copy = original.with({ destinations: d2, strategy: "reconcile", dataset: "other", materializable: false });
    expect(copy).not.toBe(original);
    expect(copy.destinations).toEqual([d2]);
    expect(copy.strategy).toBe("reconcile");
    expect(copy.dataset).toBe("other");
    expect(copy.materializable).toBe(false);
    expect(original.destinations).toEqual([d1]);
    expect(original.strategy).toBe("auto");
    expect(original.dataset).toBe("shop");
    expect(original.materializable).toBe(true);
    expect(s.assets.a).toBe(original);
  });

  it("chains with() overrides, keeping earlier ones", () => {
    const a = new il.Asset(il.asset({ key: "a", run: () => [] }), null);
    const copy = a.with({ dataset: "x" }).with({ strategy: "reconcile" });
    expect(copy.dataset).toBe("x");
    expect(copy.strategy).toBe("reconcile");
  });

  it("source.with() returns a reconfigured copy and leaves the original and its assets untouched", () => {
    const d1 = new il.MemoryDestination();
    const d2 = new RecordingDestination();
    const s = il.source({ key: "shop", assets: [il.asset({ key: "a", run: () => [] })] })({ destinations: d1 });
    const copy = s.with({ destinations: d2, materializable: false, dataset: "elsewhere" });
    expect(copy).not.toBe(s);
    expect(copy.assets.a.destinations).toEqual([d2]);
    expect(copy.assets.a.materializable).toBe(false);
    expect(copy.assets.a.dataset).toBe("elsewhere");
    expect(s.assets.a.destinations).toEqual([d1]);
    expect(s.assets.a.materializable).toBe(true);
    expect(s.assets.a.dataset).toBe("shop");
  });

  it("`.with` is where docs/concepts.md says: on a runtime source and its assets, not on what il.asset and il.source return", () => {
    const definition = il.asset({ key: "orders", run: () => [] });
    const Shop = il.source({ key: "shop", assets: [definition] });
    const shop = Shop({ destinations: new il.MemoryDestination() });
    expect(shop.with({ dataset: "raw" }).assets.orders.dataset).toBe("raw");
    expect(shop.assets.orders.with({ tags: ["finance"] }).tags).toEqual(["finance"]);
    expect("with" in definition).toBe(false);
    expect("with" in Shop).toBe(false);
  });

  it("calling a source definition twice gives independent runtime sources", () => {
    const S = il.source({ key: "shop", assets: [il.asset({ key: "a", run: () => [] })] });
    const d1 = new il.MemoryDestination();
    const d2 = new RecordingDestination();
    const one = S({ destinations: d1 });
    const two = S({ destinations: d2 });
    expect(one).not.toBe(two);
    expect(one.assets.a).not.toBe(two.assets.a);
    expect(one.assets.a.destinations).toEqual([d1]);
    expect(two.assets.a.destinations).toEqual([d2]);
    expect(S().assets.a.destinations).toEqual([]);
  });
});

describe("destinations", () => {
  const schema = z.object({ id: z.number().int() });

  it("accepts one destination or a list, and every write goes to all of them", async () => {
    const r1 = new RecordingDestination();
    const r2 = new RecordingDestination();
    const mem = new il.MemoryDestination();
    const a = il.asset({ key: "a", schema, run: () => rowsOf(3) });
    const single = il.source({ key: "one", assets: [a] })({ destinations: r1 });
    expect(single.assets.a.destinations).toEqual([r1]);
    const many = il.source({ key: "many", assets: [a] })({ destinations: [mem, r2] });
    expect(many.assets.a.destinations).toEqual([mem, r2]);
    await many.assets.a.materialize();
    expect(r2.writes()).toHaveLength(1);
    expect(r2.writes()[0]!.data).toEqual(rowsOf(3));
    expect(await many.assets.a.read()).toEqual(rowsOf(3));
    expect(await new il.MemoryDestination().read(many.assets.a.ioContext(null))).toEqual(rowsOf(3));
  });

  it("writes a partitioned materialize to every destination, CSV included", async () => {
    const dir = await tempDir();
    try {
      const r = new RecordingDestination();
      const csv = new il.CSVDestination({ basePath: dir.path });
      const a = il.asset({
        key: "a",
        partitioning: new il.TimePartitionConfig({ column: "date" }),
        schema: z.object({ date: z.iso.date(), n: z.number() }),
        run: () => [{ date: "2026-01-02", n: 1 }],
      });
      const s = il.source({ key: "shop", assets: [a] })({ destinations: [csv, r] });
      await s.assets.a.materialize(day("2026-01-02"));
      expect(r.writes().map((w) => w.partition?.key)).toEqual(["2026-01-02"]);
      expect(await s.assets.a.read(day("2026-01-02"))).toEqual([{ date: "2026-01-02", n: 1 }]);
    } finally {
      await dir.remove();
    }
  });

  it("reads upstream data from the first destination", async () => {
    const first = new RecordingDestination();
    const second = new RecordingDestination();
    const up = il.asset({ key: "up", run: () => rowsOf(2) });
    const down = il.asset({ key: "down", requires: { up: "up" }, run: (_c, { up }) => (up as unknown[]).map(() => ({ seen: 1 })) });
    const s = il.source({ key: "shop", assets: [up, down] })({ destinations: [first, second] });
    const result = await new il.DAG(s).materialize();
    expect(result.status).toBe("completed");
    expect(first.calls.filter((c) => c.op === "read").map((c) => c.context.asset.key)).toEqual(["shop.up"]);
    expect(second.calls.filter((c) => c.op === "read")).toEqual([]);
    expect(second.writes()).toHaveLength(2);
  });

  it("names destinations given as an object and honours defaultDestinationKey", async () => {
    const main = new RecordingDestination();
    const backup = new RecordingDestination();
    const a = il.asset({ key: "a", run: () => rowsOf(1) });
    const s = il.source({ key: "shop", assets: [a] })({ destinations: { main, backup }, defaultDestinationKey: "backup" });
    expect(s.assets.a.destinationKeys).toEqual(["main", "backup"]);
    expect(s.assets.a.defaultDestinationKey).toBe("backup");
    expect(s.assets.a.destinations).toEqual([main, backup]);
    await s.assets.a.materialize();
    expect(main.writes()).toHaveLength(1);
    expect(backup.writes()).toHaveLength(1);
    // The default names the destination for UIs; upstream reads still use the first.
    await s.assets.a.read();
    expect(main.calls.some((c) => c.op === "read")).toBe(true);
    expect(backup.calls.some((c) => c.op === "read")).toBe(false);
  });

  it("defaults defaultDestinationKey to the first destination's name", () => {
    const a = il.asset({ key: "a", run: () => [] });
    const s = il.source({ key: "shop", assets: [a] })({
      destinations: { main: new il.MemoryDestination(), backup: new il.MemoryDestination() },
    });
    expect(s.assets.a.defaultDestinationKey).toBe("main");
  });

  it("refuses a defaultDestinationKey naming no destination", () => {
    const a = il.asset({ key: "a", run: () => [] });
    const S = il.source({ key: "shop", assets: [a] });
    expect(() => S({ destinations: { main: new il.MemoryDestination() }, defaultDestinationKey: "nope" })).toThrow(il.ConfigError);
  });

  it("refuses a binding outside the asset's relations, naming both classes", async () => {
    const a = il.asset({ key: "a", relations: { destinations: [il.CSVDestination] }, run: () => [] });
    const S = il.source({ key: "shop", assets: [a] });
    const error = await caught(() => S({ destinations: new il.MemoryDestination() }));
    expect(error).toBeInstanceOf(il.ConfigError);
    expect(error.message).toContain("CSVDestination");
    expect(error.message).toContain("MemoryDestination");
    expect(() => S({ destinations: new il.CSVDestination({ basePath: "/tmp/never-written" }) })).not.toThrow();
  });

  it("refuses a binding outside the source's relations, and via asset.with()", async () => {
    const a = il.asset({ key: "a", run: () => [] });
    const S = il.source({ key: "shop", relations: { destinations: [il.CSVDestination] }, assets: [a] });
    const error = await caught(() => S({ destinations: [new il.MemoryDestination()] }));
    expect(error).toBeInstanceOf(il.ConfigError);
    expect(error.message).toContain("CSVDestination");
    expect(error.message).toContain("MemoryDestination");
    const ok = S({ destinations: new il.CSVDestination({ basePath: "/tmp/never-written" }) });
    const viaWith = await caught(() => ok.assets.a.with({ destinations: new il.MemoryDestination() }));
    expect(viaWith).toBeInstanceOf(il.ConfigError);
    expect(viaWith.message).toContain("CSVDestination");
    expect(viaWith.message).toContain("MemoryDestination");
  });

  it("refuses a restricted binding given on the asset definition itself", async () => {
    const error = await caught(() => {
      const a = il.asset({
        key: "a",
        relations: { destinations: [il.CSVDestination] },
        destinations: new il.MemoryDestination(),
        run: () => [],
      });
      return new il.DAG(a);
    });
    expect(error).toBeInstanceOf(il.ConfigError);
    expect(error.message).toContain("CSVDestination");
    expect(error.message).toContain("MemoryDestination");
  });
});
