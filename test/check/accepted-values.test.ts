import { describe, expect, it } from "vitest";
import { checks } from "../../src/check/index.js";
import { judge } from "./helpers.js";

describe("checks.acceptedValues", () => {
  it("passes values in the list and nulls (notNull judges those)", async () => {
    const verdict = await judge(checks.acceptedValues("status", ["paid", "open"]), [
      { status: "paid" },
      { status: "open" },
      { status: null },
      {},
    ]);
    expect(verdict).toMatchObject({ name: 'acceptedValues(status: "paid", "open")', passed: true, failures: 0 });
  });

  it("fails other values, with distinct examples in the order met", async () => {
    const rows = [{ status: "paid" }, { status: "refunded" }, { status: "PAID" }, { status: "refunded" }, { status: 1 }];
    const verdict = await judge(checks.acceptedValues("status", ["paid", "open"]), rows, { batch: 2 });
    expect(verdict.failures).toBe(4);
    expect(verdict.examples).toEqual(['"refunded"', '"PAID"', "1"]);
  });

  it('treats -0 as 0, NaN as NaN, a Date as its instant, and keeps 1 apart from "1"', async () => {
    const check = checks.acceptedValues("v", [0, Number.NaN, new Date("2026-01-05T00:00:00Z"), 1]);
    const verdict = await judge(check, [{ v: -0 }, { v: Number.NaN }, { v: new Date(Date.UTC(2026, 0, 5)) }, { v: 1 }, { v: "1" }]);
    expect(verdict.failures).toBe(1);
    expect(verdict.examples).toEqual(['"1"']);
  });

  it("shortens a long list in its name", () => {
    const check = checks.acceptedValues("n", [1, 2, 3, 4, 5, 6, 7]);
    expect(check.name).toBe("acceptedValues(n: 1, 2, 3, 4, 5, +2 more)");
  });
});
