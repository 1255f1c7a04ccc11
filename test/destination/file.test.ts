import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { deserialize } from "node:v8";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileDestination, IOContext } from "../../src/destination/index.js";
import type { AssetRef } from "../../src/destination/index.js";
import { SchemaError } from "../../src/errors.js";
import { TimePartitionConfig, TimePartitionWindow } from "../../src/partitioning/index.js";
import type { Partition, PartitionWindow } from "../../src/partitioning/index.js";
import type { Row } from "../../src/representation/index.js";
import { listFiles, makeTempDir } from "../contract/temp-dir.js";

const daily = new TimePartitionConfig({ column: "date", allowWindow: true });
const orders: AssetRef = { key: "shop.orders", table: "orders", dataset: "shop", partitioning: daily };
const report: AssetRef = { key: "shop.report", table: "report", dataset: "shop", partitioning: null };

function ctx(asset: AssetRef, window: PartitionWindow | Partition | null): IOContext {
  return new IOContext({ asset, window, schema: null, metadata: { runId: "r1" } });
}

/** A value JSON would mangle: every part of it must come back with its own type. */
function richValue(): Record<string, unknown> {
  return {
    when: new Date(Date.UTC(2026, 0, 1, 12, 30)),
    lookup: new Map<string, unknown>([
      ["a", new Set([1, 2, 3])],
      ["b", { deep: [new Date(Date.UTC(1999, 11, 31))] }],
    ]),
    tags: new Set(["x", "y"]),
    big: 2n ** 70n,
    negativeBig: -(2n ** 64n),
    nested: { list: [{ deeper: [1, { deepest: true }] }], empty: {} },
    nothing: null,
  };
}

describe("FileDestination", () => {
  let base: string;
  let remove: () => Promise<void>;
  let files: FileDestination;

  beforeEach(async () => {
    const dir = await makeTempDir("interloper-file-");
    base = dir.path;
    remove = dir.remove;
    files = new FileDestination({ basePath: base });
  });
  afterEach(async () => {
    await remove();
  });

  it("keeps Dates, Maps, Sets, BigInts and nested objects with their types", async () => {
    await files.write(ctx(report, null), richValue());
    const back = (await files.read(ctx(report, null))) as Record<string, unknown>;
    expect(back).toEqual(richValue());
    expect(back["when"]).toBeInstanceOf(Date);
    expect(back["lookup"]).toBeInstanceOf(Map);
    expect((back["lookup"] as Map<string, unknown>).get("a")).toBeInstanceOf(Set);
    expect(back["tags"]).toBeInstanceOf(Set);
    expect(typeof back["big"]).toBe("bigint");
  });

  it("keeps typed cells of rows written through a window", async () => {
    const window = new TimePartitionWindow("2026-01-01", "2026-01-02");
    const rows: Row[] = [
      { date: new Date(Date.UTC(2026, 0, 2)), id: 2n ** 60n, extra: new Map([["k", 1]]) },
      { date: new Date(Date.UTC(2026, 0, 1, 23, 59)), id: 1n, extra: null },
    ];
    await files.write(ctx(orders, window), rows);
    expect(await files.read(ctx(orders, window))).toEqual([rows[1], rows[0]]);
    expect(await files.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1, "2026-01-02": 1 });
  });

  it("lays files out as {basePath}/{dataset}/{table}[/{column}={key}]/data.v8", async () => {
    const window = new TimePartitionWindow("2026-01-01", "2026-01-02");
    await files.write(ctx(orders, window), [{ date: "2026-01-01" }, { date: "2026-01-02" }]);
    await files.write(ctx(report, null), "whole");
    await files.write(ctx({ ...report, dataset: null }, null), "no dataset");
    const visible = (await listFiles(base)).filter((f) => !f.split("/").some((s) => s.startsWith(".")));
    expect(visible).toEqual([
      "report/data.v8",
      "shop/orders/date=2026-01-01/data.v8",
      "shop/orders/date=2026-01-02/data.v8",
      "shop/report/data.v8",
    ]);
    expect(files.pathOf(ctx(orders, window), window.partitions[0]!)).toBe(join(base, "shop", "orders", "date=2026-01-01", "data.v8"));
  });

  it("stores Node's structured serialization, readable with v8.deserialize", async () => {
    await files.write(ctx(report, null), richValue());
    expect(deserialize(await readFile(join(base, "shop", "report", "data.v8")))).toEqual(richValue());
  });

  it("refuses what would not read back as it was: class instances, functions, symbols, naming where they are", async () => {
    class Model {
      a = 1;
      get double(): number {
        return this.a * 2;
      }
    }
    class AppError extends Error {}
    const expected =
      "expected plain objects, arrays, primitives and the built-in types structured serialization keeps (Date, Map, Set, RegExp, Error, typed arrays)";
    const cases: Array<[unknown, string]> = [
      [new Model(), "an instance of class Model at $ would read back as a plain object (its class and methods lost)"],
      [[{ id: 1 }, { id: 2, model: new Model() }], "an instance of class Model at $[1].model would read back as a plain object"],
      [new Map([["k", [new AppError("x")]]]), "an instance of class AppError at $[0][0] would read back as a plain object"],
      [{ "a key": () => 1 }, 'the function a key at $["a key"] cannot be serialized'],
      [new Set([Symbol("s")]), "the symbol Symbol(s) at $[0] cannot be serialized"],
    ];
    for (const [value, message] of cases) {
      const write = files.write(ctx(report, null), value);
      await expect(write).rejects.toBeInstanceOf(SchemaError);
      await expect(write).rejects.toThrow(`Files: cannot write asset "shop.report": ${message}`);
      await expect(write).rejects.toThrow(expected);
    }
    // Nothing was written; built-in types, null-prototype objects and cycles are kept.
    expect(await listFiles(base)).toEqual([]);
    const cyclic: Record<string, unknown> = {
      name: "loop",
      at: new Date(0),
      re: /x/g,
      bytes: new Uint8Array([1]),
      error: new RangeError("r"),
    };
    cyclic["self"] = cyclic;
    await files.write(ctx(report, null), [cyclic, Object.assign(Object.create(null) as object, { a: 1 })]);
    const [back] = (await files.read(ctx(report, null))) as [Record<string, unknown>];
    expect(back["self"]).toBe(back);
    expect(back["error"]).toBeInstanceOf(RangeError);
  });

  it("counts a stored non-tabular value as one row and a table by its rows", async () => {
    const window = new TimePartitionWindow("2026-01-01", "2026-01-02");
    await files.write(ctx(orders, window), new Map([["any", "value"]]));
    expect(await files.partitionRowCounts(ctx(orders, null))).toEqual({ "2026-01-01": 1, "2026-01-02": 1 });
  });
});
