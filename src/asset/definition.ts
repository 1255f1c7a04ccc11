import type { z } from "zod";
import { ConfigError } from "../errors.js";
import type { Destination } from "../destination/index.js";
import { PartitionConfig } from "../partitioning/index.js";
import type { ConformStrategy } from "../schema/index.js";
import type { ExecutionContext } from "./execution-context.js";
import { checkKey, checkTags } from "./keys.js";

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

/** A dependency: an asset key (bare within the source, `source.asset` across) or the asset's definition. */
export type DependencyTarget = string | AssetDefinition<ObjectSchema | undefined, unknown>;

/** The data a dependency delivers: typed rows when its definition declares a zod schema, else what its run returns. */
export type DependencyData<T> =
  T extends AssetDefinition<infer S, infer Out> ? ([S] extends [ObjectSchema] ? z.output<S>[] : Awaited<Out>) : unknown;

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
> {
  /** Starts with a letter; letters, digits and underscores. */
  readonly key: string;
  readonly partitioning?: PartitionConfig | null;
  readonly schema?: S;
  readonly strategy?: ConformStrategy;
  readonly destinations?: DestinationsInput;
  readonly defaultDestinationKey?: string;
  readonly relations?: Relations;
  readonly dataset?: string;
  readonly description?: string;
  readonly materializable?: boolean;
  /** Labels the command line selects by (`tag:finance`): letters, digits, `_` and `-`. Not inherited from the source. */
  readonly tags?: readonly string[];
  readonly requires?: R;
  readonly optionalRequires?: O;
  /** Produces the data of the run's partition or window. */
  run(context: ExecutionContext, dependencies: Dependencies<R, O>): Out | Promise<Out>;
}

/** An asset as declared: immutable; sources and DAGs turn it into runtime assets. */
export interface AssetDefinition<S extends ObjectSchema | undefined = ObjectSchema | undefined, Out = unknown> {
  readonly kind: "asset-definition";
  readonly key: string;
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
  readonly requires: Readonly<Record<string, DependencyTarget>>;
  readonly optionalRequires: Readonly<Record<string, DependencyTarget>>;
  readonly run: (context: ExecutionContext, dependencies: Record<string, unknown>) => Out | Promise<Out>;
}

const STRATEGIES: readonly ConformStrategy[] = ["auto", "strict", "reconcile"];

/** Declares an asset. */
export function asset<
  S extends ObjectSchema | undefined = undefined,
  const R extends Record<string, DependencyTarget> = Record<never, never>,
  const O extends Record<string, DependencyTarget> = Record<never, never>,
  Out = unknown,
>(options: AssetOptions<S, R, O, Out>): AssetDefinition<S, Out> {
  const key = checkKey(options?.key, "asset");
  if (typeof options.run !== "function") throw new ConfigError(`asset "${key}": run must be a function`);
  if (options.partitioning != null && !(options.partitioning instanceof PartitionConfig)) {
    throw new ConfigError(`asset "${key}": partitioning must be a TimePartitionConfig or ListPartitionConfig`);
  }
  if (options.strategy !== undefined && !STRATEGIES.includes(options.strategy)) {
    throw new ConfigError(`asset "${key}": strategy ${JSON.stringify(options.strategy)} is not one of ${STRATEGIES.join(", ")}`);
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
    requires,
    optionalRequires,
    run: options.run as AssetDefinition<S, Out>["run"],
  });
}

function checkDependencies(key: string, field: string, dependencies: unknown): Readonly<Record<string, DependencyTarget>> {
  if (dependencies === undefined) return Object.freeze({});
  if (typeof dependencies !== "object" || dependencies === null) throw new ConfigError(`asset "${key}": ${field} must be an object`);
  for (const [name, target] of Object.entries(dependencies)) {
    const ok = typeof target === "string" ? /^[A-Za-z]\w*(\.[A-Za-z]\w*)?$/.test(target) : isAssetDefinition(target);
    if (!ok) {
      throw new ConfigError(`asset "${key}": ${field}.${name} must be an asset key ("orders" or "shop.orders") or an asset definition, got ${JSON.stringify(target) ?? String(target)}`);
    }
  }
  return Object.freeze({ ...(dependencies as Record<string, DependencyTarget>) });
}

/** Whether a value is an asset definition made by `il.asset`. */
export function isAssetDefinition(value: unknown): value is AssetDefinition {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "asset-definition";
}
