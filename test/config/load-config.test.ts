// Loading and validating a config without a process: each problem is one ConfigError naming the
// file and what was expected (the command-line side is in test/e2e/config.test.ts).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { ConfigError } from "../../src/errors.js";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function configFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "il-load-"));
  made.push(dir);
  await writeFile(join(dir, name), text);
  return join(dir, name);
}

async function failure(name: string, text: string): Promise<string> {
  const path = await configFile(name, text);
  const error = await loadConfig({ configPath: path }).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).toContain(path);
  expect(message).not.toContain("\n");
  return message;
}

describe("loadConfig", () => {
  it("loads a JSON config and freezes it", async () => {
    const path = await configFile("interloper.config.json", `{ "concurrency": 2 }`);
    const { config, filepath } = await loadConfig({ configPath: path });
    expect(filepath).toBe(path);
    expect(config).toEqual({ concurrency: 2 });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("reads the interloper key of a package.json", async () => {
    const path = await configFile("package.json", JSON.stringify({ name: "x", interloper: { concurrency: 3 } }));
    expect((await loadConfig({ configPath: path })).config).toEqual({ concurrency: 3 });
  });

  it("a JSON syntax error gives the line and column", async () => {
    const message = await failure("interloper.config.json", `{\n  "concurrency": 2,\n}\n`);
    expect(message).toMatch(/interloper\.config\.json:3:\d+ failed to compile: JSON: /);
  });

  it("a file type it cannot load names the types it can", async () => {
    const message = await failure("interloper.config.toml", "concurrency = 2\n");
    expect(message).toContain('unsupported file type ".toml"');
    expect(message).toContain(".ts, .mts, .cts, .js, .mjs, .cjs, .json, .yaml, .yml, or no extension (YAML)");
  });

  it.each([
    ["a number", "5", "must export an object"],
    ["an array", "[]", "got an array"],
    ["sources that are not a list", `{ "sources": 5 }`, `"sources": expected an array, got number 5`],
    [
      "a source that is not one",
      `{ "sources": [42] }`,
      `"sources.0": expected a source made with il.source (called or not), got number 42`,
    ],
    ["an asset that is not one", `{ "assets": [{}, "x"] }`, `"assets.0": expected an asset made with il.asset`],
    ["an unknown field", `{ "sources": [], "concurency": 3 }`, "unknown field(s) concurency: expected sources, assets, concurrency"],
    ["a concurrency of 0", `{ "concurrency": 0 }`, `"concurrency": expected an integer of at least 1, got number 0`],
    ["a fractional concurrency", `{ "concurrency": 1.5 }`, "got number 1.5"],
    ["a concurrency given as text", `{ "concurrency": "4" }`, `got string "4"`],
  ])("refuses %s", async (_what, text, expected) => {
    expect(await failure("interloper.config.json", text)).toContain(expected);
  });

  it("a package.json without an interloper key, named with -c, is not a config", async () => {
    expect(await failure("package.json", JSON.stringify({ name: "x" }))).toContain("must export an object");
  });
});
