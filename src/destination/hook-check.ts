import { ConfigError } from "../errors.js";

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
