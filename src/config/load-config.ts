import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import { basename, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Asset } from "../asset/asset.js";
import { isAssetDefinition } from "../asset/definition.js";
import { ConfigError } from "../errors.js";
import { packageRoot } from "../package-root.js";
import { describeValue } from "../schema/describe.js";
import { Source } from "../source/source.js";
import type { InterloperConfig } from "./define-config.js";
import { findConfig } from "./find-config.js";

/** A loaded, validated, frozen config and where it came from. */
export interface LoadedConfig {
  readonly config: InterloperConfig;
  readonly filepath: string;
}

type Loader = (filepath: string) => Promise<unknown>;

// jiti compiles TypeScript configs and follows the config's imports of local .ts modules. It is
// loaded only when a .ts config is, and required as the CommonJS it is: through its ES module
// wrapper Node would first scan ~190 kB of source for export names, doubling its start-up cost.
const loadTypeScript: Loader = async (filepath) => {
  const { createJiti } = createRequire(import.meta.url)("jiti") as typeof import("jiti");
  const jiti = createJiti(import.meta.url, { moduleCache: false });
  return jiti.import(filepath, { default: true });
};

const loadJavaScript: Loader = async (filepath) => {
  const module = (await import(pathToFileURL(filepath).href)) as { default?: unknown };
  return module.default ?? module;
};

const loadJson: Loader = async (filepath) => {
  const text = await readFile(filepath, "utf8");
  try {
    const value = JSON.parse(text) as unknown;
    return basename(filepath) === "package.json" ? (value as { interloper?: unknown }).interloper : value;
  } catch (error) {
    throw jsonError(error as SyntaxError, text);
  }
};

const LOADERS: Record<string, Loader> = {
  ".ts": loadTypeScript,
  ".mts": loadTypeScript,
  ".cts": loadTypeScript,
  ".js": loadJavaScript,
  ".mjs": loadJavaScript,
  ".cjs": loadJavaScript,
  ".json": loadJson,
};

/** Finds (from `cwd` upward) or opens the config, loads and validates it. */
export async function loadConfig(options: { cwd?: string; configPath?: string } = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const filepath = options.configPath ? resolve(cwd, options.configPath) : await findConfig(cwd);
  if (filepath === null) {
    throw new ConfigError(`no interloper config found in ${cwd} or above: create interloper.config.ts or pass --config <path>`);
  }
  if (!existsSync(filepath)) throw new ConfigError(`config file not found: ${filepath}`);
  const load = LOADERS[extname(filepath)];
  if (!load) {
    throw new ConfigError(`config ${filepath}: unsupported file type "${extname(filepath) || "(none)"}": expected ${Object.keys(LOADERS).join(", ")}`);
  }
  let config: unknown;
  try {
    config = await load(filepath);
  } catch (error) {
    throw loadFailure(error, filepath);
  }
  return { config: validate(config, filepath), filepath };
}

/** A JSON syntax error with the line and column of the position the parser names. */
function jsonError(error: SyntaxError, text: string): SyntaxError & { loc?: { line: number; column: number } } {
  const position = /position (\d+)/.exec(error.message);
  const located = new SyntaxError(`JSON: ${error.message}`) as SyntaxError & { loc?: { line: number; column: number } };
  if (position) {
    const before = text.slice(0, Number(position[1]));
    const line = before.split("\n").length;
    located.loc = { line, column: before.length - before.lastIndexOf("\n") };
  }
  return located;
}

const isSource = (v: unknown) => v instanceof Source || (typeof v === "function" && (v as { kind?: unknown }).kind === "source-definition");
const isAsset = (v: unknown) => v instanceof Asset || isAssetDefinition(v);
const FIELDS = ["sources", "assets", "concurrency"];

// Three fields, checked by hand: a schema library here would be loaded by every command.
function validate(value: unknown, filepath: string): InterloperConfig {
  const config = value && typeof value === "object" && "default" in value && Object.keys(value).length === 1 ? (value as { default: unknown }).default : value;
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new ConfigError(`${filepath}: the config must export an object (export default defineConfig({ sources: [...] })), got ${Array.isArray(config) ? "an array" : typeof config}`);
  }
  const invalid = (field: string, message: string) => new ConfigError(`${filepath}: invalid config at "${field}": ${message}`);
  const unknown = Object.keys(config).filter((key) => !FIELDS.includes(key));
  if (unknown.length > 0) throw invalid("(root)", `unknown field(s) ${unknown.join(", ")}: expected ${FIELDS.join(", ")}`);
  const fields = config as Record<string, unknown>;
  const checkList = (field: string, is: (v: unknown) => boolean, expected: string) => {
    const list = fields[field];
    if (list === undefined) return;
    if (!Array.isArray(list)) throw invalid(field, `expected an array, got ${describeValue(list)}`);
    const bad = list.findIndex((item) => !is(item));
    if (bad >= 0) throw invalid(`${field}.${bad}`, `${expected}, got ${describeValue(list[bad])}`);
  };
  checkList("sources", isSource, "expected a source made with il.source (called or not)");
  checkList("assets", isAsset, "expected an asset made with il.asset");
  const concurrency = fields["concurrency"];
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && (concurrency as number) >= 1)) {
    throw invalid("concurrency", `expected an integer of at least 1, got ${describeValue(concurrency)}`);
  }
  return Object.freeze({ ...(config as InterloperConfig) });
}

/** One line saying why a config could not be loaded, with file:line when the loader gives it. */
function loadFailure(error: unknown, where: string): ConfigError {
  const err = error as Error & { loc?: { line: number; column: number } };
  const message = (err?.message ?? String(error)).replace(/\s*\n\s*/g, " ").trim();
  const location = locate(err, where);
  const kind = err instanceof SyntaxError || /Transform|Unexpected|Expected|JSON Error/.test(`${err?.name} ${message}`) ? "failed to compile" : "threw while loading";
  return new ConfigError(`config ${location} ${kind}: ${message}`, { cause: error });
}

/**
 * The config's file and line: the loader's location, else a stack frame in the config file or
 * a module it imports (outside node_modules and interloper itself), else the file alone.
 */
function locate(error: Error & { loc?: { line: number; column: number } }, file: string): string {
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
