import type { z } from "zod";
import { ConfigError } from "../errors.js";
import { assetChecks, type Check } from "../check/index.js";
import type { Destination } from "../destination/index.js";
import { PartitionConfig, TimeWindowMapping } from "../partitioning/index.js";
import type { ConformStrategy } from "../schema/index.js";
import type { NativeKinds, Row, TableData } from "../representation/index.js";
import type { ExecutionContext } from "./execution-context.js";
import { checkKey, checkTags } from "./keys.js";
import { closest } from "../suggest.js";

/** A zod object schema, as assets declare them. */
export type ObjectSchema = z.ZodObject<z.ZodRawShape>;

/** Destination classes an asset or source accepts. */
export type DestinationClass = abstract new (...args: never[]) => Destination;

/** One destination, a list, or named destinations (the names are what `defaultDestinationKey` picks). */
export type DestinationsInput = Destination | readonly Destination[] | Readonly<Record<string, Destination>>;

/** Restrictions on what may be bound to an asset or a source. */
export interface Relations {
  readonly destinations?: readonly DestinationClass[];
}

/** An upstream asset: its key (bare within the source, `source.asset` across) or its definition. */
export type AssetTarget = string | AssetDefinition<ObjectSchema | undefined, unknown>;

/** A dependency with an explicit mapping of partitions: `{ asset: orders, mapping: il.trailing(7) }`. */
export interface DependencySpec<T extends AssetTarget = AssetTarget> {
  readonly asset: T;
  /** Which upstream periods a partition reads; the covering periods when absent. */
  readonly mapping?: TimeWindowMapping;
  /** "rows": delivered as rows whatever the destination's native table (see `il.Upstream.rows`). */
  readonly as?: "rows";
}

/** A dependency: an asset key, an asset definition, or either with a mapping. */
export type DependencyTarget = AssetTarget | DependencySpec;

/** The data an upstream asset delivers: typed rows when its definition declares a zod schema, else what its run returns. */
type AssetData<T> = T extends AssetDefinition<infer S, infer Out> ? ([S] extends [ObjectSchema] ? z.output<S>[] : Awaited<Out>) : unknown;

/** Rows of an upstream asset read through `il.Upstream.rows`: typed by its schema when it declares one. */
type RowsOf<T> = T extends AssetDefinition<infer S, unknown> ? ([S] extends [ObjectSchema] ? z.output<S>[] : Row[]) : Row[];

/** The data a dependency delivers, whichever form declares it. */
export type DependencyData<T> =
  T extends DependencySpec<infer A> ? (T extends { readonly as: "rows" } ? RowsOf<A> : AssetData<A>) : AssetData<T>;

/** The second argument of `run`: one entry per declared dependency; optional ones may be undefined. */
export type Dependencies<R, O> = { -readonly [K in keyof R]: DependencyData<R[K]> } & {
  -readonly [K in keyof O]: DependencyData<O[K]> | undefined;
};

/** What `il.asset({...})` takes. */
export interface AssetOptions<
  S extends ObjectSchema | undefined,
  R extends Record<string, DependencyTarget>,
  O extends Record<string, DependencyTarget>,
  Out,
  K extends string = string,
  St extends ConformStrategy | undefined = ConformStrategy | undefined,
  P extends PartitionConfig | null = PartitionConfig | null,
> {
  /** Starts with a letter; letters, digits and underscores. */
  readonly key: K;
  /** How the asset is partitioned; its kind types `context.partition` (a multi partitioning's `keys` by dimension name). */
  readonly partitioning?: P;
  readonly schema?: S;
  /** "reconcile" turns what run returns (text from a file, say) into the schema's types: run's return is then not typed by the schema. */
  readonly strategy?: St;
  readonly destinations?: DestinationsInput;
  readonly defaultDestinationKey?: string;
  readonly relations?: Relations;
  readonly dataset?: string;
  readonly description?: string;
  readonly materializable?: boolean;
  /** Labels the command line selects by (`tag:finance`): letters, digits, `_` and `-`. Not inherited from the source. */
  readonly tags?: readonly string[];
  /**
   * The version of what `run` does, said by you ("2", a date, a commit): each write records it,
   * and a change makes every partition written under another version stale.
   */
  readonly codeVersion?: string;
  /** Rules the data must pass before it is written (`il.checks.*`, `il.check`); see docs/concepts.md, "Checks". */
  readonly checks?: readonly Check[];
  readonly requires?: R;
  readonly optionalRequires?: O;
  /**
   * Produces the data of the run's partition or window. With a zod `schema`, what it returns is
   * typed by the schema's input: a misspelt or mistyped field is a type error in the editor.
   */
  run(context: ExecutionContext<P>, dependencies: Dependencies<R, O>): RunReturn<S, Out, St>;
}

/** What `run` returns: with a zod schema, data of the schema's input rows; else anything (inferred). */
export type RunReturn<S, Out, St = undefined> = [St] extends ["reconcile"]
  ? Out | Promise<Out>
  : [S] extends [ObjectSchema]
    ? SchemaData<z.input<S>> | Promise<SchemaData<z.input<S>>>
    : Out | Promise<Out>;

/**
 * The shapes a run may return rows of type `T` in: an array, a stream (sync or async, of rows or
 * of arrays of rows), columns, or any other registered representation (see NativeKinds).
 */
export type SchemaData<T> =
  | readonly T[]
  | Iterable<T | readonly T[]>
  | AsyncIterable<T | readonly T[]>
  | { readonly [C in keyof T]: readonly T[C][] }
  | TableData
  | NativeKinds[Exclude<keyof NativeKinds, "rows" | "columns">];

/** An asset as declared: immutable; sources and DAGs turn it into runtime assets. */
export interface AssetDefinition<S extends ObjectSchema | undefined = ObjectSchema | undefined, Out = unknown, K extends string = string> {
  readonly kind: "asset-definition";
  readonly key: K;
  readonly partitioning: PartitionConfig | null;
  readonly schema: S;
  readonly strategy: ConformStrategy | undefined;
  readonly destinations: DestinationsInput | undefined;
  readonly defaultDestinationKey: string | undefined;
  readonly relations: Relations | undefined;
  readonly dataset: string | undefined;
  readonly description: string | undefined;
  readonly materializable: boolean | undefined;
  readonly tags: readonly string[];
  readonly codeVersion: string | null;
  readonly checks: readonly Check[];
  readonly requires: Readonly<Record<string, DependencyTarget>>;
  readonly optionalRequires: Readonly<Record<string, DependencyTarget>>;
  readonly run: (context: ExecutionContext, dependencies: Record<string, unknown>) => Out | Promise<Out>;
}

const STRATEGIES: readonly ConformStrategy[] = ["auto", "strict", "reconcile"];

/** Every option `asset()` reads: a config is loaded without type checking, so a misspelt one would otherwise be dropped unseen. */
const ASSET_OPTIONS: readonly string[] = [
  "key",
  "run",
  "partitioning",
  "requires",
  "optionalRequires",
  "schema",
  "strategy",
  "destinations",
  "defaultDestinationKey",
  "relations",
  "dataset",
  "description",
  "materializable",
  "tags",
  "codeVersion",
  "checks",
];

/** Refuses an option `asset()` does not read, naming the one meant when it is close. */
function refuseUnknownOptions(key: string, options: object): void {
  const unknown = Object.keys(options).find((name) => !ASSET_OPTIONS.includes(name));
  if (unknown === undefined) return;
  const meant = closest(unknown, ASSET_OPTIONS);
  throw new ConfigError(
    `asset "${key}": unknown option ${JSON.stringify(unknown)}${meant ? ` (did you mean "${meant}"?)` : ""}: expected ${ASSET_OPTIONS.join(", ")}`,
  );
}

/** Declares an asset. */
export function asset<
  S extends ObjectSchema | undefined = undefined,
  const R extends Record<string, DependencyTarget> = Record<never, never>,
  const O extends Record<string, DependencyTarget> = Record<never, never>,
  Out = unknown,
  const K extends string = string,
  const St extends ConformStrategy | undefined = undefined,
  P extends PartitionConfig | null = PartitionConfig | null,
>(options: AssetOptions<S, R, O, Out, K, St, P>): AssetDefinition<S, Out, K> {
  const key = checkKey(options?.key, "asset") as K;
  refuseUnknownOptions(key, options);
  if (typeof options.run !== "function") throw new ConfigError(`asset "${key}": run must be a function`);
  if (options.partitioning != null && !(options.partitioning instanceof PartitionConfig)) {
    throw new ConfigError(
      `asset "${key}": partitioning must be a TimePartitionConfig, ListPartitionConfig or MultiPartitionConfig, got ${shown(options.partitioning)}`,
    );
  }
  if (options.strategy !== undefined && !STRATEGIES.includes(options.strategy)) {
    throw new ConfigError(`asset "${key}": strategy ${JSON.stringify(options.strategy)} is not one of ${STRATEGIES.join(", ")}`);
  }
  if (options.codeVersion !== undefined && (typeof options.codeVersion !== "string" || options.codeVersion.trim() === "")) {
    throw new ConfigError(`asset "${key}": codeVersion must be a non-empty string ("2", "2026-03-01"), got ${shown(options.codeVersion)}`);
  }
  const requires = checkDependencies(key, "requires", options.requires);
  const optionalRequires = checkDependencies(key, "optionalRequires", options.optionalRequires);
  const shared = Object.keys(requires).filter((name) => name in optionalRequires);
  if (shared.length > 0) throw new ConfigError(`asset "${key}": ${shared.join(", ")} declared in both requires and optionalRequires`);
  return Object.freeze({
    kind: "asset-definition",
    key,
    partitioning: options.partitioning ?? null,
    schema: options.schema as S,
    strategy: options.strategy,
    destinations: options.destinations,
    defaultDestinationKey: options.defaultDestinationKey,
    relations: options.relations,
    dataset: options.dataset,
    description: options.description,
    materializable: options.materializable,
    tags: checkTags(options.tags, `asset "${key}"`),
    codeVersion: options.codeVersion ?? null,
    checks: assetChecks(key, options.checks),
    requires,
    optionalRequires,
    run: options.run as AssetDefinition<S, Out>["run"],
  });
}

function checkDependencies(key: string, field: string, dependencies: unknown): Readonly<Record<string, DependencyTarget>> {
  if (dependencies === undefined) return Object.freeze({});
  if (typeof dependencies !== "object" || dependencies === null) throw new ConfigError(`asset "${key}": ${field} must be an object`);
  const checked: Record<string, DependencyTarget> = {};
  for (const [name, entry] of Object.entries(dependencies)) {
    const spec = isAssetTarget(entry) ? null : (entry as Record<string, unknown> | null);
    const target = spec && typeof spec === "object" ? spec["asset"] : entry;
    if (!isAssetTarget(target)) {
      throw new ConfigError(
        `asset "${key}": ${field}.${name} must be an asset key ("orders" or "shop.orders"), an asset definition, or { asset, mapping }, got ${shown(entry)}`,
      );
    }
    if (spec) {
      const extra = Object.keys(spec).filter((field) => field !== "asset" && field !== "mapping" && field !== "as");
      if (extra.length > 0)
        throw new ConfigError(`asset "${key}": ${field}.${name} has unknown field "${extra[0]}": expected { asset, mapping, as }`);
      if (spec["as"] !== undefined && spec["as"] !== "rows")
        throw new ConfigError(`asset "${key}": ${field}.${name}.as must be "rows", got ${shown(spec["as"])}`);
      if (spec["mapping"] !== undefined && !(spec["mapping"] instanceof TimeWindowMapping)) {
        throw new ConfigError(
          `asset "${key}": ${field}.${name}.mapping must be il.trailing(n), il.previousPeriod() or a TimeWindowMapping, got ${shown(spec["mapping"])}`,
        );
      }
      checked[name] = Object.freeze({
        asset: target,
        ...(spec["mapping"] ? { mapping: spec["mapping"] as TimeWindowMapping } : {}),
        ...(spec["as"] === "rows" ? { as: "rows" as const } : {}),
      });
    } else {
      checked[name] = target;
    }
  }
  return Object.freeze(checked);
}

function isAssetTarget(value: unknown): value is AssetTarget {
  return typeof value === "string" ? /^[A-Za-z]\w*(\.[A-Za-z]\w*)?$/.test(value) : isAssetDefinition(value);
}

function shown(value: unknown): string {
  if (value instanceof Object && !Array.isArray(value) && value.constructor !== Object) return `a ${value.constructor.name}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The upstream asset a dependency names, whichever form declares it. */
export function dependencyAsset(entry: DependencyTarget): AssetTarget {
  return typeof entry === "object" && !isAssetDefinition(entry) ? entry.asset : entry;
}

/** The explicit mapping of a dependency, or null for the default. */
export function dependencyMapping(entry: DependencyTarget | undefined): TimeWindowMapping | null {
  return typeof entry === "object" && !isAssetDefinition(entry) ? (entry.mapping ?? null) : null;
}

/** Whether a dependency asks for rows (`il.Upstream.rows`). */
export function dependencyWantsRows(entry: DependencyTarget | undefined): boolean {
  return typeof entry === "object" && !isAssetDefinition(entry) && entry.as === "rows";
}

/** Whether a value is an asset definition made by `il.asset`. */
export function isAssetDefinition(value: unknown): value is AssetDefinition {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "asset-definition";
}
