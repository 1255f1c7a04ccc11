import { describe, expect, it } from "vitest";
import { checks, median } from "../../src/check/index.js";
import { ConfigError } from "../../src/errors.js";
import { judge } from "./helpers.js";

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i }));

describe("checks.rowCount", () => {
  it("passes within min and max, inclusive, and fails outside as a whole (failures 1)", async () => {
    const check = checks.rowCount({ min: 1, max: 3 });
    expect(check.name).toBe("rowCount(min 1, max 3)");
    expect(await judge(check, rows(3), { batch: 2 })).toMatchObject({ passed: true, failures: 0, message: "3 rows" });
    expect(await judge(check, rows(0))).toMatchObject({ passed: false, failures: 1, message: "0 rows, outside min 1, max 3" });
    expect((await judge(check, rows(4))).passed).toBe(false);
  });

  it.each([[{}], [{ min: -1 }], [{ max: 1.5 }], [{ min: 3, max: 2 }]])("refuses %j", (options) => {
    expect(() => checks.rowCount(options)).toThrow(ConfigError);
  });
});

describe("checks.rowCountChange", () => {
  const check = checks.rowCountChange({ trailing: 3, maxChange: 0.5, severity: "warn" });

  it("gives no verdict while fewer than `trailing` partitions are stored, and says so", async () => {
    const verdict = await judge(check, rows(1), { history: [100, 100] });
    expect(verdict).toMatchObject({ passed: true, failures: 0, severity: "warn" });
    expect(verdict.message).toBe("no verdict: 2 of the 3 previous partitions it compares with are stored");
    // Without any history known (an unpartitioned scope), likewise.
    expect((await judge(check, rows(1))).message).toMatch(/^no verdict: 0 of the 3/);
  });

  it("compares with the median of the last `trailing` stored partitions", async () => {
    // The last three are 10, 100, 12: a median of 12, whatever the outlier.
    const history = [1000, 10, 100, 12];
    expect((await judge(check, rows(17), { history })).passed).toBe(true);
    const verdict = await judge(check, rows(19), { history });
    expect(verdict).toMatchObject({ passed: false, failures: 1 });
    expect(verdict.message).toBe("19 rows against a median of 12 over the 3 previous partitions: 58.3%, more than 50%");
    expect((await judge(check, rows(6), { history })).passed).toBe(true);
    expect((await judge(check, rows(5), { history })).passed).toBe(false);
  });

  it("against a median of 0, passes 0 rows and fails any", async () => {
    expect((await judge(check, rows(0), { history: [0, 0, 0] })).passed).toBe(true);
    expect((await judge(check, rows(1), { history: [0, 0, 0] })).message).toContain("an infinite change");
  });

  it("takes the mean of the middle two for an even count", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it.each([
    [{ maxChange: 0.5 }, "trailing is required"],
    [{ trailing: 0, maxChange: 0.5 }, "trailing must be an integer of at least 1"],
    [{ trailing: 3 }, "maxChange must be a fraction"],
    [{ trailing: 3, maxChange: -1 }, "maxChange must be a fraction"],
  ])("refuses %j", (options, words) => {
    expect(() => checks.rowCountChange(options as never)).toThrow(words);
  });
});
