import { ConfigError } from "../../errors.js";
import { requireHooks } from "../hook-check.js";

// Pairs of (per-partition hook, window method): the base's window methods never call the hook,
// so overriding the hook alone would silently change nothing.
const PAIRS = [
  ["writePartition", "write"],
  ["readPartition", "read"],
] as const;
const DIALECT_HOOKS = ["insert", "delete", "select", "count"] as const;

/** The prototype in `start`'s chain that defines `name` itself. */
function ownerOf(start: object, name: string): object | null {
  for (let proto: object | null = start; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    if (Object.hasOwn(proto, name)) return proto;
  }
  return null;
}

/**
 * Refuses, with ConfigError naming the class, a subclass of `base` that overrides a per-partition
 * hook but keeps the base's window method, or that lacks one of the four dialect hooks (the
 * runtime check for JavaScript configs and casts that TypeScript's `abstract` cannot see).
 */
export function checkDatabaseSubclass(instance: object, base: abstract new (...args: never[]) => object): void {
  const className = instance.constructor.name;
  requireHooks(instance, DIALECT_HOOKS);
  const baseProto = base.prototype as object;
  for (const [hook, windowMethod] of PAIRS) {
    const hookOwner = ownerOf(instance, hook);
    const methodOwner = ownerOf(instance, windowMethod);
    if (hookOwner !== baseProto && methodOwner === baseProto) {
      const owner = (hookOwner as { constructor: { name: string } } | null)?.constructor.name ?? className;
      throw new ConfigError(
        `destination ${className} cannot be created: ${owner} overrides ${hook}() without ${windowMethod}(); a DatabaseDestination's window methods are the contract (${windowMethod}() never calls ${hook}()), so override ${windowMethod}() as well`,
      );
    }
  }
}

/**
 * Whether the class (or object) defining `name` for `instance` is `other`'s or one below it: an
 * optional refinement of a hook (`countPeriods` of `count`) is only used while no subclass has
 * overridden the hook itself below it.
 */
export function definedAtOrBelow(instance: object, name: string, other: string): boolean {
  for (let proto: object | null = instance; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    if (Object.hasOwn(proto, name)) return true;
    if (Object.hasOwn(proto, other)) return false;
  }
  return false;
}
