import type { Asset } from "../asset/asset.js";
import { projectFolderOf } from "../config/find-config.js";
import { loadConfig } from "../config/load-config.js";
import type { InterloperConfig } from "../config/define-config.js";
import { DAG } from "../dag/dag.js";
import { ConfigError, DAGError } from "../errors.js";
import { closeProject, rememberProject } from "./loaded.js";
import { closest } from "../suggest.js";

export { closeProject };

/** A loaded config and its DAG: what every command works on. */
export interface Project {
  readonly config: InterloperConfig;
  /** The config file, or null for a project built in code. */
  readonly filepath: string | null;
  readonly dag: DAG;
}

/**
 * Loads the config (found from `cwd` upward, or named by `configPath`, else by the
 * INTERLOPER_CONFIG variable) and builds its DAG. Relative paths of its destinations resolve
 * against the config file's folder, or the project folder for one under `.config/` (see
 * `Destination.resolvePathsFrom`); a config with no asset is a ConfigError naming the file.
 */
export async function loadProject(options: { cwd?: string; configPath?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Project> {
  const { config, filepath } = await loadConfig(options);
  const project = projectOf(config, filepath);
  if (project.dag.assets.length === 0) {
    throw new ConfigError(
      `${filepath}: the config defines no assets: expected export default defineConfig({ sources: [...] }) or { assets: [...] } with at least one asset`,
    );
  }
  resolvePathsFrom(project, projectFolderOf(filepath));
  rememberProject(project);
  return project;
}

/** Makes every destination of a project resolve its relative paths against `folder`. */
export function resolvePathsFrom(project: Project, folder: string): void {
  for (const asset of project.dag.assets) for (const destination of asset.destinations) destination.resolvePathsFrom(folder);
}

/** A project from a config object, for programs that define assets in code. */
export function projectOf(config: InterloperConfig, filepath: string | null = null): Project {
  const dag = new DAG(...(config.sources ?? []), ...(config.assets ?? []));
  return Object.freeze({ config, filepath, dag });
}

/** The asset a key names, or ConfigError with the closest key. */
export function findAsset(project: Project, key: string): Asset {
  let found: Asset | undefined;
  try {
    found = project.dag.find(key);
  } catch (error) {
    if (error instanceof DAGError) throw new ConfigError(error.message, { cause: error });
    throw error;
  }
  if (found) return found;
  const candidates = project.dag.assets.flatMap((a) => [a.qualifiedKey, a.key]);
  const suggestion = closest(key, candidates);
  const known = project.dag.assets.map((a) => a.qualifiedKey).join(", ") || "none";
  throw new ConfigError(`unknown asset "${key}"${suggestion ? `: did you mean "${suggestion}"?` : ""} (assets: ${known})`);
}
