import type { Asset } from "../asset/asset.js";
import type { AssetDefinition } from "../asset/definition.js";
import type { Source, SourceDefinition } from "../source/source.js";

/** What an `interloper.config.ts` exports. */
export interface InterloperConfig {
  /** Sources: runtime ones (`Shop({ destinations })`) or definitions, called with no settings. */
  readonly sources?: readonly (Source | SourceDefinition)[];
  /** Assets outside any source. */
  readonly assets?: readonly (Asset | AssetDefinition)[];
  /** How many assets (or backfill partitions) run at once; default 4. */
  readonly concurrency?: number;
}

/** Types a config file's export; returns it unchanged. */
export function defineConfig(config: InterloperConfig): InterloperConfig {
  return config;
}
