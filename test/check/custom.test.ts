import { describe, expect, it } from "vitest";
import { check, verifyChecks } from "../../src/check/index.js";
import { ConfigError } from "../../src/errors.js";
import { TimePartition } from "../../src/partitioning/index.js";
import { judge } from "./helpers.js";

describe("il.check", () => {
  it("passes on true, fails on false or a message", async () => {
    const rows = [{ amount: 5 }, { amount: -20_000 }];
    expect(
      await judge(
        check("small", () => true),
        rows,
      ),
    ).toMatchObject({ name: "small", passed: true, failures: 0 });
    expect(
      await judge(
        check("never", () => false),
        rows,
      ),
    ).toMatchObject({ passed: false, failures: 1, message: "failed" });
    const refunds = check("no refund above 10k", (all) => all.every((r) => (r["amount"] as number) > -10_000) || "a refund above 10k");
    expect(await judge(refunds, rows)).toMatchObject({ passed: false, message: "a refund above 10k" });
  });

  it("may be async, and is given every row of a streamed partition gathered, with the asset and partition", async () => {
    let seen: unknown;
    const counted = check("count", async (rows, ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen = { n: rows.length, ...ctx };
      return rows.length === 5;
    });
    async function* stream() {
      yield [{ a: 1 }, { a: 2 }];
      yield [{ a: 3 }];
      yield [{ a: 4 }, { a: 5 }];
    }
    const [verdict] = await verifyChecks({ qualifiedKey: "shop.orders", checks: [counted] }, new TimePartition("2026-01-05"), stream());
    expect(verdict!.passed).toBe(true);
    expect(seen).toEqual({ n: 5, asset: "shop.orders", partition: "2026-01-05" });
  });

  it("fails a check that throws or returns something else, saying what happened", async () => {
    const thrown = await judge(
      check("boom", () => {
        throw new Error("no such column");
      }),
      [],
    );
    expect(thrown).toMatchObject({ passed: false, message: "threw: no such column" });
    const odd = await judge(check("odd", (() => undefined) as never), []);
    expect(odd.message).toBe("returned undefined; a check returns true, false or a message");
  });

  it("refuses a bad name or a rule that is not a function in one line", () => {
    expect(() => check("", () => true)).toThrow(/^il\.check\(name, fn\): name must be a non-empty string, got string ""$/);
    expect(() => check("x", "rows.length > 0" as never)).toThrow(ConfigError);
    expect(() => check("x", "rows.length > 0" as never)).toThrow(/^il\.check\("x"\): the rule must be a function/);
  });
});
