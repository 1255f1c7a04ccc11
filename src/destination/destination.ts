import { resolve } from "node:path";
import type { Partition } from "../partitioning/index.js";
import { TableData, type Row } from "../representation/index.js";
import type { AssetRef, IOContext } from "./io-context.js";
import { missingHook, requireHooks } from "./hook-check.js";
import { setPendingOptions, takeOptions, type DeclaredOptions, type PendingOptions } from "./options.js";
import type { MaybePromise } from "../maybe-promise.js";
import type { PartitionCounts } from "./unreadable.js";
import type { Materialization } from "./provenance/materialization.js";

/** How many records of each partition's past writes a destination keeps at least. */
export const HISTORY_KEPT = 10;

/** Which records `materializationHistory` gives. */
export interface HistoryQuery {
  /** One partition's writes; undefined: every partition's (null: the whole of an unpartitioned asset). */
  readonly partition?: Partition | null;
  /** At most this many, the newest. */
  readonly limit: number;
}

/** The three hooks every destination implements. */
export const HOOKS = ["writePartition", "readPartition", "partitionRowCounts"] as const;

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

/** An instance a plain class built, for the next `Destination` constructor to take as its own (see `adoptAsDestination`). */
let adopting: object | undefined;

/** Sets a destination's pending options (see `checkDestinationOptions`); defined by `Destination`, which holds them. */
let completeOptions: (destination: Destination) => void;

/**
 * The base of `Destination`: it builds the instance, unless one is being adopted, which its
 * constructor then returns instead, so that `Destination`'s constructor (its private fields,
 * its checks, its options) runs on an instance a plain class built (see decorator.ts).
 */
class DestinationBase {
  constructor() {
    const instance = adopting;
    adopting = undefined;
    if (instance) return instance as DestinationBase;
  }
}

/**
 * Where and how an asset's data is stored. A destination implements three partition hooks; the
 * base turns window writes into one write per partition and joins window reads.
 */
export abstract class Destination extends DestinationBase {
  /** The display name, set by `@destination({ name })`; defaults to the class name. */
  static destinationName?: string;
  static relations?: DestinationRelations;
  /**
   * The options the class takes, declared with `declareOptions` (the built-ins all do): given
   * ones are checked at construction, unknown and missing keys refused. A class that declares
   * none takes its fields (and setters) as options, checked once the instance is complete.
   */
  static readonly options?: DeclaredOptions;

  /** The options of a class that declares none, set once the instance is complete (see `takeOptions`). */
  #pendingOptions: PendingOptions;
  /** The folder relative paths resolve against, fixed at the first resolution (see `resolvePathsFrom`). */
  #pathBase: string | undefined;

  /**
   * Checks the options and sets them by plain assignment (see `takeOptions`): a class that
   * declares its options assigns them to its fields in its constructor; one that does not has
   * them set over its fields once the instance is complete. Options a class declares "private"
   * are left for its own constructor to keep.
   */
  constructor(options?: object) {
    super();
    requireHooks(this, HOOKS);
    this.#pendingOptions = takeOptions(this, options, (new.target as typeof Destination).options);
  }

  static {
    // Module functions below that reach the private state, without a method on the public class.
    completeOptions = (destination) => {
      // Kept until they are set: a destination with a typo is refused by every asset bound to it.
      setPendingOptions(destination, destination.#pendingOptions, Destination.prototype);
      destination.#pendingOptions = [];
    };
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
   * Checks, before any destination of the asset is written, that this one can take data of
   * `context.schema`; throws (a SchemaError) when it cannot, and nothing is written anywhere.
   * Nothing by default; SQL destinations refuse a column whose type changed.
   */
  async checkWrite(_context: IOContext): Promise<void> {}

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
   * Optional (provenance): the record each stored partition was last written with (see
   * `IOContext.materialization`), by partition key ("" for an unpartitioned asset): those of the
   * context's window, or every stored partition when it has none. A partition left out has
   * unknown provenance (written before records were kept, or by a destination without them) and
   * is never called stale. A record that cannot be read is left out, with one warning through
   * `context.logger` naming where it is.
   */
  materializations?(context: IOContext): MaybePromise<Record<string, Materialization>>;
  /**
   * Optional (provenance): the records of past writes, newest first, at most `query.limit`. A
   * destination keeps at least the last `HISTORY_KEPT` records of each partition until its asset
   * is dropped (the built-in ones say in docs/destinations.md how many more).
   */
  materializationHistory?(context: IOContext, query: HistoryQuery): MaybePromise<Materialization[]>;

  /**
   * Releases what the destination holds open (a database pool, a client), so that a program can
   * exit once its work is done; a later use opens it again. Nothing by default. Whoever created
   * the destination closes it: a project loaded from a config closes its own when it is done
   * with them, a run never closes one.
   */
  async close(): Promise<void> {}

  /**
   * Loads every optional package (driver, SDK) this destination will need, connecting to
   * nothing: `interloper check` calls it so that a missing one is reported before a run needs
   * it. ConfigError naming the install command when one is missing; nothing to load by default.
   */
  async loadDrivers(): Promise<void> {}

  /**
   * The hook this destination lacks to drop an asset, as its signature (`dropAsset(context)`),
   * or null when it can. A full refresh checks every destination before it drops anything.
   */
  missingDropHook(): string | null {
    return missingHook(this, ["dropAsset(context)"]);
  }

  /**
   * What coverage counts: the row counts of `partitionRowCounts`, and the stored partitions whose
   * data cannot be read (a file cut short), which the built-in file and object destinations
   * report rather than fail the whole count; none by default.
   */
  async partitionCounts(context: IOContext): Promise<PartitionCounts> {
    return { counts: await this.partitionRowCounts(context), unreadable: {} };
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
    this.#pathBase ??= resolve(folder);
  }

  /** An option's path made absolute (see `resolvePathsFrom`). */
  protected resolvePath(path: string): string {
    this.#pathBase ??= process.cwd();
    return resolve(this.#pathBase, path);
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
    // eslint-disable-next-line no-useless-assignment -- dropped for the collector, as said above
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

  override toString(): string {
    return this.displayName;
  }
}

/**
 * Sets the options given to a destination whose class declares none on its fields, over their
 * initialisers, once (later calls do nothing); ConfigError naming the nearest known option for
 * one it never takes. Called once the instance is complete: by `@destination` classes at once,
 * and when an asset is bound to the destination, so that a config with a typo fails to load.
 */
export function checkDestinationOptions(destination: Destination): void {
  completeOptions(destination);
}

/**
 * Runs `Destination`'s constructor on an instance a plain class built (its fields and
 * constructor already run, on the prototype of `newTarget`), and returns it: a plain class
 * decorated with `@destination` becomes a destination like any subclass.
 */
export function adoptAsDestination(instance: object, options: unknown, newTarget: abstract new (...args: never[]) => object): Destination {
  adopting = instance;
  try {
    return Reflect.construct(Destination, [options], newTarget) as Destination;
  } finally {
    adopting = undefined;
  }
}

/** A slice's data, no longer held by the list. */
function handOver(slices: Array<[Partition | null, unknown]>, index: number): unknown {
  const [partition, data] = slices[index]!;
  slices[index] = [partition, undefined];
  return data;
}
