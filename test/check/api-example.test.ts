import { expect, it } from "vitest";
import * as il from "../../src/index.js";

it("the api's example of a custom check type-checks", () => {
  const made = il.check(
    "no refund above 10k",
    (rows, ctx) => rows.every((r) => r.amount > -10_000) || `a refund above 10k in ${ctx.asset}`,
  );
  expect(made.name).toBe("no refund above 10k");
  type Order = { amount: number };
  const typed = il.check<Order>("positive", (rows) => rows.every((r) => r.amount > 0));
  // @ts-expect-error a field the named row type lacks
  il.check<Order>("misspelt", (rows) => rows.every((r) => r.amout > 0));
  expect(typed.type).toBe("custom");
});
