import { ConfigError } from "../../errors.js";
import type { WriteScope } from "./database-destination.js";

/** The two hooks of a database destination that run a function as one unit. */
interface Units {
  transaction<T>(fn: () => Promise<T>, scope?: WriteScope): Promise<T>;
  snapshot<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Runs `fn` through the destination's `transaction` or `snapshot` (an override, perhaps), and
 * refuses, with ConfigError, one that returned before `fn` completed: a write it never ran would
 * otherwise be reported as done and the data silently lost. `what` says what was not done
 * (`asset "shop.orders" was not written`).
 */
export async function throughUnit<T>(
  destination: Units,
  hook: "transaction" | "snapshot",
  fn: () => Promise<T>,
  what: string,
  scope?: WriteScope,
): Promise<T> {
  let state = "not called" as "not called" | "running" | "done";
  const run = async () => {
    state = "running";
    const value = await fn();
    state = "done";
    return value;
  };
  const result = await (hook === "transaction" ? destination.transaction(run, scope) : destination.snapshot(run));
  if (state !== "done") {
    const how = state === "not called" ? "never called the function it was given" : "returned before the function it was given completed";
    // The class names the override at fault (a subclass of SQLiteDestination displays as "SQLite").
    throw new ConfigError(`${destination.constructor.name}.${hook}() ${how}, so ${what} (an override must return await fn())`);
  }
  return result;
}
