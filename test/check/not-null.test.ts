import { describe, expect, it } from "vitest";
import { checks } from "../../src/check/index.js";
import { judge } from "./helpers.js";

describe("checks.notNull", () => {
  it("passes when every named column holds a value", async () => {
    const verdict = await judge(checks.notNull("id", "amount"), [
      { id: 1, amount: 0 },
      { id: 2, amount: "" },
      { id: 3, amount: false },
    ]);
    expect(verdict).toMatchObject({ name: "notNull(id, amount)", severity: "error", passed: true, failures: 0, examples: [] });
  });

  it("fails null, undefined and a missing field alike, counting rows and naming each", async () => {
    const verdict = await judge(
      checks.notNull("amount"),
      [{ amount: 1 }, { amount: null }, { amount: undefined }, { other: 5 }, { amount: 2 }],
      { batch: 2 },
    );
    expect(verdict.passed).toBe(false);
    expect(verdict.failures).toBe(3);
    // Row positions run on across batches.
    expect(verdict.examples).toEqual(["row 1 (amount: null)", "row 2 (amount: undefined)", "row 3 (amount: missing)"]);
    expect(verdict.message).toBe("3 rows of 5 with a null in amount");
  });

  it("counts a row once when several of its columns are null", async () => {
    const verdict = await judge(checks.notNull("a", "b"), [
      { a: null, b: null },
      { a: 1, b: 1 },
    ]);
    expect(verdict.failures).toBe(1);
    expect(verdict.examples).toEqual(["row 0 (a: null)"]);
  });

  it("lets NaN pass: it is a value (range refuses it)", async () => {
    expect((await judge(checks.notNull("n"), [{ n: Number.NaN }])).passed).toBe(true);
  });

  it("does not read a column named like an Object method from the prototype", async () => {
    expect((await judge(checks.notNull("constructor"), [{ id: 1 }])).failures).toBe(1);
  });

  it("keeps at most five examples", async () => {
    const rows = Array.from({ length: 50 }, () => ({ id: null }));
    const verdict = await judge(checks.notNull("id"), rows, { batch: 7 });
    expect(verdict.failures).toBe(50);
    expect(verdict.examples).toHaveLength(5);
  });

  it("takes a severity after the columns", async () => {
    const verdict = await judge(checks.notNull("id", { severity: "warn" }), [{ id: null }]);
    expect(verdict).toMatchObject({ severity: "warn", passed: false, name: "notNull(id)" });
  });
});
