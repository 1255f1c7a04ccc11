// The package as users install it (issue 21 item 8): `npm pack`, the tarball installed into a
// fresh project, then the CLI and a materialize run there, from that project's node_modules.
//
// The install runs offline, from the npm cache that `npm ci` filled. npm resolves a dependency
// it has no lockfile entry for from the registry's full metadata, which that cache does not hold
// (`npm ci` reads the abbreviated one), so `npm install --offline <tarball>` alone cannot work
// here. The fresh project gets a lockfile instead, made of this repository's entries for the
// packages the tarball depends on, and `npm ci --offline` installs exactly those versions.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "./helpers.js";

interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  peer?: boolean;
  [key: string]: unknown;
}
interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
  exports: Record<string, { types: string; default: string }>;
  files: string[];
}

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
const npmEnv = { npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

let work: string;
let app: string;
let packed: { filename: string; integrity: string; files: { path: string }[] };

/**
 * The packages the tarball needs at run time, from this repository's lockfile: its dependencies
 * and required peers, with what they depend on, found where Node would find them (nested
 * node_modules first). Optional peers (database drivers, SDKs) are the user's choice: left out.
 */
function runtimeEntries(lock: Record<string, LockEntry>): Record<string, LockEntry> {
  const required = Object.keys(manifest.peerDependencies ?? {}).filter((name) => !manifest.peerDependenciesMeta?.[name]?.optional);
  const wanted = [...Object.keys(manifest.dependencies ?? {}), ...required].map((name) => ({ name, from: "" }));
  const out: Record<string, LockEntry> = {};
  while (wanted.length > 0) {
    const { name, from } = wanted.pop()!;
    let path: string | undefined;
    for (let base = from; ; base = base.includes("/node_modules/") ? base.slice(0, base.lastIndexOf("/node_modules/")) : "") {
      const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
      if (lock[candidate]) {
        path = candidate;
        break;
      }
      if (!base) break;
    }
    if (!path) throw new Error(`package-lock.json has no entry for ${name} (needed by ${from || "interloper"})`);
    if (out[path]) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = lock[path]!;
    out[path] = entry;
    const deps = {
      ...(entry["dependencies"] as Record<string, string> | undefined),
      ...(entry["optionalDependencies"] as Record<string, string> | undefined),
    };
    for (const dependency of Object.keys(deps)) wanted.push({ name: dependency, from: path });
  }
  return out;
}

async function run(command: string, args: readonly string[], cwd: string) {
  return execa(command, args, { cwd, env: npmEnv, reject: false, all: true });
}

beforeAll(async () => {
  await ensureBuilt();
  work = await mkdtemp(join(tmpdir(), "interloper-package-"));
  // --ignore-scripts: `prepare` would rebuild dist/, which ensureBuilt has just checked.
  const pack = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT);
  expect(pack.exitCode, pack.all).toBe(0);
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;

  app = join(work, "app");
  await mkdir(app);
  const tarball = `file:../${packed.filename}`;
  const zod = manifest.devDependencies!["zod"]!;
  await writeFile(
    join(app, "package.json"),
    JSON.stringify({ name: "app", private: true, type: "module", dependencies: { interloper: tarball, zod } }, null, 2),
  );
  const lock = JSON.parse(await readFile(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
  const { version, dependencies, peerDependencies, peerDependenciesMeta } = manifest;
  const entries = runtimeEntries(lock.packages);
  const appLock = {
    name: "app",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "app", dependencies: { interloper: tarball, zod } },
      "node_modules/interloper": {
        version,
        resolved: tarball,
        integrity: packed.integrity,
        dependencies,
        peerDependencies,
        peerDependenciesMeta,
        bin: { interloper: "bin/interloper" },
        engines: { node: ">=20" },
      },
      ...entries,
    },
  };
  await writeFile(join(app, "package-lock.json"), JSON.stringify(appLock, null, 2));
  const install = await run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], app);
  expect(install.exitCode, install.all).toBe(0);
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("holds dist, bin, README and LICENSE, and no tests, fixtures or sources", () => {
    const paths = packed.files.map((file) => file.path);
    const top = new Set(paths.map((path) => (path.includes("/") ? `${path.split("/")[0]}/` : path)));
    expect([...top].sort()).toEqual(["LICENSE", "README.md", "bin/", "dist/", "package.json"]);
    expect(paths.filter((path) => /(^|\/)(test|tests|fixtures|__tests__)\//.test(path) || /\.test\.[cm]?[jt]sx?$/.test(path))).toEqual([]);
    expect(manifest.files.sort()).toEqual(["bin", "dist"]);
  });

  it("has source maps in dist that lead to src/*.ts(x), the TypeScript inside them", async () => {
    const maps = packed.files.map((file) => file.path).filter((path) => path.endsWith(".js.map"));
    expect(maps.length).toBeGreaterThan(0);
    const installed = join(app, "node_modules", "interloper");
    for (const path of maps) {
      const map = JSON.parse(await readFile(join(installed, path), "utf8")) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(map.sources.length, path).toBeGreaterThan(0);
      map.sources.forEach((source, i) => {
        // Relative to the map, as in the repository: ../../src/... from dist/chunks/.
        const file = resolve(ROOT, dirname(path), source);
        // A dependency bundled into dist (date-fns) keeps its own sources, carried in the map.
        if (file.startsWith(join(ROOT, "node_modules") + "/")) {
          expect(map.sourcesContent?.[i], `${path}: ${source} has no sourcesContent`).toEqual(expect.any(String));
          return;
        }
        expect(file.startsWith(join(ROOT, "src") + "/") && /\.tsx?$/.test(file), `${path}: ${source}`).toBe(true);
        expect(existsSync(file), `${path}: ${source}`).toBe(true);
        expect(map.sourcesContent?.[i], `${path}: ${source} has no sourcesContent`).toBe(readFileSync(file, "utf8"));
      });
    }
  });

  it("takes zod as a peer dependency, not its own copy", async () => {
    expect(manifest.dependencies?.["zod"]).toBeUndefined();
    expect(manifest.peerDependencies?.["zod"]).toBeDefined();
    expect(manifest.peerDependenciesMeta?.["zod"]).toBeUndefined();
    expect(existsSync(join(app, "node_modules", "interloper", "node_modules", "zod"))).toBe(false);
    expect(existsSync(join(app, "node_modules", "zod", "package.json"))).toBe(true);
  });

  it("answers every entry point of its exports, each a part of the main one", async () => {
    const script = `
      const main = await import("interloper");
      const out = {};
      for (const entry of ${JSON.stringify(Object.keys(manifest.exports))}) {
        const names = Object.keys(await import(entry === "." ? "interloper" : "interloper" + entry.slice(1)));
        out[entry] = { count: names.length, notInMain: names.filter((name) => !(name in main)) };
      }
      console.log(JSON.stringify(out));`;
    const result = await run(process.execPath, ["--input-type=module", "-e", script], app);
    expect(result.exitCode, result.all).toBe(0);
    const entries = JSON.parse(result.stdout) as Record<string, { count: number; notInMain: string[] }>;
    for (const [entry, { count, notInMain }] of Object.entries(entries)) {
      expect(count, entry).toBeGreaterThan(0);
      expect(notInMain, entry).toEqual([]);
    }
    expect(Object.keys(entries).sort()).toEqual([".", "./destination", "./destination/formats"]);
  });

  it("runs `npx interloper --version` and a materialize in the project that installed it", async () => {
    const version = await run("npx", ["--offline", "interloper", "--version"], app);
    expect(version.exitCode, version.all).toBe(0);
    expect(version.stdout.trim()).toBe(manifest.version);

    await writeFile(
      join(app, "interloper.config.ts"),
      `import { z } from "zod";
import * as il from "interloper";

const Greeting = z.object({ word: z.string(), n: z.number().int() });
const greetings = il.asset({ key: "greetings", schema: Greeting, run: () => [{ word: "hello", n: 1 }, { word: "world", n: 2 }] });
const Demo = il.source({ key: "demo", assets: [greetings] });

export default il.defineConfig({ sources: [Demo({ destinations: new il.CSVDestination({ basePath: "./data" }) })] });
`,
    );
    const materialize = await run("npx", ["--offline", "interloper", "materialize", "demo.greetings"], app);
    expect(materialize.exitCode, materialize.all).toBe(0);
    expect(await readFile(join(app, "data", "demo", "greetings", "data.csv"), "utf8")).toBe("word,n\nhello,1\nworld,2\n");
  });
});
