import { describe, expect, it } from "vitest";
import { checks } from "../../src/check/index.js";
import { ConfigError } from "../../src/errors.js";
import { judge } from "./helpers.js";

describe("checks.range over numbers", () => {
  it("is inclusive at both ends and lets nulls pass", async () => {
    const verdict = await judge(checks.range("amount", { min: 0, max: 10 }), [
      { amount: 0 },
      { amount: 10 },
      { amount: 5.5 },
      { amount: null },
    ]);
    expect(verdict).toMatchObject({ name: "range(amount, min 0, max 10)", passed: true });
  });

  it("fails values outside, NaN, and values that are not numbers", async () => {
    const rows = [{ amount: -1 }, { amount: 11 }, { amount: Number.NaN }, { amount: "5" }, { amount: 3 }];
    const verdict = await judge(checks.range("amount", { min: 0, max: 10 }), rows);
    expect(verdict.failures).toBe(4);
    expect(verdict.examples).toEqual(["-1", "11", "NaN", '"5"']);
  });

  it("takes one bound alone, -0 at a bound of 0, and bigints", async () => {
    expect((await judge(checks.range("n", { min: 0 }), [{ n: -0 }, { n: 9007199254740993n }])).passed).toBe(true);
    expect((await judge(checks.range("n", { max: 0 }), [{ n: 1n }])).failures).toBe(1);
  });
});

describe("checks.range over dates", () => {
  it("compares ISO strings as instants: an offset counts, a string without a zone is UTC", async () => {
    const check = checks.range("at", { min: "2026-01-05", max: "2026-01-05T23:59:59.999Z" });
    const rows = [
      { at: "2026-01-05" },
      { at: "2026-01-05T12:00:00" }, // no zone: UTC, in any process time zone
      { at: "2026-01-05T23:30:00+05:30" }, // 18:00 UTC on the 5th: inside
      { at: "2026-01-05T23:30:00-08:00" }, // 07:30 UTC on the 6th: outside
      { at: "2026-01-04T23:59:59.999Z" },
    ];
    const verdict = await judge(check, rows);
    expect(verdict.failures).toBe(2);
    expect(verdict.examples).toEqual(['"2026-01-05T23:30:00-08:00"', '"2026-01-04T23:59:59.999Z"']);
  });

  it("compares Dates with Date bounds and with string bounds", async () => {
    const rows = [{ at: new Date(Date.UTC(2026, 0, 1)) }, { at: new Date(Date.UTC(2025, 11, 31, 23)) }, { at: new Date(Number.NaN) }];
    const byDate = await judge(checks.range("at", { min: new Date(Date.UTC(2026, 0, 1)) }), rows);
    const byText = await judge(checks.range("at", { min: "2026-01-01T00:00:00Z" }), rows);
    expect(byDate.failures).toBe(2);
    expect(byText.failures).toBe(2);
    expect(byDate.examples).toEqual(["2025-12-31T23:00:00.000Z", "Invalid Date"]);
  });

  it("fails a number or an unreadable string among dates", async () => {
    const verdict = await judge(checks.range("at", { max: "2026-12-31" }), [{ at: 5 }, { at: "yesterday" }, { at: "2026-02-30" }]);
    expect(verdict.failures).toBe(3);
  });
});

describe("checks.range options", () => {
  it.each([
    [{}, "give min, max or both"],
    [{ min: Number.NaN }, "min must be a number, a Date or an ISO date"],
    [{ min: "soon" }, 'got string "soon"'],
    [{ min: 0, max: "2026-01-01" }, "both be numbers or both be dates"],
    [{ min: 5, max: 1 }, "min 5 is above max 1"],
    [{ min: 0, below: 3 }, 'unknown option "below"'],
    [{ min: 0, severity: "fatal" }, 'severity must be "error" or "warn"'],
  ])("refuses %j with a one-line ConfigError", (options, words) => {
    let error: unknown;
    try {
      checks.range("amount", options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('il.checks.range("amount")');
    expect((error as Error).message).toContain(words);
    expect((error as Error).message).not.toContain("\n");
  });
});
