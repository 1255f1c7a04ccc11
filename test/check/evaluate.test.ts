// WindowChecks: a window's rows judged per partition, as they are stored.
import { describe, expect, it } from "vitest";
import { checks, WindowChecks, previousCounts, type PartitionVerdicts } from "../../src/check/index.js";
import { TimeGranularity, TimePartitionWindow } from "../../src/partitioning/index.js";

const window = new TimePartitionWindow("2026-01-01", "2026-01-03", TimeGranularity.DAY);

describe("WindowChecks", () => {
  it("routes rows to their partition by the partition column, judges partitions without rows, and leaves rows outside to the write", () => {
    const target = { qualifiedKey: "shop.orders", checks: [checks.unique("id"), checks.rowCount({ min: 1 })] };
    const run = new WindowChecks(target, window, "day");
    run.add([
      { day: "2026-01-01", id: 1 },
      { day: "2026-01-03", id: 1 },
      { day: "2026-01-09", id: 1 },
    ]);
    run.add([{ day: "2026-01-01", id: 1 }]);
    const results = run.verdicts();
    // Every check here can say at once: no promise, so a table goes on to its write in the same turn.
    expect(results).not.toBeInstanceOf(Promise);
    expect(
      (results as Exclude<typeof results, Promise<unknown>>).map((r) => [r.partition, r.rows, r.verdicts.map((v) => v.failures)]),
    ).toEqual([
      ["2026-01-01", 2, [1, 0]],
      ["2026-01-02", 0, [0, 1]],
      ["2026-01-03", 1, [0, 0]],
    ]);
  });

  it("waits only when a check must (rowCountChange reads the stored history once per partition and length)", async () => {
    let reads = 0;
    const target = {
      qualifiedKey: "shop.orders",
      checks: [checks.rowCountChange({ trailing: 1, maxChange: 0 }), checks.rowCountChange({ trailing: 1, maxChange: 1 })],
      previousRowCounts: async () => {
        reads++;
        return [0];
      },
    };
    const run = new WindowChecks(target, window.partitions[0]!.window, "day");
    run.add([{ day: "2026-01-01" }]);
    const results = run.verdicts();
    expect(results).toBeInstanceOf(Promise);
    expect((await results)[0]!.verdicts.map((v) => v.passed)).toEqual([false, false]);
    expect(reads).toBe(1);
  });

  it("fails a check reading a column no row holds (warn under warn), naming it and the columns the rows have", async () => {
    const target = {
      qualifiedKey: "shop.orders",
      checks: [
        checks.range("amuont", { min: 0 }),
        checks.acceptedValues("stauts", ["paid"], { severity: "warn" }),
        checks.unique("id", "cnt"),
        checks.range("amount", { min: 0 }),
      ],
    };
    const run = new WindowChecks(target, window.partitions[0]!.window, "day");
    run.add([{ day: "2026-01-01", id: 1, amount: 5 }]);
    // Over batches: a column some row holds is in the data, null elsewhere or not.
    run.add([{ day: "2026-01-01", id: 2, amount: null, status: "paid" }]);
    const [result] = (await run.verdicts()) as PartitionVerdicts[];
    expect(result!.verdicts.map((v) => [v.name, v.severity, v.passed, v.failures, v.message])).toEqual([
      [
        "range(amuont, min 0)",
        "error",
        false,
        2,
        'column "amuont" is not in the data: no row has it (the columns are: day, id, amount, status)',
      ],
      [
        'acceptedValues(stauts: "paid")',
        "warn",
        false,
        2,
        'column "stauts" is not in the data: no row has it (the columns are: day, id, amount, status)',
      ],
      ["unique(id, cnt)", "error", false, 2, 'column "cnt" is not in the data: no row has it (the columns are: day, id, amount, status)'],
      ["range(amount, min 0)", "error", true, 0, "every amount within min 0 in 2 rows"],
    ]);
  });

  it("looks for no column in a partition without rows, nor when the asset declares a schema (a nullable field may be left out)", async () => {
    const declared = { qualifiedKey: "shop.orders", checks: [checks.range("amount", { min: 0 })], schema: [{ name: "amount" }] };
    const run = new WindowChecks(declared, window.partitions[0]!.window, "day");
    run.add([{ day: "2026-01-01" }]);
    expect((run.verdicts() as PartitionVerdicts[])[0]!.verdicts[0]!.passed).toBe(true);
    const empty = new WindowChecks({ qualifiedKey: "shop.orders", checks: [checks.range("amount", { min: 0 })] }, window, "day");
    expect((empty.verdicts() as PartitionVerdicts[]).map((r) => r.verdicts[0]!.passed)).toEqual([true, true, true]);
  });

  it("previousCounts takes the last n keys sorting before the partition, oldest first", () => {
    const counts = { "2026-01-03": 3, "2026-01-01": 1, "2026-01-02": 2, "2026-01-05": 5 };
    expect(previousCounts(counts, "2026-01-04", 2)).toEqual([2, 3]);
    expect(previousCounts(counts, "2026-01-01", 2)).toEqual([]);
  });
});
