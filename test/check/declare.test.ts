// Declaring checks: their names, describeCheck's text, and the ConfigErrors of bad options.
import { describe, expect, it } from "vitest";
import { assetChecks, check, checks, describeCheck, isCheck } from "../../src/check/index.js";
import { ConfigError } from "../../src/errors.js";

describe("describeCheck", () => {
  it("says each check in one line, the severity only when it is warn", () => {
    expect(describeCheck(checks.unique("order_id"))).toBe("unique(order_id)");
    expect(describeCheck(checks.unique("day", "order_id"))).toBe("unique(day, order_id)");
    expect(describeCheck(checks.range("amount", { min: 0, severity: "warn" }))).toBe("range(amount, min 0) warn");
    expect(describeCheck(checks.range("day", { min: "2026-01-01", max: new Date(Date.UTC(2026, 11, 31)) }))).toBe(
      "range(day, min 2026-01-01, max 2026-12-31T00:00:00.000Z)",
    );
    expect(describeCheck(checks.notNull("a", "b"))).toBe("notNull(a, b)");
    expect(describeCheck(checks.acceptedValues("status", ["paid", "open"]))).toBe('acceptedValues(status: "paid", "open")');
    expect(describeCheck(checks.rowCount({ min: 1 }))).toBe("rowCount(min 1)");
    expect(describeCheck(checks.rowCountChange({ trailing: 7, maxChange: 0.5, severity: "warn" }))).toBe(
      "rowCountChange(trailing 7, maxChange 0.5) warn",
    );
    expect(describeCheck(check("no refund above 10k", () => true))).toBe('check("no refund above 10k")');
  });

  it("makes frozen checks", () => {
    const made = checks.notNull("id");
    expect(isCheck(made)).toBe(true);
    expect(Object.isFrozen(made)).toBe(true);
    expect(made.columns).toEqual(["id"]);
  });
});

describe("bad declarations are one-line ConfigErrors", () => {
  it.each([
    ["notNull without columns", () => checks.notNull(...([] as unknown as [string]))],
    ["a column that is not a string", () => checks.unique(3 as unknown as string)],
    ["a column named twice", () => checks.unique("id", "id")],
    ["acceptedValues without values", () => checks.acceptedValues("status", [])],
    ["options that are not an object", () => checks.rowCount(5 as never)],
    ["a severity of another name", () => checks.unique("id", { severity: "fatal" as never })],
  ])("%s", (_label, make) => {
    let error: unknown;
    try {
      make();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain("\n");
    expect((error as Error).message).toMatch(/^il\.checks\./);
  });

  it("refuses an asset's checks that are not checks, or two of one name", () => {
    expect(() => assetChecks("orders", "unique")).toThrow('asset "orders": checks must be an array');
    expect(() => assetChecks("orders", [checks.unique("id"), { name: "x" }])).toThrow('asset "orders": checks[1] is not a check');
    expect(() => assetChecks("orders", [checks.unique("id"), checks.unique("id")])).toThrow('two checks are named "unique(id)"');
  });
});
