import { ConfigError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";

/**
 * The first of `signatures` (`dropAsset(context)`, `insert()`) whose method `instance` lacks, or
 * null when it has them all. Optional hooks are declared without a body, so only a function
 * counts: TypeScript's `abstract` cannot see into JavaScript configs and casts.
 */
export function missingHook(instance: object, signatures: readonly string[]): string | null {
  const has = (name: string) => typeof (instance as Record<string, unknown>)[name] === "function";
  return signatures.find((signature) => !has(signature.slice(0, signature.indexOf("(")))) ?? null;
}

/** Refuses, with ConfigError naming the class and the hook, a destination lacking one of `hooks`. */
export function requireHooks(instance: object, hooks: readonly string[]): void {
  const missing = missingHook(
    instance,
    hooks.map((hook) => `${hook}()`),
  );
  if (missing) throw new ConfigError(`destination ${instance.constructor.name} cannot be created: it does not implement ${missing}`);
}

/**
 * What a hook that gives an object's bytes returned, checked: null or undefined (a hook that
 * returns nothing for a missing object) is absent, anything else but bytes a ConfigError naming
 * the call, never an empty partition.
 */
export function checkedBytes(bytes: unknown, call: string): Uint8Array | null {
  if (bytes === null || bytes === undefined) return null;
  if (bytes instanceof Uint8Array) return bytes;
  throw new ConfigError(
    `${call} returned ${describeValue(bytes)}: expected the object's bytes (a Uint8Array), or null when it does not exist`,
  );
}
