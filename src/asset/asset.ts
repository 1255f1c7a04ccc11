import { ConfigError, DependencyNotFoundError } from "../errors.js";
import { describeValue } from "../text/describe-value.js";
import { Destination, IOContext, type AssetRef, type IOLogLevel } from "../destination/index.js";
import { checkDestinationOptions } from "../destination/destination.js";
import type { Partition, PartitionConfig, PartitionWindow } from "../partitioning/index.js";
import { fieldSpecs, type ConformStrategy, type FieldSpec } from "../schema/index.js";
import { assetWindowOf } from "./asset-window.js";
import type { AssetDefinition, DestinationClass, DestinationsInput, ObjectSchema, Relations } from "./definition.js";
import { executeAsset, type ExecuteOptions } from "./execute.js";
import { checkTags } from "./keys.js";
import { assetHistory, type HistoryOptions } from "./asset-history.js";
import { assetStaleness, type Staleness } from "./staleness.js";
import { resolveWithinSource, type Dependency } from "./dependencies.js";
import type { Materialization } from "../destination/provenance/materialization.js";
import { checkAgainstAsset, previousCounts, type Check } from "../check/index.js";

/** What an owning source passes down to the assets that do not set their own. */
export interface SourceSettings {
  readonly key: string;
  readonly dataset: string | null;
  readonly destinations: DestinationsInput | undefined;
  readonly defaultDestinationKey: string | undefined;
  readonly strategy: ConformStrategy | undefined;
  readonly relations: Relations | undefined;
  readonly materializable: boolean;
  readonly table: (asset: AssetDefinition) => string;
  /** The runtime assets of the source, for dependencies named by bare key. */
  readonly assets: () => Readonly<Record<string, Asset>>;
}

/** What `asset.with({...})` may change. */
export interface AssetOverrides {
  readonly destinations?: DestinationsInput;
  readonly defaultDestinationKey?: string;
  readonly strategy?: ConformStrategy;
  readonly dataset?: string;
  readonly materializable?: boolean;
  readonly tags?: readonly string[];
}

/** An asset bound to its source's settings: what runs, what is written, where. */
export class Asset {
  readonly definition: AssetDefinition;
  readonly key: string;
  /** `source.asset`, or the bare key for an asset without a source. */
  readonly qualifiedKey: string;
  readonly source: SourceSettings | null;
  readonly table: string;
  readonly dataset: string | null;
  readonly partitioning: PartitionConfig | null;
  readonly zodSchema: ObjectSchema | undefined;
  /** The declared schema as field specs, or null when none is declared. */
  readonly schema: readonly FieldSpec[] | null;
  readonly strategy: ConformStrategy;
  readonly destinations: readonly Destination[];
  /** The name of each destination, in the same order (list positions are named by their class). */
  readonly destinationKeys: readonly string[];
  readonly defaultDestinationKey: string | null;
  readonly materializable: boolean;
  readonly description: string | null;
  /** What `tag:NAME` selects this asset by; the definition's unless `with({ tags })` replaced them. */
  readonly tags: readonly string[];
  /** The checks its data must pass before each write (the definition's). */
  readonly checks: readonly Check[];
  private readonly overrides: AssetOverrides;

  constructor(definition: AssetDefinition, source: SourceSettings | null, overrides: AssetOverrides = {}) {
    this.definition = definition;
    this.source = source;
    this.overrides = Object.freeze({ ...overrides });
    this.key = definition.key;
    this.qualifiedKey = source ? `${source.key}.${definition.key}` : definition.key;
    this.table = source ? source.table(definition) : definition.key;
    this.dataset = overrides.dataset ?? definition.dataset ?? source?.dataset ?? null;
    this.partitioning = definition.partitioning;
    this.zodSchema = definition.schema;
    this.schema = definition.schema ? Object.freeze(fieldSpecs(definition.schema).map((f) => Object.freeze(f))) : null;
    this.strategy = overrides.strategy ?? definition.strategy ?? source?.strategy ?? "auto";
    this.materializable = overrides.materializable ?? definition.materializable ?? source?.materializable ?? true;
    this.description = definition.description ?? null;
    this.tags =
      overrides.tags !== undefined ? checkTags(overrides.tags, `asset "${this.qualifiedKey}"`) : (definition.tags ?? Object.freeze([]));
    const named = namedDestinations(overrides.destinations ?? definition.destinations ?? source?.destinations, this.qualifiedKey);
    this.destinations = Object.freeze(named.map(([, d]) => d));
    this.destinationKeys = Object.freeze(named.map(([name]) => name));
    for (const relations of [definition.relations, source?.relations]) checkRelations(relations, this.destinations, this.qualifiedKey);
    const preferred = overrides.defaultDestinationKey ?? definition.defaultDestinationKey ?? source?.defaultDestinationKey;
    if (preferred !== undefined && !this.destinationKeys.includes(preferred)) {
      throw new ConfigError(
        `asset "${this.qualifiedKey}": defaultDestinationKey "${preferred}" names no destination (have: ${this.destinationKeys.join(", ") || "none"})`,
      );
    }
    this.defaultDestinationKey = preferred ?? this.destinationKeys[0] ?? null;
    this.checks = definition.checks ?? Object.freeze([]);
    const columns = this.schema ? this.schema.map((f) => f.name) : null;
    checkAgainstAsset(this.qualifiedKey, this.checks, columns, this.partitioning !== null);
    Object.freeze(this);
  }

  /** A reconfigured copy; this asset is left untouched. */
  with(overrides: AssetOverrides): Asset {
    return new Asset(this.definition, this.source, { ...this.overrides, ...overrides });
  }

  /** The destination upstream reads use: the first one. */
  get primaryDestination(): Destination | null {
    return this.destinations[0] ?? null;
  }

  /** Names this asset's storage location for destinations. */
  get ref(): AssetRef {
    return {
      key: this.qualifiedKey,
      table: this.table,
      dataset: this.dataset,
      partitioning: this.partitioning,
      description: this.description,
    };
  }

  /** The context of a destination call over a window (or the whole, for null). */
  ioContext(
    window: PartitionWindow | Partition | null,
    schema: readonly FieldSpec[] | null = this.schema,
    metadata = { runId: "adhoc" },
    log?: (level: IOLogLevel, message: string) => void,
  ): IOContext {
    return new IOContext({ asset: this.ref, window, schema, metadata, ...(log ? { log } : {}) });
  }

  /** Runs the asset and returns its conformed data; nothing is written. */
  async run(partitionOrWindow?: PartitionWindow | Partition | null, options?: Partial<ExecuteOptions>): Promise<unknown> {
    return (await executeAsset(this, partitionOrWindow ?? null, { ...options, write: false })).data;
  }

  /** Runs the asset and writes its data to every destination. */
  async materialize(partitionOrWindow?: PartitionWindow | Partition | null, options?: Partial<ExecuteOptions>): Promise<void> {
    await executeAsset(this, partitionOrWindow ?? null, { ...options, write: true });
  }

  /** Reads the asset back from its first destination. */
  async read(partitionOrWindow?: PartitionWindow | Partition | null, schema: readonly FieldSpec[] | null = this.schema): Promise<unknown> {
    const window = assetWindowOf(this, partitionOrWindow, true);
    return this.requireDestination("read").read(this.ioContext(window, schema));
  }

  /**
   * The records of this asset's writes in its first destination, newest first: of one partition
   * (its key or a Partition), or of every partition when none is given.
   */
  history(partition?: string | Partition | null, options: HistoryOptions = {}): Promise<Materialization[]> {
    return assetHistory(this, this.requireDestination("read the history of"), partition, options);
  }

  /**
   * The stored partitions (of a window, or all) that are out of date, each with why: an upstream
   * partition it read was materialized again, one it reads now exists but was not read then, one
   * it read is no longer read, its codeVersion changed, or its destinations hold different writes
   * (see staleness.ts). Upstream assets are looked for in this asset's source (a DAG's session
   * looks in the DAG).
   */
  staleness(window?: PartitionWindow | Partition | null): Promise<Staleness> {
    const checked = window ? assetWindowOf(this, window, true) : null;
    // An upstream outside the source is not found here: it never makes a partition stale, and
    // the dependencies found are then not all the asset reads (one its records name may be it).
    const names = [...Object.keys(this.definition.requires), ...Object.keys(this.definition.optionalRequires)];
    const dependencies = names.map((name) => withinSource(this, name));
    const found = dependencies.filter((dependency) => dependency !== undefined);
    return assetStaleness(this, checked, found, undefined, found.length === dependencies.length);
  }

  /** Rows per stored partition key, from the first destination. */
  async partitionRowCounts(): Promise<Record<string, number>> {
    if (!this.partitioning) throw new ConfigError(`asset "${this.qualifiedKey}" is not partitioned: it has no partition row counts`);
    return this.requireDestination("count").partitionRowCounts(this.ioContext(null));
  }

  /**
   * The row counts of up to `n` stored partitions before `partition` (those whose keys sort
   * before it: the earlier periods of a time partitioning), oldest first, from the first
   * destination: the history `il.checks.rowCountChange` compares with.
   */
  async previousRowCounts(partition: string, n: number): Promise<number[]> {
    return previousCounts(await this.partitionRowCounts(), partition, n);
  }

  /** The first destination, or ConfigError naming the asset. */
  requireDestination(purpose: string): Destination {
    const first = this.primaryDestination;
    if (!first)
      throw new ConfigError(`asset "${this.qualifiedKey}" has no destination to ${purpose}: set destinations on the asset or its source`);
    return first;
  }

  toString(): string {
    return this.qualifiedKey;
  }
}

/**
 * The destinations an asset or source is given, each checked: a Destination instance whose
 * options its class took (`owner` names the asset or source, as `asset "shop.orders"`).
 */
export function destinationEntries(input: DestinationsInput | undefined, owner: string): Array<[string | null, Destination]> {
  if (input === undefined) return [];
  const entries: Array<[string | null, unknown]> =
    input instanceof Destination
      ? [[null, input]]
      : Array.isArray(input)
        ? input.map((d) => [null, d])
        : isPlainRecord(input)
          ? Object.entries(input)
          : // Anything else (a class instance that is no Destination, a Map) is one value, refused
            // below by its class name: read as a record it would be an empty one.
            [[null, input]];
  return entries.map(([name, value], index) => {
    if (!(value instanceof Destination)) {
      const which = name === null ? `${index}` : `"${name}"`;
      throw new ConfigError(`${owner}: destination ${which} is not a Destination (got ${describeValue(value)})`);
    }
    checkDestinationOptions(value);
    return [name, value];
  });
}

/** An object literal (or one made with a null prototype): the named form of destinations. */
function isPlainRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function namedDestinations(input: DestinationsInput | undefined, owner: string): Array<[string, Destination]> {
  const used = new Set<string>();
  return destinationEntries(input, `asset "${owner}"`).map(([name, value]) => {
    let key = name ?? value.constructor.name;
    for (let n = 2; used.has(key); n++) key = `${name ?? value.constructor.name}_${n}`;
    used.add(key);
    return [key, value];
  });
}

function checkRelations(relations: Relations | undefined, destinations: readonly Destination[], owner: string): void {
  const allowed = relations?.destinations;
  if (!allowed || allowed.length === 0) return;
  for (const d of destinations) {
    if (!allowed.some((cls: DestinationClass) => d instanceof cls)) {
      throw new ConfigError(
        `asset "${owner}" accepts destinations of class ${allowed.map((c) => c.name).join(" or ")}, not ${d.constructor.name}`,
      );
    }
  }
}

/** A dependency resolved among the asset's source's assets, or undefined when its upstream is not found there. */
function withinSource(asset: Asset, name: string): Dependency | undefined {
  try {
    const found = resolveWithinSource(asset, name);
    return found.asset ? found : undefined;
  } catch (error) {
    if (error instanceof DependencyNotFoundError) return undefined;
    throw error;
  }
}
