import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Loader } from "cosmiconfig";
import { Asset } from "../asset/asset.js";
import { isAssetDefinition } from "../asset/definition.js";
import { ConfigError } from "../errors.js";
import { Source } from "../source/source.js";
import type { InterloperConfig } from "./define-config.js";

/** A loaded, validated, frozen config and where it came from. */
export interface LoadedConfig {
  readonly config: InterloperConfig;
  readonly filepath: string;
}

const SEARCH_PLACES = [
  "package.json",
  "interloper.config.ts",
  "interloper.config.mts",
  "interloper.config.js",
  "interloper.config.mjs",
  "interloper.config.cjs",
  "interloper.config.json",
];

// jiti compiles TypeScript configs, and unlike cosmiconfig's own loader it follows the
// config's imports of local .ts modules. It is loaded only when a .ts config is.
const loadTypeScript: Loader = async (filepath) => {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, { moduleCache: false });
  return jiti.import(filepath, { default: true });
};

// A plain dynamic import for JavaScript configs: cosmiconfig's own loader retries a failed
// import with require(), which hides the real SyntaxError behind a loader error.
const loadJavaScript: Loader = async (filepath) => {
  const module = (await import(pathToFileURL(filepath).href)) as { default?: unknown };
  return module.default ?? module;
};

const isSource = (v: unknown) => v instanceof Source || (typeof v === "function" && (v as { kind?: unknown }).kind === "source-definition");
const isAsset = (v: unknown) => v instanceof Asset || isAssetDefinition(v);

// Built on first use: cosmiconfig and zod are loaded only when a config is, not by `import "interloper"`.
const configShape = async () => {
  const { z } = await import("zod");
  return z
  .object({
    sources: z.array(z.custom(isSource, { message: "expected a source made with il.source (called or not)" })).optional(),
    assets: z.array(z.custom(isAsset, { message: "expected an asset made with il.asset" })).optional(),
    concurrency: z.number().int().min(1).optional(),
  })
  .strict();
};

/** Finds (from `cwd` upward) or opens the config, loads and validates it. */
export async function loadConfig(options: { cwd?: string; configPath?: string } = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const { cosmiconfig, defaultLoaders } = await import("cosmiconfig");
  // Remember which file a loader was reading, so a failure can name it even when the error does not.
  let loading = options.configPath ? resolve(cwd, options.configPath) : cwd;
  const tracked = (load: Loader): Loader => (filepath, content) => {
    loading = filepath;
    return load(filepath, content);
  };
  const explorer = cosmiconfig("interloper", {
    searchPlaces: SEARCH_PLACES,
    searchStrategy: "global",
    loaders: {
      ".ts": tracked(loadTypeScript),
      ".mts": tracked(loadTypeScript),
      ".cts": tracked(loadTypeScript),
      ".js": tracked(loadJavaScript),
      ".mjs": tracked(loadJavaScript),
      ".cjs": tracked(loadJavaScript),
      ".json": tracked(defaultLoaders[".json"]),
      noExt: tracked(defaultLoaders.noExt),
    },
    cache: false,
  });
  let found: { config: unknown; filepath: string; isEmpty?: boolean } | null;
  const target = options.configPath ? resolve(cwd, options.configPath) : null;
  if (target && !existsSync(target)) throw new ConfigError(`config file not found: ${target}`);
  try {
    found = target ? await explorer.load(target) : await explorer.search(cwd);
  } catch (error) {
    throw loadFailure(error, loading);
  }
  if (!found) {
    throw new ConfigError(`no interloper config found in ${cwd} or above: create interloper.config.ts or pass --config <path>`);
  }
  return { config: await validate(found.config, found.filepath), filepath: found.filepath };
}

async function validate(value: unknown, filepath: string): Promise<InterloperConfig> {
  const config = value && typeof value === "object" && "default" in value && Object.keys(value).length === 1 ? (value as { default: unknown }).default : value;
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new ConfigError(`${filepath}: the config must export an object (export default defineConfig({ sources: [...] })), got ${Array.isArray(config) ? "an array" : typeof config}`);
  }
  const parsed = (await configShape()).safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    const message = issue.code === "unrecognized_keys" ? `unknown field(s) ${issue.keys.join(", ")}: expected sources, assets, concurrency` : issue.message;
    throw new ConfigError(`${filepath}: invalid config at "${field}": ${message}`);
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
  const own = frames.find((frame) => !frame[1]!.includes("/node_modules/") && !frame[1]!.startsWith(PACKAGE_ROOT) && !frame[1]!.startsWith(`file://${PACKAGE_ROOT}`));
  return own ? `${own[1]!.replace("file://", "")}:${own[2]}` : file;
}

const PACKAGE_ROOT = fileURLToPath(new URL("../", import.meta.url));
