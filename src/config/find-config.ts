import { readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";

/** The file names a config may have, in the order they are looked for in each folder. */
export const SEARCH_PLACES = [
  "package.json",
  "interloper.config.ts",
  "interloper.config.mts",
  "interloper.config.cts",
  "interloper.config.js",
  "interloper.config.mjs",
  "interloper.config.cjs",
  "interloper.config.json",
] as const;

/**
 * The first config found from `cwd` up to the filesystem's root: a config file, or a
 * package.json holding an "interloper" key (a package.json without one is passed over).
 * Searching is a few stats per folder; doing it here rather than through a general config
 * library keeps that library's modules out of every command's start-up time.
 */
export async function findConfig(cwd: string): Promise<string | null> {
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const name of SEARCH_PLACES) {
      const path = join(dir, name);
      if (!(await isFile(path))) continue;
      if (name !== "package.json" || (await hasInterloperKey(path))) return path;
    }
    if (dirname(dir) === dir) return null;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function hasInterloperKey(path: string): Promise<boolean> {
  try {
    const manifest = JSON.parse(await readFile(path, "utf8")) as unknown;
    return typeof manifest === "object" && manifest !== null && "interloper" in manifest;
  } catch {
    // A package.json that does not parse is some other tool's problem, not a config.
    return false;
  }
}
