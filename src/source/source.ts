import { ConfigError } from "../errors.js";
import { Asset, destinationEntries, type SourceSettings } from "../asset/asset.js";
import { isAssetDefinition, type AssetDefinition, type DestinationsInput, type Relations } from "../asset/definition.js";
import { checkKey } from "../asset/keys.js";
import type { ConformStrategy } from "../schema/index.js";
import { withoutUndefined } from "../without-undefined.js";

/** Settings a source passes down to its assets; each may be given when defining or calling it. */
export interface SourceOptions {
  readonly dataset?: string;
  readonly destinations?: DestinationsInput;
  readonly defaultDestinationKey?: string;
  readonly strategy?: ConformStrategy;
  readonly relations?: Relations;
  readonly materializable?: boolean;
  /** The table an asset is stored in; the asset key by default. */
  readonly table?: (asset: AssetDefinition) => string;
}

/** What `il.source({...})` takes. */
export interface SourceDefinitionOptions<A extends readonly AssetDefinition[]> extends SourceOptions {
  readonly key: string;
  readonly assets: A;
  readonly description?: string;
}

type AssetsByKey<A extends readonly AssetDefinition[]> = { readonly [D in A[number] as D["key"]]: Asset };

/** A source bound to its settings, holding its runtime assets by key. */
export class Source<A extends readonly AssetDefinition[] = readonly AssetDefinition[]> {
  readonly key: string;
  readonly definition: SourceDefinition<A>;
  readonly dataset: string;
  readonly assets: AssetsByKey<A>;
  readonly settings: SourceSettings;
  private readonly options: SourceOptions;

  constructor(definition: SourceDefinition<A>, options: SourceOptions = {}) {
    this.definition = definition;
    this.key = definition.key;
    this.options = Object.freeze({ ...options });
    const merged = { ...definition.options, ...withoutUndefined(options) };
    this.dataset = merged.dataset ?? definition.key;
    // Checked here too, so that the message names the source the destinations were given to.
    destinationEntries(merged.destinations, `source "${this.key}"`);
    const assets: Record<string, Asset> = {};
    this.settings = Object.freeze({
      key: this.key,
      dataset: this.dataset,
      destinations: merged.destinations,
      defaultDestinationKey: merged.defaultDestinationKey,
      strategy: merged.strategy,
      relations: merged.relations,
      materializable: merged.materializable ?? true,
      table: merged.table ?? ((asset: AssetDefinition) => asset.key),
      assets: () => assets,
    });
    for (const asset of definition.assets) assets[asset.key] = new Asset(asset, this.settings);
    this.assets = Object.freeze(assets) as AssetsByKey<A>;
    Object.freeze(this);
  }

  /** A reconfigured copy; this source and its assets are left untouched. */
  with(options: SourceOptions): Source<A> {
    return new Source(this.definition, { ...this.options, ...options });
  }

  toString(): string {
    return this.key;
  }
}

/** A declared source: call it (optionally with settings) to get a runtime `Source`. */
export interface SourceDefinition<A extends readonly AssetDefinition[] = readonly AssetDefinition[]> {
  (options?: SourceOptions): Source<A>;
  readonly kind: "source-definition";
  readonly key: string;
  readonly assets: A;
  readonly description: string | undefined;
  readonly options: SourceOptions;
}

/** Declares a source of assets. */
export function source<const A extends readonly AssetDefinition[]>(options: SourceDefinitionOptions<A>): SourceDefinition<A> {
  const key = checkKey(options?.key, "source");
  if (!Array.isArray(options.assets)) throw new ConfigError(`source "${key}": assets must be an array of asset definitions`);
  const seen = new Set<string>();
  for (const [index, asset] of options.assets.entries()) {
    if (!isAssetDefinition(asset)) throw new ConfigError(`source "${key}": assets[${index}] is not an asset definition made with il.asset`);
    if (seen.has(asset.key)) throw new ConfigError(`source "${key}" declares the asset "${asset.key}" twice`);
    seen.add(asset.key);
  }
  const { key: _key, assets, description, ...settings } = options;
  const definition = ((overrides?: SourceOptions) => new Source(definition, overrides)) as SourceDefinition<A>;
  Object.defineProperties(definition, {
    kind: { value: "source-definition" },
    key: { value: key },
    assets: { value: Object.freeze([...assets]) },
    description: { value: description },
    options: { value: Object.freeze(settings) },
  });
  Object.defineProperty(definition, "name", { value: key });
  return Object.freeze(definition);
}
