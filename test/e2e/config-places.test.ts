// Issue 21 item 1, through the built CLI: cosmiconfig's standard places for "interloper"
// (.interloperrc.json, .interloperrc.yaml, .interloperrc, .config/interloperrc.ts, a package.json
// key), found upward from a subfolder; INTERLOPER_CONFIG naming a file (--config wins over it);
// a TypeScript config with local imports, loaded by jiti; YAML errors as one line with file:line.
//
// JSON and YAML cannot hold assets, so a config found there is recognised by the one-line error
// that names it: "<file>: the config defines no assets" (found, loaded and validated), or an
// invalid field's message (its values were parsed).
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, type CliResult, ensureBuilt, oneLineError, ROOT } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A project folder holding `files`, whose TypeScript configs import "interloper" from its node_modules. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "interloper-places-")));
  made.push(dir);
  await mkdir(join(dir, "node_modules"));
  await symlink(ROOT, join(dir, "node_modules", "interloper"), "dir");
  await mkdir(join(dir, "sub", "deeper"), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

// A TypeScript config importing a local TypeScript module: jiti compiles both.
const ASSETS_TS = `import * as il from "interloper";
const daily: number = 2;
export const counts = il.asset({ key: "counts", destinations: new il.CSVDestination({ basePath: "./data" }), run: () => [{ n: daily }] });
`;
const CONFIG_TS = `import { defineConfig } from "interloper";
import { counts } from "./assets.js";
export default defineConfig({ assets: [counts], concurrency: 2 });
`;

const run = (args: string[], cwd: string, env: Record<string, string | undefined> = {}) =>
  cli(args, { cwd, env: { INTERLOPER_CONFIG: undefined, ...env } });

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

function noAssets(result: CliResult, file: string): void {
  expect(result.exitCode, result.stderr).toBe(2);
  expect(oneLineError(result)).toMatch(new RegExp(`^interloper: ${escape(file)}: the config defines no assets: `));
  expect(result.stdout).toBe("");
}

describe.concurrent("where configs are found", () => {
  it(".interloperrc.json, found from a subfolder", async () => {
    const dir = await project({ ".interloperrc.json": `{ "concurrency": 2 }` });
    noAssets(await run(["list"], join(dir, "sub", "deeper")), join(dir, ".interloperrc.json"));
  });

  it(".interloperrc.yaml, found from a subfolder, its values parsed and validated", async () => {
    const dir = await project({ ".interloperrc.yaml": "# the project's config\nconcurrency: 2\n" });
    noAssets(await run(["list"], join(dir, "sub")), join(dir, ".interloperrc.yaml"));
    await writeFile(join(dir, ".interloperrc.yaml"), "concurrency: 0\n");
    const invalid = await run(["list"], join(dir, "sub"));
    expect(invalid.exitCode).toBe(2);
    expect(oneLineError(invalid)).toBe(
      `interloper: ${join(dir, ".interloperrc.yaml")}: invalid config at "concurrency": expected an integer of at least 1, got number 0`,
    );
  });

  it(".interloperrc (no extension) is YAML", async () => {
    const dir = await project({ ".interloperrc": "concurrency: 3\n" });
    noAssets(await run(["list"], dir), join(dir, ".interloperrc"));
  });

  it("a YAML syntax error is one line with file:line, failed to compile", async () => {
    const dir = await project({ ".interloperrc.yml": "concurrency: 2\nsources: [1, 2\n" });
    const result = await run(["list"], dir);
    expect(result.exitCode).toBe(2);
    const line = oneLineError(result);
    expect(line).toMatch(new RegExp(`^interloper: config ${escape(join(dir, ".interloperrc.yml"))}:\\d+:\\d+ failed to compile: YAML: `));
    expect(result.stderr).not.toContain("    at ");
  });

  it(".config/interloperrc.ts with a local import loads; its relative paths resolve against the project folder", async () => {
    const dir = await project({ ".config/interloperrc.ts": CONFIG_TS, ".config/assets.ts": ASSETS_TS });
    const result = await run(["list", "--verbose"], join(dir, "sub", "deeper"));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines).toContain("counts");
    expect(result.outLines).toContain(`  location      CSVDestination: ${join(dir, "data")}`);
  });

  it("a package.json key, found from a subfolder; a package.json without one further down is passed over", async () => {
    const dir = await project({
      "package.json": JSON.stringify({ name: "p", interloper: { concurrency: 2 } }),
      "sub/package.json": JSON.stringify({ name: "inner" }),
    });
    noAssets(await run(["list"], join(dir, "sub", "deeper")), join(dir, "package.json"));
  });

  it("a package.json that does not parse in the working folder (cosmiconfig reads it for its own options): one line naming it, no code frame", async () => {
    const dir = await project({ "package.json": "{ nope\n", ".interloperrc.json": "{}" });
    const result = await run(["list"], dir);
    expect(result.exitCode).toBe(2);
    const line = oneLineError(result);
    expect(line).toMatch(new RegExp(`^interloper: config ${escape(join(dir, "package.json"))} failed to compile: JSON: \\S`));
    expect(line).toContain("{ nope");
    expect(line).not.toMatch(/\||> 1/); // parse-json's code frame
  });

  it("interloper.config.ts with a local import still loads (exit 0)", async () => {
    const dir = await project({ "interloper.config.ts": CONFIG_TS, "assets.ts": ASSETS_TS });
    const result = await run(["list"], join(dir, "sub"));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines).toContain("counts");
  });

  it("INTERLOPER_CONFIG names the file (relative to the current folder), over any config found; --config wins over it", async () => {
    const dir = await project({
      "elsewhere/main.config.ts": CONFIG_TS,
      "elsewhere/assets.ts": ASSETS_TS,
      ".interloperrc.json": "{}",
      "other.json": `{ "concurrency": 1 }`,
    });
    const named = await run(["list", "--verbose"], dir, { INTERLOPER_CONFIG: "elsewhere/main.config.ts" });
    expect(named.exitCode, named.stderr).toBe(0);
    expect(named.outLines).toContain("counts");
    expect(named.outLines).toContain(`  location      CSVDestination: ${join(dir, "elsewhere", "data")}`);
    noAssets(
      await run(["list", "--config", "other.json"], dir, { INTERLOPER_CONFIG: "elsewhere/main.config.ts" }),
      join(dir, "other.json"),
    );
    // Empty is unset: the search finds .interloperrc.json.
    noAssets(await run(["list"], dir, { INTERLOPER_CONFIG: "" }), join(dir, ".interloperrc.json"));
  });

  it("INTERLOPER_CONFIG naming a file that does not exist: one line saying so", async () => {
    const dir = await project({});
    const result = await run(["list"], dir, { INTERLOPER_CONFIG: "nope.config.ts" });
    expect(result.exitCode).toBe(2);
    expect(oneLineError(result)).toBe(`interloper: config file not found: ${join(dir, "nope.config.ts")} (named by INTERLOPER_CONFIG)`);
  });
});
