// Where a config is found: the nearest folder from cwd upward holding a config file, or a
// package.json with an "interloper" key; the order of file names within one folder.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { searchConfig } from "../../src/config/find-config.js";

/** The file the search finds (and loads), or null. */
const findConfig = async (cwd: string) => (await searchConfig(cwd))?.filepath ?? null;

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "il-find-"));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe("findConfig", () => {
  it("finds the config of the folder itself", async () => {
    const root = await tree({ "interloper.config.ts": "export default {}" });
    expect(await findConfig(root)).toBe(join(root, "interloper.config.ts"));
  });

  it("walks up to the nearest folder that has one", async () => {
    const root = await tree({ "interloper.config.mjs": "export default {}", "a/b/c/readme.txt": "" });
    expect(await findConfig(join(root, "a", "b", "c"))).toBe(join(root, "interloper.config.mjs"));
  });

  it("the nearest config wins over one further up", async () => {
    const root = await tree({ "interloper.config.ts": "", "a/interloper.config.json": "{}", "a/b/x.txt": "" });
    expect(await findConfig(join(root, "a", "b"))).toBe(join(root, "a", "interloper.config.json"));
  });

  it("a package.json counts only with an interloper key", async () => {
    const root = await tree({
      "interloper.config.ts": "",
      "a/package.json": JSON.stringify({ name: "a" }),
      "b/package.json": JSON.stringify({ name: "b", interloper: {} }),
    });
    expect(await findConfig(join(root, "a"))).toBe(join(root, "interloper.config.ts"));
    expect(await findConfig(join(root, "b"))).toBe(join(root, "b", "package.json"));
  });

  it("a package.json that does not parse is passed over", async () => {
    const root = await tree({ "interloper.config.ts": "", "a/package.json": "{ nope" });
    expect(await findConfig(join(root, "a"))).toBe(join(root, "interloper.config.ts"));
  });

  it("within one folder, package.json comes first, then .ts before .js before .json", async () => {
    const root = await tree({ "interloper.config.json": "{}", "interloper.config.js": "", "interloper.config.ts": "" });
    expect(await findConfig(root)).toBe(join(root, "interloper.config.ts"));
    await writeFile(join(root, "package.json"), JSON.stringify({ interloper: {} }));
    expect(await findConfig(root)).toBe(join(root, "package.json"));
  });

  it("a folder named like a config is not one", async () => {
    const root = await tree({ "interloper.config.ts/inner.txt": "" });
    expect(await findConfig(root)).not.toBe(join(root, "interloper.config.ts"));
  });

  it("cosmiconfig's standard places: .interloperrc (YAML), .interloperrc.*, .config/interloperrc*, found upward", async () => {
    for (const place of [
      ".interloperrc",
      ".interloperrc.json",
      ".interloperrc.yaml",
      ".interloperrc.yml",
      ".interloperrc.ts",
      ".config/interloperrc.json",
      ".config/interloperrc.yaml",
      ".config/interloperrc.mjs",
    ]) {
      const root = await tree({
        [place]:
          place.endsWith("js") || place.endsWith("ts")
            ? "export default { concurrency: 2 }"
            : place.endsWith("json")
              ? `{ "concurrency": 2 }`
              : "concurrency: 2\n",
        "a/b/x.txt": "",
      });
      const found = await searchConfig(join(root, "a", "b"));
      expect(found?.filepath, place).toBe(join(root, place));
      expect(found?.config, place).toEqual({ concurrency: 2 });
    }
  });

  it("a config that throws ENOENT while loading is reported, not passed over for one further up", async () => {
    const root = await tree({
      "interloper.config.mjs": "export default {}",
      "a/interloper.config.mjs": `import { readFileSync } from "node:fs";\nreadFileSync(new URL("./missing.csv", import.meta.url));\nexport default {};\n`,
    });
    await expect(searchConfig(join(root, "a"))).rejects.toMatchObject({ filepath: join(root, "a", "interloper.config.mjs") });
  });

  it("null when no folder up to the root has one", async () => {
    const root = await tree({ "a/x.txt": "" });
    // tmpdir() and its parents hold no interloper config on a test machine.
    expect(await findConfig(join(root, "a"))).toBeNull();
  });
});
