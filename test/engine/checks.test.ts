// Checks in a run (issue 35): judged on the conformed data before anything is written; a failed
// "error" check writes nothing and fails the asset with CheckError, a failed "warn" one writes
// and reports; downstream of a failed check does not run; results are kept with the record.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import * as il from "../../src/index.js";

afterEach(() => il.MemoryDestination.clear());

const daily = () => new il.TimePartitionConfig({ column: "day", start: "2026-01-01", allowWindow: true });
type Order = { day: string; id: number; amount: number | null };

/** `orders` returns what `data` holds for a day; `revenue` sums it. */
function project(checks: readonly il.Check[], data: (day: string) => Order[] | AsyncIterable<Order[]>) {
  const orders = il.asset({ key: "orders", partitioning: daily(), checks, run: (ctx) => data(ctx.partition?.key ?? ctx.window!.keys[0]!) });
  const revenue = il.asset({
    key: "revenue",
    partitioning: daily(),
    requires: { orders: "orders" },
    run: (ctx, deps) => [{ day: ctx.partition!.key, total: (deps["orders"] as Order[]).reduce((s, o) => s + (o.amount ?? 0), 0) }],
  });
  return il.defineConfig({
    sources: [il.source({ key: "shop", assets: [orders, revenue] })({ destinations: new il.MemoryDestination() })],
  });
}

const good = (day: string): Order[] => [
  { day, id: 1, amount: 10 },
  { day, id: 2, amount: 20 },
];
const bad = (day: string): Order[] => [
  { day, id: 1, amount: 10 },
  { day, id: 1, amount: null },
  { day, id: 3, amount: -5 },
];

async function opened(checks: readonly il.Check[], data: { current: (day: string) => Order[] | AsyncIterable<Order[]> }) {
  const session = await il.openProject(project(checks, (day) => data.current(day)));
  const events: il.InterloperEvent[] = [];
  session.on((e) => events.push(e));
  return { session, events };
}

describe("a failed error check", () => {
  it("writes nothing, keeps the stored partition, its count and record, and fails with CheckError; downstream does not run", async () => {
    const data = { current: good };
    const { session, events } = await opened(
      [il.checks.unique("id"), il.checks.notNull("amount"), il.checks.range("amount", { min: 0 })],
      data,
    );
    await session.materialize({ partition: "2026-01-02" });
    const [before] = await session.history("orders", "2026-01-02");
    expect(before!.checks).toEqual([
      { name: "unique(id)", severity: "error", passed: true, failures: 0, message: "2 distinct values in 2 rows" },
      { name: "notNull(amount)", severity: "error", passed: true, failures: 0, message: "no nulls in 2 rows" },
      { name: "range(amount, min 0)", severity: "error", passed: true, failures: 0, message: "every amount within min 0 in 2 rows" },
    ]);

    data.current = bad;
    events.length = 0;
    const outcome = await session.materialize({ selection: "orders+", partition: "2026-01-02" });
    expect(outcome.status).toBe("failed");
    const result = outcome.result as il.RunResult;
    const error = result.assetExecutions["shop.orders"]!.error;
    expect(error).toBeInstanceOf(il.CheckError);
    expect((error as il.CheckError).code).toBe("CHECK_FAILED");
    const [first] = error!.message.split("\n");
    expect(first).toBe(
      'asset "shop.orders" failed its checks, so nothing was written: 2026-01-02: unique(id) failed on 1 row (1); notNull(amount) failed on 1 row (row 1 (amount: null)); range(amount, min 0) failed on 1 row (-5)',
    );
    expect((error as il.CheckError).failed.map((f) => [f.partition, f.check, f.failures])).toEqual([
      ["2026-01-02", "unique(id)", 1],
      ["2026-01-02", "notNull(amount)", 1],
      ["2026-01-02", "range(amount, min 0)", 1],
    ]);
    // Downstream that needs it did not run.
    expect(result.assetExecutions["shop.revenue"]!.status).toBe("canceled");
    expect(events.some((e) => e.type === "asset:started" && e.asset === "shop.revenue")).toBe(false);

    // The stored partition is as it was: rows, row count, record.
    expect((await session.read("orders", { partition: "2026-01-02" })).rows).toEqual(good("2026-01-02"));
    const history = await session.history("orders", "2026-01-02");
    expect(history).toHaveLength(1);
    expect(history[0]!.id).toBe(before!.id);

    // Each failed check was an event, before the failure.
    const failed = events.filter((e) => e.type === "check_failed");
    expect(failed).toEqual([
      expect.objectContaining({
        asset: "shop.orders",
        partition: "2026-01-02",
        check: "unique(id)",
        severity: "error",
        failures: 1,
        examples: ["1"],
      }),
      expect.objectContaining({ check: "notNull(amount)", examples: ["row 1 (amount: null)"] }),
      expect.objectContaining({ check: "range(amount, min 0)", examples: ["-5"], message: "1 row of 3 with amount outside min 0" }),
    ]);
    const failedAt = events.findIndex((e) => e.type === "asset:failed");
    expect(events.findIndex((e) => e.type === "check_failed")).toBeLessThan(failedAt);
    expect(events.some((e) => e.type === "destination:write:started")).toBe(false);
  });

  it("over a window, writes none of its partitions when one fails, naming that one", async () => {
    const data = { current: (day: string) => (day === "2026-01-03" ? bad(day) : good(day)) };
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      checks: [il.checks.notNull("amount"), il.checks.rowCount({ min: 1 })],
      run: (ctx) => ctx.window!.keys.flatMap((day) => data.current(day)),
    });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: new il.MemoryDestination() });
    const window = new il.TimePartitionWindow("2026-01-01", "2026-01-03", il.TimeGranularity.DAY);
    const error = await shop.assets["orders"]!.materialize(window).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(il.CheckError);
    expect((error as Error).message.split("\n")[0]).toBe(
      'asset "shop.orders" failed its checks, so nothing was written: 2026-01-03: notNull(amount) failed on 1 row (row 1 (amount: null))',
    );
    expect(await shop.assets["orders"]!.partitionRowCounts()).toEqual({});
  });
  it("with a warn check failing beside it, still writes nothing; both are reported", async () => {
    const { session, events } = await opened([il.checks.unique("id", { severity: "warn" }), il.checks.notNull("amount")], { current: bad });
    const outcome = await session.materialize({ selection: "orders", partition: "2026-01-02" });
    expect(outcome.status).toBe("failed");
    const error = (outcome.result as il.RunResult).assetExecutions["shop.orders"]!.error as il.CheckError;
    expect(error.failed.map((f) => f.check)).toEqual(["notNull(amount)"]);
    expect(events.filter((e) => e.type === "check_failed").map((e) => (e as { severity: string }).severity)).toEqual(["warn", "error"]);
    await expect(session.read("orders", { partition: "2026-01-02" })).rejects.toBeInstanceOf(il.DataNotFoundError);
  });
});

describe("a failed warn check", () => {
  it("writes the partition, reports a warning and a check_failed event, and keeps the verdict in the record", async () => {
    const data = { current: bad };
    const { session, events } = await opened([il.checks.unique("id", { severity: "warn" }), il.checks.rowCount({ min: 1 })], data);
    const outcome = await session.materialize({ partition: "2026-01-02" });
    expect(outcome.status).toBe("completed");
    expect((await session.read("orders", { partition: "2026-01-02" })).rows).toEqual(bad("2026-01-02"));
    expect(events.filter((e) => e.type === "check_failed")).toEqual([
      expect.objectContaining({ check: "unique(id)", severity: "warn", failures: 1, examples: ["1"], partition: "2026-01-02" }),
    ]);
    const warnings = events.filter((e) => e.type === "log" && e.level === "warn").map((e) => (e as { message: string }).message);
    expect(warnings).toContain("check unique(id) failed for 2026-01-02 (warn): 1 row of 3 repeats the id of an earlier row (1)");
    const [record] = await session.history("orders", "2026-01-02");
    expect(record!.checks).toEqual([
      { name: "unique(id)", severity: "warn", passed: false, failures: 1, message: "1 row of 3 repeats the id of an earlier row" },
      { name: "rowCount(min 1)", severity: "error", passed: true, failures: 0, message: "3 rows" },
    ]);
  });
});

describe("a streamed partition", () => {
  async function* streamed(rows: Order[]): AsyncGenerator<Order[]> {
    for (const row of rows) yield [row];
  }

  it("is checked batch by batch and, on a failed error check, discarded: the old partition stays", async () => {
    const data: { current: (day: string) => Order[] | AsyncIterable<Order[]> } = { current: (day) => streamed(good(day)) };
    const { session, events } = await opened(
      [il.checks.unique("id"), il.check("two rows", (rows) => rows.length === 2 || `${rows.length} rows`)],
      data,
    );
    await session.materialize({ partition: "2026-01-02" });
    const [before] = await session.history("orders", "2026-01-02");
    expect(before!.checks?.map((c) => c.passed)).toEqual([true, true]);

    data.current = (day) => streamed(bad(day));
    const outcome = await session.materialize({ selection: "orders", partition: "2026-01-02" });
    const error = (outcome.result as il.RunResult).assetExecutions["shop.orders"]!.error;
    expect(error).toBeInstanceOf(il.CheckError);
    expect(error!.message.split("\n")[0]).toBe(
      'asset "shop.orders" failed its checks, so nothing was written: 2026-01-02: unique(id) failed on 1 row (1); two rows failed: 3 rows',
    );
    expect(events.some((e) => e.type === "destination:write:failed")).toBe(false);
    expect((await session.read("orders", { partition: "2026-01-02" })).rows).toEqual(good("2026-01-02"));
    expect((await session.history("orders", "2026-01-02")).map((r) => r.id)).toEqual([before!.id]);
  });
});

describe("rowCountChange in a run", () => {
  it("reads the stored counts of the partitions before it from the first destination", async () => {
    const sizes: Record<string, number> = { "2026-01-01": 10, "2026-01-02": 12, "2026-01-03": 11, "2026-01-04": 40 };
    const rows = (day: string): Order[] => Array.from({ length: sizes[day] ?? 0 }, (_, id) => ({ day, id, amount: 1 }));
    const { session, events } = await opened([il.checks.rowCountChange({ trailing: 3, maxChange: 0.5 })], { current: rows });
    for (const day of ["2026-01-01", "2026-01-02", "2026-01-03"]) {
      expect((await session.materialize({ selection: "orders", partition: day })).status).toBe("completed");
    }
    const [third] = await session.history("orders", "2026-01-03");
    expect(third!.checks![0]!.message).toBe("no verdict: 2 of the 3 previous partitions it compares with are stored");
    const outcome = await session.materialize({ selection: "orders", partition: "2026-01-04" });
    expect(outcome.status).toBe("failed");
    expect(events.filter((e) => e.type === "check_failed")).toEqual([
      expect.objectContaining({
        check: "rowCountChange(trailing 3, maxChange 0.5)",
        failures: 1,
        message: "40 rows against a median of 11 over the 3 previous partitions: 263.6%, more than 50%",
      }),
    ]);
  });
});

describe("checks declared on an asset", () => {
  const schema = z.object({ day: z.string(), id: z.number().int(), amount: z.number().nullable() });

  it("are refused when the config loads if a column is not in the declared schema, naming the check and the asset", () => {
    const orders = il.asset({ key: "orders", partitioning: daily(), schema, checks: [il.checks.unique("order_id")], run: () => [] });
    expect(() => il.source({ key: "shop", assets: [orders] })({ destinations: new il.MemoryDestination() })).toThrow(
      'asset "shop.orders": check unique(order_id) reads the column "order_id", which the asset\'s schema does not have (it has: day, id, amount)',
    );
  });

  it("without a schema, fail on a column the data lacks (written with a warning under warn); a column null in some rows is judged as before", async () => {
    const rows = [
      { id: 1, amount: 5 },
      { id: 2, amount: null },
    ];
    const make = (severity: "error" | "warn") =>
      il.source({
        key: "shop",
        assets: [
          il.asset({
            key: "orders",
            checks: [il.checks.range("amuont", { min: 0, severity }), il.checks.range("amount", { min: 0 })],
            run: () => rows,
          }),
        ],
      })({
        destinations: new il.MemoryDestination(),
      }).assets["orders"]!;
    await expect(make("error").materialize()).rejects.toThrow(
      'asset "shop.orders" failed its checks, so nothing was written: range(amuont, min 0) failed: column "amuont" is not in the data: no row has it (the columns are: id, amount)',
    );
    const warned = make("warn");
    await warned.materialize(null, { emit: () => {} });
    expect(await warned.read()).toEqual(rows);
    const [record] =
      (await warned.primaryDestination!.materializationHistory!(warned.ioContext(null), { partition: null, limit: 1 })) ?? [];
    expect(record!.checks!.map((c) => [c.name, c.passed])).toEqual([
      ["range(amuont, min 0)", false],
      ["range(amount, min 0)", true],
    ]);
  });

  it("refuses rowCountChange on an unpartitioned asset, and checks that are not checks", () => {
    const totals = il.asset({ key: "totals", checks: [il.checks.rowCountChange({ trailing: 2, maxChange: 1 })], run: () => [] });
    expect(() => il.source({ key: "shop", assets: [totals] })({})).toThrow(il.ConfigError);
    expect(() => il.asset({ key: "x", checks: [{ unique: "id" }] as never, run: () => [] })).toThrow(
      /^asset "x": checks\[0\] is not a check/,
    );
  });

  it("do not run for asset.run(), which writes nothing", async () => {
    const orders = il.asset({ key: "orders", checks: [il.checks.notNull("amount")], run: () => [{ amount: null }] });
    const shop = il.source({ key: "shop", assets: [orders] })({ destinations: new il.MemoryDestination() });
    expect(await shop.assets["orders"]!.run()).toEqual([{ amount: null }]);
  });

  it("refuse non-tabular data when materializing", async () => {
    const blob = il.asset({ key: "blob", checks: [il.checks.rowCount({ min: 1 })], run: () => "text" });
    const shop = il.source({ key: "shop", assets: [blob] })({ destinations: new il.MemoryDestination() });
    await expect(shop.assets["blob"]!.materialize()).rejects.toThrow(
      'asset "shop.blob" has checks, which read rows, but returned non-tabular data (a string)',
    );
  });
});

describe("CheckError across processes", () => {
  it("comes back from a pool worker as a CheckError with its failed checks", async () => {
    const { errorFromData, errorToData } = await import("../../src/runner/pool/protocol.js");
    const failed = [{ partition: "2026-01-02", check: "unique(id)", failures: 1, message: "1 row of 3", examples: ["1"] }];
    const back = errorFromData(
      JSON.parse(JSON.stringify(errorToData(new il.CheckError("asset failed", { asset: "shop.orders", failed })))),
    );
    expect(back).toBeInstanceOf(il.CheckError);
    expect(back).toMatchObject({ message: "asset failed", asset: "shop.orders", failed, code: "CHECK_FAILED" });
  });
});

describe("verifyChecks on stored data (for `interloper verify`)", () => {
  it("runs an asset's checks over a stored partition's rows, rowCountChange reading the partitions stored before it", async () => {
    const { verifyChecks } = await import("../../src/check/index.js");
    const sizes: Record<string, number> = { "2026-01-01": 4, "2026-01-02": 4, "2026-01-03": 9 };
    const orders = il.asset({
      key: "orders",
      partitioning: daily(),
      checks: [il.checks.unique("id", { severity: "warn" }), il.checks.rowCountChange({ trailing: 2, maxChange: 0.5, severity: "warn" })],
      run: (ctx) => Array.from({ length: sizes[ctx.partition!.key]! }, (_, i) => ({ day: ctx.partition!.key, id: i % 4 })),
    });
    const asset = il.source({ key: "shop", assets: [orders] })({ destinations: new il.MemoryDestination() }).assets["orders"]!;
    for (const day of Object.keys(sizes)) await asset.materialize(new il.TimePartition(day), { emit: () => {} });
    const day3 = new il.TimePartition("2026-01-03");
    const stored = il.TableData.from(await asset.read(day3))!.rows;
    const verdicts = await verifyChecks(asset, day3, stored);
    expect(verdicts.map((v) => [v.name, v.severity, v.passed, v.failures])).toEqual([
      ["unique(id)", "warn", false, 5],
      ["rowCountChange(trailing 2, maxChange 0.5)", "warn", false, 1],
    ]);
    expect(verdicts[1]!.message).toBe("9 rows against a median of 4 over the 2 previous partitions: 125%, more than 50%");
    expect(await asset.previousRowCounts("2026-01-03", 5)).toEqual([4, 4]);
    const streamed = await verifyChecks(
      asset,
      new il.TimePartition("2026-01-01"),
      (async function* () {
        yield il.TableData.from(await asset.read(new il.TimePartition("2026-01-01")))!.rows;
      })(),
    );
    expect(streamed.map((v) => v.passed)).toEqual([true, true]);
  });
});

describe("an asset with several destinations", () => {
  it("writes to none of them when an error check fails, its stream collected first", async () => {
    const first = new il.MemoryDestination();
    const second = new il.MemoryDestination();
    const orders = il.asset({
      key: "orders",
      checks: [il.checks.notNull("amount")],
      run: async function* () {
        yield [{ id: 1, amount: 1 }];
        yield [{ id: 2, amount: null }];
      },
    });
    const asset = il.source({ key: "shop", assets: [orders] })({ destinations: { first, second } }).assets["orders"]!;
    await expect(asset.materialize()).rejects.toBeInstanceOf(il.CheckError);
    for (const destination of [first, second]) {
      await expect(destination.read(asset.ioContext(null))).rejects.toBeInstanceOf(il.DataNotFoundError);
    }
  });
});
