// Builds dist/: TypeScript compiles src/ (JavaScript and declarations), then rolldown joins the
// JavaScript into one module graph per public entry point, with the code they share in
// dist/chunks/. Node loads a hundred small ES modules noticeably slower than a few large ones
// (each is resolved, read, compiled and linked on its own), and the CLI pays that on every start.
//
// Every public entry is built in the same rolldown run so that the CLI and a config importing
// "interloper" share one copy of each class (a config's sources must be `instanceof` the CLI's).
// Dependencies stay external: they are the user's to install and to share with their config.
// date-fns is the exception (see BUNDLED_DEPENDENCIES).
//
// Exit code: TypeScript's (a type error still emits, and still bundles, so that tests of a change
// in progress can run), or 1 when bundling fails.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const COMPILED = join(ROOT, ".build", "tsc");
const BUNDLED = join(ROOT, ".build", "dist");
const DIST = join(ROOT, "dist");

/** The entry points: the package's exports, the CLI (`bin/interloper` imports cli/main.js) and the process pool's worker. */
const ENTRIES = ["index", "cli/main", "destination/index", "destination/formats/index", "api/pool-worker"];

/**
 * Dependencies joined into the bundle, tree-shaken to the functions interloper calls. date-fns's
 * entry module imports its ~250 function modules, which Node would load on every start of the
 * CLI (over a second on a loaded machine); the partitioning layer uses about twenty of them.
 * Nothing of theirs crosses the public API (the Dates handed out are plain Dates), so a user's
 * own copy of date-fns need not be the same one. ink and es-toolkit: see isInk.
 */
const BUNDLED_DEPENDENCIES = /^(date-fns|@date-fns\/(utc|tz)|ink|es-toolkit)(\/|$)/;

/**
 * ink and its dependencies: its `throttle` alone comes from es-toolkit/compat, whose entry loads
 * some 600 modules (half a second of every start of a terminal view on a loaded machine). Joined,
 * in a chunk of their own that only the terminal views load. React stays external: the views and
 * ink share one React.
 */
const isInk = (id) => id.includes("/node_modules/") && !BUNDLED_DEPENDENCIES_PATH.test(id) && !isInkDevtools(id);

/** date-fns, whose modules go into the library's chunk. */
const BUNDLED_DEPENDENCIES_PATH = /\/node_modules\/(date-fns|@date-fns)\//;

/** What ink imports and leaves to the package's own copy: React (the views and ink share it) and, for DEV=true only, the devtools. */
const SHARED_WITH_INK = /^(react|react-devtools-core|ws)(\/|$)/;

/** ink's link to React's devtools: loaded (and connecting) only when DEV=true, so kept in its own chunk. */
const isInkDevtools = (id) => /\/node_modules\/ink\/build\/devtools/.test(id);

rmSync(join(ROOT, ".build"), { recursive: true, force: true });
// --inlineSources: the maps carry the TypeScript itself, so they work without src/ (not published).
const tsc = spawnSync(
  process.execPath,
  [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json", "--outDir", COMPILED, "--inlineSources"],
  {
    cwd: ROOT,
    stdio: "inherit",
  },
);
if (!existsSync(join(COMPILED, "index.js"))) {
  console.error("build: TypeScript emitted nothing");
  process.exit(tsc.status || 1);
}

const { build } = await import("rolldown");
try {
  await build({
    input: Object.fromEntries(ENTRIES.map((entry) => [entry, join(COMPILED, `${entry}.js`)])),
    // Only interloper's own modules (relative or absolute paths) and the bundled dependencies go into the bundle.
    external: (id, importer) =>
      !id.startsWith(".") &&
      !id.startsWith("/") &&
      !BUNDLED_DEPENDENCIES.test(id) &&
      // A joined dependency's own dependencies are joined too, as it resolves them (ink keeps its
      // own signal-exit, older than the one beside it); React stays one copy, shared.
      (!importer?.includes("/node_modules/") || SHARED_WITH_INK.test(id)),
    platform: "node",
    logLevel: "warn",
    // tsc's source maps go in with its JavaScript, so the bundle's maps lead back to src/*.ts.
    plugins: [{ name: "tsc-source-maps", load: withSourceMap }],
    output: {
      dir: BUNDLED,
      format: "esm",
      sourcemap: true,
      // Source paths as seen from dist/, where the maps end up, not from the staging folder.
      sourcemapPathTransform: (source, mapPath) =>
        relative(dirname(join(DIST, relative(BUNDLED, mapPath))), resolve(dirname(mapPath), source)),
      chunkFileNames: "chunks/[name]-[hash].js",
      // The library's code in one chunk, which every entry and every command needs; the
      // command line's own modules stay in small chunks loaded by the command that uses them.
      // The pool worker's entry stays out of it: its top level starts serving, in a worker only.
      // So does the work queue (queue/, ~50 kB): only `materialize --queue`, `worker` and
      // `backfills` import it, and every other start would compile it for nothing.
      codeSplitting: {
        groups: [
          { name: "ink-devtools", test: isInkDevtools },
          { name: "ink", test: isInk },
          { name: "interloper", test: inLibraryChunk },
          { name: "queue", test: (id) => id.includes("/queue/") },
        ],
      },
    },
  });
} catch (error) {
  console.error(`build: bundling failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}

// Declarations keep the source layout: types resolve `./api/index.js` to `./api/index.d.ts`.
for (const file of walk(COMPILED)) {
  if (!/\.d\.ts(\.map)?$/.test(file)) continue;
  const target = join(BUNDLED, relative(COMPILED, file));
  mkdirSync(dirname(target), { recursive: true });
  cpSync(file, target);
}

// Swap the finished build in whole (two renames) rather than file by file, so that a CLI started
// during a rebuild does not load a mixture of old and new modules.
const previous = join(ROOT, ".build", "previous");
if (existsSync(DIST)) renameSync(DIST, previous);
renameSync(BUNDLED, DIST);
rmSync(join(ROOT, ".build"), { recursive: true, force: true });
process.exit(tsc.status ?? 1);

/** Whether a compiled module goes into the library's chunk (dist/chunks/interloper-*.js). */
function inLibraryChunk(id) {
  return !id.includes("/cli/") && !id.includes("/queue/") && !id.endsWith("/api/pool-worker.js");
}

/** A compiled module with the source map tsc wrote beside it (rolldown would not read it). */
function withSourceMap(id) {
  if (!id.startsWith(COMPILED) || !id.endsWith(".js") || !existsSync(`${id}.map`)) return null;
  const code = readFileSync(id, "utf8").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n");
  return { code, map: JSON.parse(readFileSync(`${id}.map`, "utf8")) };
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}
