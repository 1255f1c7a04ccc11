import { ConfigError } from "../errors.js";
import { closest } from "../suggest.js";
import { describeValue } from "../text/describe-value.js";

/**
 * How a destination class takes one of its options: set on its field of that name, required or
 * optional; or "private": checked like the others, but never set on the instance, because the
 * class keeps it out of sight itself (a connection holding a password).
 */
export type OptionKind = "required" | "optional" | "private";

/** The options a destination class declares (see `declareOptions`), in the order messages list them. */
export type DeclaredOptions = Readonly<Record<string, OptionKind>>;

/** Every key of an options interface `T`, marked "required" exactly where `T` requires it (or "private"). */
export type OptionKinds<T extends object> = {
  // `{} extends Pick<T, K>` holds exactly when K is optional in T: the empty object type is the point.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  readonly [K in keyof T]-?: ({} extends Pick<T, K> ? "optional" : "required") | "private";
};

/**
 * Declares the options of a destination class, as its static `options`, typed against the
 * interface its constructor takes: a key left out, or marked optional where the interface
 * requires it, does not compile. A class that declares its options has them checked when it is
 * constructed; one that does not has its fields for options, checked when an asset is bound to it.
 */
export function declareOptions<T extends object>(kinds: OptionKinds<T>): DeclaredOptions {
  return Object.freeze({ ...kinds }) as DeclaredOptions;
}

/**
 * Refuses an options object that names a key `owner` does not declare, or lacks a required one:
 * a mistyped option (`basepath` for `basePath`) must never fall back to a default silently.
 * Nothing at all is accepted where nothing is required.
 */
export function checkOptions(given: unknown, declared: DeclaredOptions, owner: string): void {
  const known = Object.keys(declared);
  const required = known.filter((key) => declared[key] === "required");
  if (given === undefined && required.length === 0) return;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new ConfigError(`${owner}: expected an options object, got ${describeValue(given)}`);
  }
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(declared, key)) throw new ConfigError(unknownOption(owner, key, known));
  }
  for (const key of required) {
    if ((given as Record<string, unknown>)[key] === undefined) throw new ConfigError(`${owner}: option "${key}" is required`);
  }
}

/** The message for an option no field or known key takes, with the nearest known key. */
export function unknownOption(owner: string, key: string, known: readonly string[]): string {
  const nearest = closest(key, known);
  const hint = nearest ? `; did you mean "${nearest}"?` : "";
  return `${owner}: unknown option "${key}"${hint} (known: ${known.join(", ") || "none"})`;
}

/** The options each destination of a class without declared options was given, and which of them its class took. */
const givenOptions = new WeakMap<object, { readonly keys: readonly string[]; readonly taken: Set<string> }>();

/**
 * Sets a destination's options on its fields, so that they win over its field initialisers, and
 * returns the instance its constructors go on with. Called by the base constructor: the class's
 * constructors see their options, and a value they compute from one stands.
 *
 * Class fields are defined on `this` after the base constructor returns, so no assignment made
 * here could survive them; the instance is instead a Proxy whose first field definition of an
 * option's key (a full data descriptor, as class fields and compiled `_defineProperty` make)
 * keeps the option's value. Later assignments (`this.x = ...`) pass through unchanged. Declared
 * options are checked here; otherwise the keys the class defined or assigned are recorded, for
 * `checkUndeclaredOptions` to refuse the others once the instance is complete.
 */
export function applyOptions<T extends object>(target: T, options: object | undefined, declared: DeclaredOptions | undefined): T {
  const owner = target.constructor.name;
  if (declared) checkOptions(options, declared, owner);
  if (options === undefined) return target;
  if (typeof options !== "object" || options === null) {
    throw new ConfigError(`destination ${owner}: expected an options object, got ${describeValue(options)}`);
  }
  const values = Object.entries(options).filter(([key]) => declared?.[key] !== "private");
  // A field the instance has already (a plain class made a destination by `@destination`
  // builds its fields first) takes its option now.
  const taken = new Set(values.map(([key]) => key).filter((key) => Object.hasOwn(target, key)));
  for (const [key, value] of values) {
    if (!Reflect.set(target, key, value)) {
      throw new ConfigError(`${owner}: option "${key}" cannot be set: it is a read-only property of the destination`);
    }
  }
  const keys = values.map(([key]) => key);
  const proxy = new Proxy(target, {
    defineProperty(object, key, descriptor) {
      if (typeof key === "string" && keys.includes(key) && !taken.has(key)) {
        taken.add(key);
        if (isFieldDefinition(descriptor)) descriptor = { ...descriptor, value: (options as Record<string, unknown>)[key] };
      }
      return Reflect.defineProperty(object, key, descriptor);
    },
  });
  if (!declared) givenOptions.set(proxy, { keys, taken });
  return proxy;
}

function isFieldDefinition(descriptor: PropertyDescriptor): boolean {
  return "value" in descriptor && descriptor.writable === true && descriptor.enumerable === true && descriptor.configurable === true;
}

/**
 * Refuses, with ConfigError naming the nearest known option, an option that a destination whose
 * class declares none never took: neither a field, nor assigned by a constructor, nor a setter
 * of a class below `base`. Called once the instance is complete: when an asset is bound to it,
 * and at once by `@destination` classes.
 */
export function checkUndeclaredOptions(destination: object, base: object): void {
  const given = givenOptions.get(destination);
  if (!given) return;
  const setters = settersOf(destination, base);
  const unknown = given.keys.filter((key) => !given.taken.has(key) && !setters.includes(key));
  if (unknown.length === 0) return;
  const known = [...Object.keys(destination).filter((key) => !unknown.includes(key)), ...setters];
  throw new ConfigError(unknownOption(destination.constructor.name, unknown[0]!, [...new Set(known)]));
}

/** Accessors with a setter that the destination's classes below `base` define. */
function settersOf(destination: object, base: object): string[] {
  const names: string[] = [];
  for (
    let proto = Object.getPrototypeOf(destination) as object | null;
    proto && proto !== base;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(proto))) if (descriptor.set) names.push(name);
  }
  return names;
}
