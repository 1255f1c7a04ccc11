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

/** Options of an undeclared class, given to its constructor, not yet set on the instance's fields. */
export type PendingOptions = ReadonlyArray<readonly [string, unknown]>;

/**
 * Checks the options given to a destination's constructor and sets, by plain assignment, those
 * that can be set at once; returns those that must wait until the instance is complete.
 *
 * A field initialiser of a subclass runs after the base constructor returns and would overwrite
 * anything set here: JavaScript offers no hook between a class's fields and the end of `new`
 * (fields are defined on the instance, which only a Proxy returned by the base constructor could
 * intercept: this code used one, at the price of a WeakMap for every private state of the base,
 * and is plainer without it). So a class that declares its options has each one set here, and assigns those it has a field
 * for in its own constructor (as the built-ins do), or declares that field with `declare`. A
 * class that declares none takes its fields as options: only the options naming an accessor
 * (a setter, or a read-only getter, refused now) are set here, the others are pending, set over
 * the fields by `setPendingOptions` once the instance is complete.
 */
export function takeOptions(target: object, options: object | undefined, declared: DeclaredOptions | undefined): PendingOptions {
  const owner = target.constructor.name;
  if (declared) checkOptions(options, declared, owner);
  if (options === undefined) return [];
  if (typeof options !== "object" || options === null) {
    throw new ConfigError(`destination ${owner}: expected an options object, got ${describeValue(options)}`);
  }
  const entries = Object.entries(options).filter(([key]) => declared?.[key] !== "private");
  const now = declared ? entries : entries.filter(([key]) => accessorOf(target, key) !== undefined);
  for (const [key, value] of now) assign(target, key, value, owner);
  return declared ? [] : entries.filter((entry) => !now.includes(entry));
}

/**
 * Sets the pending options of an undeclared class on the fields of the same names, over their
 * initialisers, once the instance is complete; ConfigError naming the nearest known option for
 * one no field (nor setter of a class below `base`) takes: a mistyped option never falls back
 * to a default silently.
 */
export function setPendingOptions(target: object, pending: PendingOptions, base: object): void {
  const owner = target.constructor.name;
  const unknown = pending.filter(([key]) => !Object.hasOwn(target, key)).map(([key]) => key);
  if (unknown.length > 0) {
    const known = [...Object.keys(target), ...settersOf(target, base)].filter((key) => !unknown.includes(key));
    throw new ConfigError(unknownOption(owner, unknown[0]!, [...new Set(known)]));
  }
  for (const [key, value] of pending) assign(target, key, value, owner);
}

function assign(target: object, key: string, value: unknown, owner: string): void {
  if (!Reflect.set(target, key, value)) {
    throw new ConfigError(`${owner}: option "${key}" cannot be set: it is a read-only property of the destination`);
  }
}

/** The accessor `key` names on the instance's prototypes, if any. */
function accessorOf(target: object, key: string): PropertyDescriptor | undefined {
  for (let proto = Object.getPrototypeOf(target) as object | null; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, key);
    if (descriptor) return descriptor.get || descriptor.set ? descriptor : undefined;
  }
  return undefined;
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
