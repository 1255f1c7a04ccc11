import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, extname, parse } from "node:path";
import { pathToFileURL } from "node:url";
import type { CosmiconfigResult, Loader, PublicExplorer } from "cosmiconfig";
import { ConfigError } from "../errors.js";

/** The name cosmiconfig looks for: the package.json key, `.interloperrc*`, `interloper.config.*`. */
export const MODULE_NAME = "interloper";

/**
 * The places a config may have, in the order they are looked for in each folder: cosmiconfig's
 * standard places for the name, with `interloper.config.*` TypeScript first (as before
 * cosmiconfig) and its .mts, .cts and .json variants added.
 */
export const SEARCH_PLACES = [
  "package.json",
  ...rcPlaces(`.${MODULE_NAME}rc`),
  ...rcPlaces(`.config/${MODULE_NAME}rc`),
  ...["ts", "mts", "cts", "js", "mjs", "cjs", "json"].map((ext) => `${MODULE_NAME}.config.${ext}`),
] as const;

function rcPlaces(base: string): string[] {
  return [base, ...["json", "yaml", "yml", "js", "ts", "mts", "cts", "cjs", "mjs"].map((ext) => `${base}.${ext}`)];
}

// Loaded as the CommonJS it is, and only by a command that reads the config.
const requireHere = createRequire(import.meta.url);

// jiti compiles TypeScript configs and follows the config's imports of local .ts modules, which
// cosmiconfig's own TypeScript loader cannot. It is loaded only when a .ts config is, and
// required as the CommonJS it is: through its ES module wrapper Node would first scan ~190 kB of
// source for export names, doubling its start-up cost.
const loadTypeScript: Loader = async (filepath) => {
  const { createJiti } = requireHere("jiti") as typeof import("jiti");
  const jiti = createJiti(import.meta.url, { moduleCache: false });
  return jiti.import(filepath, { default: true });
};

// Not cosmiconfig's loadJs: when import() fails it runs the file again through require(), so a
// config that throws would run twice; and it keeps only the default export.
const loadJavaScript: Loader = async (filepath) => {
  const module = (await import(pathToFileURL(filepath).href)) as { default?: unknown };
  return module.default ?? module;
};

/** A config file's syntax error, with the line and column the parser gives. */
export type LocatedError = Error & { loc?: { line: number; column: number } };

/**
 * JSON.parse, with the line and column of a syntax error. While searching, a package.json that
 * does not parse is passed over (some other tool's problem); named with -c it is an error.
 */
function loadJson(searching: boolean): Loader {
  return (filepath, content) => {
    try {
      return JSON.parse(content) as unknown;
    } catch (error) {
      if (searching && parse(filepath).base === "package.json") return {};
      throw jsonError(error as SyntaxError, content);
    }
  };
}

function jsonError(error: SyntaxError, text: string): LocatedError {
  const position = /position (\d+)/.exec(error.message);
  const located: LocatedError = new SyntaxError(`JSON: ${error.message}`);
  if (position) {
    const before = text.slice(0, Number(position[1]));
    located.loc = { line: before.split("\n").length, column: before.length - before.lastIndexOf("\n") };
  }
  return located;
}

/** cosmiconfig's YAML loader (js-yaml), its error reduced to the reason and where. */
const loadYaml: Loader = async (filepath, content) => {
  const { defaultLoaders } = requireHere("cosmiconfig") as typeof import("cosmiconfig");
  try {
    return await defaultLoaders[".yaml"]!(filepath, content);
  } catch (error) {
    const yaml = error as Error & { reason?: string; mark?: { line: number; column: number } };
    if (yaml.name !== "YAMLException") throw error;
    const located: LocatedError = new SyntaxError(`YAML: ${yaml.reason ?? yaml.message}`);
    if (yaml.mark) located.loc = { line: yaml.mark.line + 1, column: yaml.mark.column + 1 };
    throw located;
  }
};

/**
 * What a loader threw. cosmiconfig's search passes over a place whose loading fails with ENOENT,
 * EACCES and the like (the file is not there), so a config that throws such an error itself (a
 * data file it reads is missing) would be skipped silently and a config further up used instead;
 * wrapped, it is reported.
 */
export class LoaderFailure extends Error {
  constructor(readonly original: unknown) {
    super("the config failed to load");
  }
}

function reported(load: Loader): Loader {
  return async (filepath, content) => {
    try {
      return await load(filepath, content);
    } catch (error) {
      throw new LoaderFailure(error);
    }
  };
}

/** The file types a config may have; `noExt` (`.interloperrc`) is YAML, which JSON is too. */
export function loaders(searching: boolean): Record<string, Loader> {
  const byType: Record<string, Loader> = {
    ".ts": loadTypeScript,
    ".mts": loadTypeScript,
    ".cts": loadTypeScript,
    ".js": loadJavaScript,
    ".mjs": loadJavaScript,
    ".cjs": loadJavaScript,
    ".json": loadJson(searching),
    ".yaml": loadYaml,
    ".yml": loadYaml,
    noExt: loadYaml,
  };
  return Object.fromEntries(Object.entries(byType).map(([type, load]) => [type, reported(load)]));
}

/**
 * A cosmiconfig explorer for interloper's configs. `searchStrategy: "global"` with the
 * filesystem's root as `stopDir` searches from the start folder up to the root, the nearest
 * folder winning, and then the user's config folder (`~/.config/interloper/config.*`).
 * "project" would stop at the first package.json, which a config further up (a package inside
 * a repository whose config is at its root) must not. An empty file found is the config (and
 * then an invalid one), not passed over. Each explorer caches what it loads, so each load takes
 * a new one: a config edited between two loads in one process is read again.
 */
export function configExplorer(options: { searching: boolean; from: string }): PublicExplorer {
  const { cosmiconfig } = requireHere("cosmiconfig") as typeof import("cosmiconfig");
  return cosmiconfig(MODULE_NAME, {
    searchPlaces: [...SEARCH_PLACES],
    loaders: loaders(options.searching),
    searchStrategy: "global",
    stopDir: parse(options.from).root,
    ignoreEmptySearchPlaces: false,
    cache: false,
  });
}

/**
 * The first config found from `cwd` up to the filesystem's root, loaded: a config file, or a
 * package.json holding an "interloper" key (a package.json without one is passed over).
 */
export async function searchConfig(cwd: string): Promise<CosmiconfigResult> {
  return configExplorer({ searching: true, from: cwd }).search(cwd);
}

/** A config file, loaded. `config` is undefined for an empty file or a package.json without the key. */
export interface LoadedFile {
  readonly config: unknown;
  readonly filepath: string;
}

/**
 * One named config file (--config, INTERLOPER_CONFIG), loaded as cosmiconfig's `load` would
 * and through the same loaders, without cosmiconfig: requiring it and building an explorer
 * (which first looks for cosmiconfig's own options in the working folder) costs every command
 * start about 20 ms, and a file named needs no search. An empty file is an empty config; a
 * package.json (or package.yaml, ...) gives its "interloper" key. Only a config using
 * cosmiconfig's `$import` (merging other files into it) goes to cosmiconfig, which implements it
 * (and loads the file again: a data file, in practice).
 */
export async function loadConfigFile(filepath: string): Promise<LoadedFile> {
  const content = await readFile(filepath, "utf8").catch((error: unknown) => {
    throw new ConfigError(`config ${filepath} could not be read (${(error as Error).message}): expected a config file`, { cause: error });
  });
  if (content.trim() === "") return { config: undefined, filepath };
  const type = extname(filepath);
  const load = loaders(false)[type || "noExt"];
  if (!load) throw Object.assign(new Error(`no loader for files of type "${type}"`), { filepath });
  let loaded: unknown;
  try {
    loaded = await load(filepath, content);
  } catch (error) {
    throw Object.assign(error as Error, { filepath });
  }
  if (isObject(loaded) && Object.hasOwn(loaded, "$import")) {
    const merged = await configExplorer({ searching: false, from: dirname(filepath) }).load(filepath);
    return { config: merged?.config, filepath };
  }
  const isPackage = basename(filepath, type) === "package";
  return { config: isPackage ? (isObject(loaded) ? loaded[MODULE_NAME] : undefined) : loaded, filepath };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/**
 * The folder a config's relative destination paths resolve against: the config file's folder,
 * or for a config kept in a `.config` folder (cosmiconfig's `.config/interloperrc*`) the project
 * folder that holds `.config`, where an `interloper.config.ts` would have been.
 */
export function projectFolderOf(filepath: string): string {
  const folder = dirname(filepath);
  return basename(folder) === ".config" ? dirname(folder) : folder;
}
