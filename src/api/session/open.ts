// How `openProject` finds the project a session runs: a config object, a config file's path, or
// the config file found from a folder upward.
import type { InterloperConfig } from "../../config/define-config.js";
import { loadProject, projectOf, type Project } from "../project.js";

/** Where `openProject` looks for a config file (none given) and what its destinations resolve against. */
export interface OpenProjectOptions {
  /** The folder a config file is searched from (default: the current directory). */
  readonly cwd?: string;
  /** The environment INTERLOPER_CONFIG is read from (default: process.env). */
  readonly env?: NodeJS.ProcessEnv;
}

/** The project of a config object, of a config file's path, or of the config file found from `cwd` upward (or named by INTERLOPER_CONFIG). */
export async function projectFor(config: InterloperConfig | string | undefined, options: OpenProjectOptions): Promise<Project> {
  if (config !== undefined && typeof config !== "string") return projectOf(config);
  return loadProject({
    ...(config !== undefined ? { configPath: config } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
}
