import { existsSync } from "node:fs";
import { extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../errors.js";
import { packageRoot } from "../package-root.js";
import { configProblem } from "./config-schema.js";
import type { InterloperConfig } from "./define-config.js";
import { loadConfigFile, type LocatedError, LoaderFailure, loaders, searchConfig } from "./find-config.js";

/** A loaded, validated, frozen config and where it came from. */
export interface LoadedConfig {
  readonly config: InterloperConfig;
  readonly filepath: string;
}

/** The environment variable naming the config file when --config does not. */
export const CONFIG_ENV = "INTERLOPER_CONFIG";

/**
 * Finds the config (with cosmiconfig, from `cwd` upward) or opens the one named by
 * `configPath`, else by INTERLOPER_CONFIG in `env`; loads and validates it.
 */
export async function loadConfig(options: { cwd?: string; configPath?: string; env?: NodeJS.ProcessEnv } = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const fromEnv = (options.env ?? process.env)[CONFIG_ENV] || undefined;
  const named = options.configPath ?? fromEnv;
  let found: { config: unknown; filepath: string } | null;
  try {
    found = named === undefined ? await searchConfig(cwd) : await openConfig(resolve(cwd, named), options.configPath === undefined);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw loadFailure(error);
  }
  if (found === null) {
    throw new ConfigError(
      `no interloper config found in ${cwd} or above: create interloper.config.ts (or .interloperrc.json, .interloperrc.yaml, an "interloper" key in package.json), pass --config <path> or set ${CONFIG_ENV}`,
    );
  }
  const problem = await configProblem(unwrapDefault(found.config));
  if (problem !== null) throw new ConfigError(`${found.filepath}: ${problem}`);
  return { config: Object.freeze({ ...(unwrapDefault(found.config) as InterloperConfig) }), filepath: found.filepath };
}

async function openConfig(filepath: string, fromEnv: boolean): Promise<{ config: unknown; filepath: string }> {
  if (!existsSync(filepath)) throw new ConfigError(`config file not found: ${filepath}${fromEnv ? ` (named by ${CONFIG_ENV})` : ""}`);
  const types = Object.keys(loaders(false));
  if (!types.includes(extname(filepath) || "noExt")) {
    const expected = types.filter((type) => type !== "noExt").join(", ");
    throw new ConfigError(`config ${filepath}: unsupported file type "${extname(filepath)}": expected ${expected}, or no extension (YAML)`);
  }
  // A package.json without an "interloper" key loads as nothing.
  return loadConfigFile(filepath);
}

/** A module namespace whose only export is `default` stands for that export. */
function unwrapDefault(value: unknown): unknown {
  return value && typeof value === "object" && "default" in value && Object.keys(value).length === 1
    ? (value as { default: unknown }).default
    : value;
}

/** One line saying why a config could not be loaded, with file:line when the loader gives it. */
function loadFailure(failure: unknown): ConfigError {
  // cosmiconfig names the file whose loading failed (the config, or a package.json it read).
  const where = (failure as { filepath?: string }).filepath ?? "(unknown file)";
  const error = failure instanceof LoaderFailure ? failure.original : failure;
  const err = error as LocatedError & { codeFrame?: string };
  let text = err?.message ?? String(error);
  // cosmiconfig reads the package.json of the working folder for its own options, with
  // parse-json: keep its reason, not its code frame.
  // (Its code frame is absent when it cannot find the position in the engine's message, as on
  // Node 24: the prefix naming the file is dropped either way.)
  if (err?.codeFrame) text = text.split(err.codeFrame).join("");
  text = text.replace(/^JSON Error in .*?:\s/, "JSON: ");
  const message = text.replace(/\s*\n\s*/g, " ").trim();
  const location = locate(err, where);
  const kind =
    err instanceof SyntaxError || /Transform|Unexpected|Expected|JSON Error|YAML/.test(`${err?.name} ${message}`)
      ? "failed to compile"
      : "threw while loading";
  return new ConfigError(`config ${location} ${kind}: ${message}`, { cause: error });
}

/**
 * The config's file and line: the loader's location, else a stack frame in the config file or
 * a module it imports (outside node_modules and interloper itself), else the file alone.
 */
function locate(error: LocatedError, file: string): string {
  if (error?.loc) return `${file}:${error.loc.line}:${error.loc.column}`;
  const frames = [...(error?.stack ?? "").matchAll(/((?:file:\/\/)?\/[^\s()]+?\.(?:[cm]?[jt]s|json)):(\d+)(?::\d+)?/g)];
  const code = ownCodeDir();
  const own = frames.find((frame) => !frame[1]!.includes("/node_modules/") && !frame[1]!.replace("file://", "").startsWith(code));
  return own ? `${own[1]!.replace("file://", "")}:${own[2]}` : file;
}

/** interloper's own code: dist/ when built, src/ under the tests (a config may sit beside them). */
function ownCodeDir(): string {
  const root = packageRoot();
  return join(root, relative(root, fileURLToPath(import.meta.url)).split(sep)[0]!) + sep;
}
