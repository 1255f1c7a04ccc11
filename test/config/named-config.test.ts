// A config named with --config or INTERLOPER_CONFIG is loaded directly, through the loaders the
// search uses, without requiring cosmiconfig (which costs every command start): with the same
// results as cosmiconfig's own load, including its `$import`.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors.js";

const requireHere = createRequire(import.meta.url);
/** Whether this process has loaded cosmiconfig (its CommonJS entry is in the require cache). */
const cosmiconfigLoaded = () => requireHere.resolve("cosmiconfig") in requireHere.cache;

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "il-named-"));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable("expected the load to fail"),
    (error: unknown) => error as Error,
  );

// In the order written: cosmiconfig must not have been loaded before the search test loads it.
describe("a named config", () => {
  it("loads without cosmiconfig: .json, .mjs, .ts, package.json, from --config and from INTERLOPER_CONFIG", async () => {
    const dir = await folder({
      "a.json": `{ "concurrency": 2 }`,
      "b.mjs": "export default { concurrency: 3 };\n",
      "c.ts": "const n: number = 4;\nexport default { concurrency: n };\n",
      "package.json": JSON.stringify({ name: "x", interloper: { concurrency: 5 } }),
    });
    expect((await loadConfig({ configPath: join(dir, "a.json") })).config).toEqual({ concurrency: 2 });
    expect((await loadConfig({ configPath: join(dir, "b.mjs") })).config).toEqual({ concurrency: 3 });
    expect((await loadConfig({ configPath: join(dir, "c.ts") })).config).toEqual({ concurrency: 4 });
    expect((await loadConfig({ configPath: join(dir, "package.json") })).config).toEqual({ concurrency: 5 });
    expect((await loadConfig({ cwd: dir, env: { INTERLOPER_CONFIG: "a.json" } })).config).toEqual({ concurrency: 2 });
    expect(cosmiconfigLoaded()).toBe(false);
  });

  it("an empty file is an empty config, which is no object", async () => {
    const dir = await folder({ "interloper.config.json": "  \n" });
    const error = await errorOf(loadConfig({ configPath: join(dir, "interloper.config.json") }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain("the config must export an object");
  });

  it("a folder named as the config is refused, naming it", async () => {
    const dir = await folder({});
    await mkdir(join(dir, "conf.json"));
    const error = await errorOf(loadConfig({ configPath: join(dir, "conf.json") }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(join(dir, "conf.json"));
    expect(error.message).toContain("EISDIR");
  });

  it("cosmiconfig's $import still merges the files it names", async () => {
    const dir = await folder({ "base.json": `{ "concurrency": 2 }`, ".interloperrc.json": `{ "$import": "./base.json", "assets": [] }` });
    expect((await loadConfig({ configPath: join(dir, ".interloperrc.json") })).config).toEqual({ concurrency: 2, assets: [] });
  });

  it("a search does load cosmiconfig (so the check above can see it)", async () => {
    const dir = await folder({ "interloper.config.json": `{ "concurrency": 2 }` });
    expect((await loadConfig({ cwd: dir })).config).toEqual({ concurrency: 2 });
    expect(cosmiconfigLoaded()).toBe(true);
  });
});
