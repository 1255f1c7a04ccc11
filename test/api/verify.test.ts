// session.verify (issue 35): each selected asset's checks over its stored partitions, read back
// from its first destination, nothing written; on a memory destination.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as il from "../../src/index.js";
import type { Session } from "../../src/api/session/index.js";

let session: Session;
const bad = new Set(["2026-01-02", "us"]);

beforeAll(async () => {
  il.MemoryDestination.clear();
  const rows = (column: string) => (ctx: il.ExecutionContext) => {
    const key = ctx.partition!.key;
    return [
      { [column]: key, id: 1 },
      { [column]: key, id: bad.has(key) ? 1 : 2 },
    ];
  };
  const assets = [
    il.asset({
      key: "orders",
      partitioning: new il.TimePartitionConfig({ column: "day", start: "2026-01-01" }),
      checks: [il.checks.unique("id", { severity: "warn" }), il.checks.rowCount({ min: 1 })],
      run: rows("day"),
    }),
    il.asset({
      key: "regions",
      partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us", "apac"] }),
      checks: [il.checks.unique("id", { severity: "warn" })],
      run: rows("region"),
    }),
    il.asset({ key: "customers", checks: [il.checks.range("id", { min: 0 })], run: () => [{ id: 1 }] }),
    il.asset({ key: "never", checks: [il.checks.notNull("id")], run: () => [{ id: 1 }] }),
    il.asset({ key: "plain", run: () => [{ id: 1 }] }),
  ];
  session = await il.openProject(
    il.defineConfig({ sources: [il.source({ key: "shop", assets })({ destinations: new il.MemoryDestination() })] }),
  );
  session.on(() => {});
  await session.materialize({ selection: "orders", window: "2026-01-01..2026-01-03", concurrency: 1 });
  await session.materialize({ selection: "regions", concurrency: 1 });
  await session.materialize({ selection: "customers" });
}, 60_000);

afterAll(async () => {
  await session.close();
  il.MemoryDestination.clear();
});

const verdicts = (found: Awaited<ReturnType<Session["verify"]>>) =>
  found.map((a) => [a.asset, a.partitions.map((p) => [p.partition, p.verdicts.map((v) => `${v.name}:${v.passed}`)])]);

describe("session.verify", () => {
  it("every stored partition of every asset with checks; an asset without checks or without data has no partitions", async () => {
    const found = await session.verify();
    expect(found.map((a) => [a.asset, a.checks])).toEqual([
      ["shop.orders", ["unique(id) warn", "rowCount(min 1)"]],
      ["shop.regions", ["unique(id) warn"]],
      ["shop.customers", ["range(id, min 0)"]],
      ["shop.never", ["notNull(id)"]],
      ["shop.plain", []],
    ]);
    expect(verdicts(found)).toEqual([
      [
        "shop.orders",
        [
          ["2026-01-01", ["unique(id):true", "rowCount(min 1):true"]],
          ["2026-01-02", ["unique(id):false", "rowCount(min 1):true"]],
          ["2026-01-03", ["unique(id):true", "rowCount(min 1):true"]],
        ],
      ],
      // Without a window, the stored keys in sorted order.
      [
        "shop.regions",
        [
          ["apac", ["unique(id):true"]],
          ["eu", ["unique(id):true"]],
          ["us", ["unique(id):false"]],
        ],
      ],
      ["shop.customers", [[null, ["range(id, min 0):true"]]]],
      ["shop.never", []],
      ["shop.plain", []],
    ]);
  });

  it("a window or one partition: only the stored partitions within it; writes nothing", async () => {
    const before = await session.history("orders");
    expect(verdicts(await session.verify("orders", { window: "2026-01-02..2026-01-10" }))).toEqual([
      [
        "shop.orders",
        [
          ["2026-01-02", ["unique(id):false", "rowCount(min 1):true"]],
          ["2026-01-03", ["unique(id):true", "rowCount(min 1):true"]],
        ],
      ],
    ]);
    expect(verdicts(await session.verify("regions", { partition: "us" }))).toEqual([["shop.regions", [["us", ["unique(id):false"]]]]]);
    expect(await session.history("orders")).toEqual(before);
  });

  it("refuses a window and a partition together, and an unknown asset, naming them", async () => {
    await expect(session.verify("orders", { window: "2026-01-01..2026-01-02", partition: "2026-01-01" })).rejects.toThrow(
      /partition.*and.*window.*cannot be used together/,
    );
    await expect(session.verify("ordrs")).rejects.toThrow(/did you mean "orders"/);
  });
});
