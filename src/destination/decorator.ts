import { ConfigError } from "../errors.js";
import { adoptAsDestination, checkDestinationOptions, Destination, HOOKS, type DestinationRelations } from "./destination.js";
import { describeValue } from "../text/describe-value.js";

/**
 * Options of the `@destination` class decorator: the display name, the relations, and any other
 * key as a value of the class: a static of that name takes it as its new value, otherwise it is
 * the default of the instances' field (an option given to `new` still wins over it).
 */
export interface DestinationOptions {
  /** The display name (defaults to the class name). */
  readonly name?: string;
  readonly relations?: DestinationRelations;
  readonly [key: string]: unknown;
}

type AnyClass = abstract new (...args: never[]) => object;
type Constructor = new (...args: unknown[]) => object;

/**
 * Declares a destination class: its display name, relations and default values; an option the
 * class does not take is then refused by `new X({...})` itself. A subclass of `Destination` is
 * decorated as it is; a plain class with the three hooks becomes one, its methods and fields
 * kept (in TypeScript, `interface X extends il.Destination {}` next to it gives it the type).
 */
export function destination(options: DestinationOptions = {}) {
  return function decorate<C extends AnyClass>(target: C, context?: ClassDecoratorContext<C>): C {
    if (typeof target !== "function") throw new ConfigError(`@destination applies to classes, got ${describeValue(target)}`);
    const base =
      target.prototype instanceof Destination ? (target as unknown as Constructor) : destinationOf(target as unknown as Constructor);
    const { name, relations, ...values } = options;
    const defaults: Record<string, unknown> = {};
    const decorated = class extends base {
      constructor(...args: unknown[]) {
        super(...withDefaults(args, defaults));
        // The class's fields are all defined by now: the options it takes as fields are set
        // over them, and the ones it does not take refused, as soon as it is constructed.
        checkDestinationOptions(this as unknown as Destination);
      }
    };
    Object.defineProperty(decorated, "name", { value: target.name });
    // A value naming a static is the class's; any other is a field default. The statics of a
    // class decorated with `@` are defined only once the decorator has returned.
    const assign = () => {
      for (const [key, value] of Object.entries(values)) {
        if (key in decorated && !(key in Function.prototype)) {
          Object.defineProperty(decorated, key, { value, writable: true, enumerable: true, configurable: true });
        } else defaults[key] = value;
      }
    };
    if (context) context.addInitializer(assign);
    else assign();
    const declared = decorated as unknown as typeof Destination;
    declared.destinationName = typeof name === "string" ? name : target.name;
    if (relations) declared.relations = relations;
    return decorated as unknown as C;
  };
}

/** The constructor's arguments with the decorator's defaults under the options given. */
function withDefaults(args: unknown[], defaults: Record<string, unknown>): unknown[] {
  if (Object.keys(defaults).length === 0) return args;
  const [given, ...rest] = args;
  if (given === undefined) return [{ ...defaults }, ...rest];
  // Anything but an options object goes on as it is, for the base to refuse by name.
  if (typeof given !== "object" || given === null || Array.isArray(given)) return args;
  return [{ ...defaults, ...given }, ...rest];
}

/**
 * A Destination made of a plain class: its methods (and accessors) on a prototype below
 * Destination's, its constructor run for each instance (so its field initialisers run), then
 * Destination's constructor on that instance (see `adoptAsDestination`); its statics inherited.
 */
function destinationOf(target: Constructor): Constructor {
  const missing = HOOKS.find((hook) => typeof (target.prototype as Record<string, unknown>)[hook] !== "function");
  if (missing) {
    throw new ConfigError(
      `@destination applies to subclasses of il.Destination and to classes with ${HOOKS.map((h) => `${h}()`).join(", ")}, but class ${target.name || "(anonymous)"} has no ${missing}()`,
    );
  }
  const prototype = Object.create(Destination.prototype) as object;
  copyMembers(target.prototype as object, Object.prototype, prototype, ["constructor"]);
  const Made = function (this: unknown, ...args: unknown[]): object {
    if (!new.target) throw new TypeError(`class ${target.name} cannot be invoked without 'new'`);
    // The class's own constructor, with its field initialisers, builds the instance from the
    // prototype of the class actually constructed.
    return adoptAsDestination(Reflect.construct(target, args, new.target) as object, args[0], new.target as unknown as Constructor);
  };
  Object.defineProperty(prototype, "constructor", { value: Made, writable: true, configurable: true });
  Made.prototype = prototype;
  // The class's statics by inheritance: those of a class decorated with `@` are defined later.
  Object.setPrototypeOf(Made, target);
  return Made as unknown as Constructor;
}

/** Copies the members of `from` and of its prototypes up to `until` onto `to`; the nearest definition wins. */
function copyMembers(from: object, until: object, to: object, skip: readonly string[]): void {
  const copied = new Set<PropertyKey>(skip);
  for (let source: object | null = from; source && source !== until; source = Object.getPrototypeOf(source) as object | null) {
    for (const key of Reflect.ownKeys(source)) {
      if (copied.has(key)) continue;
      copied.add(key);
      Object.defineProperty(to, key, Object.getOwnPropertyDescriptor(source, key)!);
    }
  }
}
