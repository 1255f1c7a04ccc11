import { resolve } from "node:path";
import { ConfigError } from "../errors.js";
import type { Partition } from "../partitioning/index.js";
import { TableData, type Row } from "../representation/index.js";
import type { AssetRef, IOContext } from "./io-context.js";
import { missingHook, requireHooks } from "./hook-check.js";
import { unknownOption } from "./options.js";
import type { MaybePromise } from "../maybe-promise.js";

const HOOKS = ["writePartition", "readPartition", "partitionRowCounts"] as const;
const DECORATED = Symbol("interloper.decorated");

/** What `dropAsset` would remove of an asset, for `materialize --full-refresh --dry-run`. */
export interface DropTarget {
  /** What is dropped, with where: `folder /abs/data/shop/orders`, `table shop.orders in /abs/warehouse.db`. */
  readonly what: string;
  /** Stored partitions found; null for an unpartitioned asset, or when the destination cannot count them. */
  readonly partitions: number | null;
  /** Whether anything is stored there to drop. */
  readonly exists: boolean;
}

/** Classes a destination relates to, such as its connection; declared with `@destination`. */
export interface DestinationRelations {
  readonly [name: string]: unknown;
}

/**
 * Where and how an asset's data is stored. A destination implements three partition hooks; the
 * base turns window writes into one write per partition and joins window reads.
 */
export abstract class Destination {
  /** The display name, set by `@destination({ name })`; defaults to the class name. */
  static destinationName?: string;
  static relations?: DestinationRelations;
  constructor(options?: object) {
    requireHooks(this, HOOKS);
    // A decorated class applies its options itself, strictly, once its fields exist. Any other
    // class gets them now, for its constructors to see, and again over its field initialisers,
    // which run after this constructor returns (see `optionsOverFields`).
    if (options !== undefined && !Object.hasOwn(new.target, DECORATED)) return optionsOverFields(this, options);
  }

  /** Stores one partition (null: the whole of an unpartitioned asset), replacing what it held. */
  abstract writePartition(context: IOContext, partition: Partition | null, data: unknown): MaybePromise<void>;
  /** Reads one partition back; DataNotFoundError when it was never written. */
  abstract readPartition(context: IOContext, partition: Partition | null): MaybePromise<unknown>;
  /** Rows per stored partition key, for coverage. */
  abstract partitionRowCounts(context: IOContext): MaybePromise<Record<string, number>>;
  /**
   * Optional: stores one partition from row batches as they arrive, without holding the
   * partition in memory. Destinations without it receive streamed data collected.
   */
  writePartitionStream?(context: IOContext, partition: Partition | null, batches: AsyncIterable<Row[]>): Promise<void>;
  /**
   * Optional: refuses, with ConfigError, assets this destination could not keep apart (two
   * storage names it would take for one). Called when a DAG is built, with every asset of the
   * DAG bound to this destination.
   */
  checkAssets?(assets: readonly AssetRef[]): void;
  /**
   * Optional: removes everything this destination holds of the asset (every partition, and any
   * bookkeeping of its own such as row-count records), and nothing of any other asset. Called by
   * `materialize --full-refresh` before the window is rebuilt: the way out of a schema change.
   */
  dropAsset?(context: IOContext): MaybePromise<void>;

  /**
   * The hook this destination lacks to drop an asset, as its signature (`dropAsset(context)`),
   * or null when it can. A full refresh checks every destination before it drops anything.
   */
  missingDropHook(): string | null {
    return missingHook(this, ["dropAsset(context)"]);
  }

  /**
   * What `dropAsset` would remove. By default the asset in `location`, its stored partitions
   * counted by `partitionRowCounts`; the built-in destinations name their folder, table or prefix.
   */
  async describeDrop(context: IOContext): Promise<DropTarget> {
    const partitions = context.asset.partitioning ? Object.keys(await this.partitionRowCounts(context)).length : null;
    const where = this.location === null ? "" : ` in ${this.location}`;
    return { what: `asset "${context.asset.key}"${where}`, partitions, exists: partitions === null || partitions > 0 };
  }

  /**
   * Makes the relative paths of this destination's options resolve against `folder`: a config
   * loaded by the CLI (or `loadProject`) passes its own folder, so that `./data` means the
   * same folder from wherever the command runs. Without it they resolve against the current
   * folder. Only the first base counts, and none once a path has been resolved: a destination
   * never moves its data while in use.
   */
  resolvePathsFrom(folder: string): void {
    if (!pathBases.has(this)) pathBases.set(this, resolve(folder));
  }

  /** An option's path made absolute (see `resolvePathsFrom`). */
  protected resolvePath(path: string): string {
    if (!pathBases.has(this)) pathBases.set(this, process.cwd());
    return resolve(pathBases.get(this)!, path);
  }

  /**
   * Where the data is kept, for `list --verbose`: an absolute path, or a URL without its
   * password; null when the destination does not say.
   */
  get location(): string | null {
    return null;
  }

  /** The destination's name for messages and UIs. */
  get displayName(): string {
    const ctor = this.constructor as typeof Destination;
    return ctor.destinationName ?? ctor.name;
  }

  /** Writes a window: one `writePartition` per partition, each given its slice of the data. */
  async write(context: IOContext, data: unknown): Promise<void> {
    const slices = context.slices(data);
    // V8 keeps an async function's variables alive across await: each slice is handed over
    // rather than held here, so that a destination done with the rows before its I/O (as
    // CSVDestination is, once they are encoded) lets them be collected while young.
    data = undefined;
    for (let i = 0; i < slices.length; i++) await this.writePartition(context, slices[i]![0], handOver(slices, i));
  }

  /**
   * Reads a window, oldest partition first, joined into one table; non-tabular partitions come
   * back as an array of values (a window of one gives its value itself).
   */
  async read(context: IOContext): Promise<unknown> {
    const values: unknown[] = [];
    for (const partition of context.partitions) values.push(await this.readPartition(context, partition));
    if (values.length === 1) return values[0];
    const tables = values.map((value) => TableData.from(value));
    if (tables.some((table) => table === null)) return values;
    return TableData.join(tables as TableData[]).data;
  }

  toString(): string {
    return this.displayName;
  }
}

/**
 * The folder each destination's relative paths resolve against, fixed at the first resolution.
 * Kept outside the instance, not in a private field: an undecorated class's instance is a Proxy
 * (see `optionsOverFields`), and private fields cannot be reached through one.
 */
const pathBases = new WeakMap<Destination, string>();

/** The options each undecorated destination was given, and which of them its class took. */
const givenOptions = new WeakMap<Destination, { readonly keys: readonly string[]; readonly taken: Set<string> }>();

/**
 * Applies an undecorated destination's options so that they win over its field initialisers.
 * Class fields are defined on `this` after the base constructor returns, so no assignment made
 * here could survive them; the instance is instead a Proxy whose first field definition of an
 * option's key (a full data descriptor, as class fields and compiled `_defineProperty` make)
 * keeps the option's value. Later assignments (`this.x = ...`) pass through unchanged. The keys
 * its class defined or assigned are recorded, for `checkDestinationOptions` to refuse the others.
 */
function optionsOverFields(target: Destination, options: object): Destination {
  applyOptions(target, options);
  const keys = Object.keys(options);
  const taken = new Set<string>();
  const proxy = new Proxy(target, {
    defineProperty(object, key, descriptor) {
      if (typeof key === "string" && keys.includes(key) && !taken.has(key)) {
        taken.add(key);
        if (isFieldDefinition(descriptor)) descriptor = { ...descriptor, value: (options as Record<string, unknown>)[key] };
      }
      return Reflect.defineProperty(object, key, descriptor);
    },
  });
  givenOptions.set(proxy, { keys, taken });
  return proxy;
}

function isFieldDefinition(descriptor: PropertyDescriptor): boolean {
  return "value" in descriptor && descriptor.writable === true && descriptor.enumerable === true && descriptor.configurable === true;
}

/**
 * Refuses, with ConfigError naming the nearest known option, an option an undecorated
 * destination's class never took: neither a field, nor assigned by a constructor, nor a setter.
 * Called when an asset is bound to the destination, so that a config with a typo fails to load.
 */
export function checkDestinationOptions(destination: Destination): void {
  const given = givenOptions.get(destination);
  if (!given) return;
  const unknown = given.keys.filter((key) => !given.taken.has(key) && !hasSetter(destination, key));
  if (unknown.length === 0) return;
  const known = [...Object.keys(destination).filter((key) => !unknown.includes(key)), ...settersOf(destination)];
  throw new ConfigError(unknownOption(destination.constructor.name, unknown[0]!, [...new Set(known)]));
}

/** Accessors with a setter that the destination's classes below Destination define. */
function settersOf(destination: Destination): string[] {
  const names: string[] = [];
  for (let proto = Object.getPrototypeOf(destination); proto && proto !== Destination.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(proto))) if (descriptor.set) names.push(name);
  }
  return names;
}

function hasSetter(destination: Destination, key: string): boolean {
  return settersOf(destination).includes(key);
}

/**
 * Sets a destination's fields from its options. Once the class's fields exist (`strict`), an
 * option naming none of them is refused: a typo must not pass silently.
 */
function applyOptions(target: object, options: object, strict = false): void {
  if (typeof options !== "object" || options === null) {
    throw new ConfigError(`destination ${target.constructor.name}: expected an options object, got ${String(options)}`);
  }
  for (const [name, value] of Object.entries(options)) {
    if (strict && !(name in target)) {
      const known = [...Object.keys(target), ...settersOf(target as Destination)];
      throw new ConfigError(unknownOption(target.constructor.name, name, [...new Set(known)]));
    }
    if (!Reflect.set(target, name, value)) {
      throw new ConfigError(`${target.constructor.name}: option "${name}" cannot be set: it is a read-only property of the destination`);
    }
  }
}

/** Options of the `@destination` class decorator. */
export interface DestinationOptions {
  /** The display name (defaults to the class name). */
  readonly name?: string;
  readonly relations?: DestinationRelations;
}

type DestinationClass = abstract new (...args: never[]) => Destination;

/**
 * Declares a destination class: its display name and relations, and makes `new X({...})` set
 * the class's own fields after their defaults are initialised (class fields would otherwise
 * overwrite options applied by the base constructor).
 */
export function destination(options: DestinationOptions = {}) {
  return function decorate<C extends DestinationClass>(target: C, _context?: ClassDecoratorContext<C>): C {
    if (typeof target !== "function" || !(target.prototype instanceof Destination)) {
      const name = typeof target === "function" ? `class ${target.name || "(anonymous)"}` : String(target);
      throw new ConfigError(`@destination applies to subclasses of il.Destination, but ${name} does not extend it`);
    }
    // Typed as a plain constructor: the decorated class is as abstract as the one it wraps.
    const base = target as unknown as new (...args: unknown[]) => object;
    const decorated = class extends base {
      constructor(...args: unknown[]) {
        super(...args);
        if (args[0] !== undefined) applyOptions(this, args[0] as object, true);
      }
    };
    Object.defineProperty(decorated, "name", { value: target.name });
    Object.defineProperty(decorated, DECORATED, { value: true });
    const statics = decorated as unknown as typeof Destination;
    statics.destinationName = options.name ?? target.name;
    if (options.relations) statics.relations = options.relations;
    return decorated as unknown as C;
  };
}

/** A slice's data, no longer held by the list. */
function handOver(slices: Array<[Partition | null, unknown]>, index: number): unknown {
  const [partition, data] = slices[index]!;
  slices[index] = [partition, undefined];
  return data;
}
