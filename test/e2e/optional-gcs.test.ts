// @google-cloud/storage is an optional peer dependency: the package imports, and a GCSDestination
// is made, without it; its first storage call fails with a ConfigError naming the install
// command. Run in a Node process whose resolver hides the package, as on a machine without it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { beforeAll, expect, it } from "vitest";
import { ensureBuilt, ROOT } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);

const HOOKS = `export async function resolve(specifier, context, next) {
  if (specifier === "@google-cloud/storage" || specifier.startsWith("@google-cloud/storage/")) {
    const error = new Error("Cannot find package '" + specifier + "'");
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
`;

it("without @google-cloud/storage, interloper loads and GCSDestination says which package to install", async () => {
  const dir = await mkdtemp(join(tmpdir(), "interloper-no-gcs-"));
  try {
    await writeFile(join(dir, "hooks.mjs"), HOOKS);
    await writeFile(
      join(dir, "register.mjs"),
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
    );
    const script = `
      const il = await import(${JSON.stringify(pathToFileURL(join(ROOT, "dist", "index.js")).href)});
      const destination = new il.GCSDestination({ bucket: "b", connection: { apiEndpoint: "http://127.0.0.1:1" } });
      try {
        await destination.getObject("x");
        console.log("no error");
      } catch (error) {
        console.log(error.constructor.name + ": " + error.message);
      }`;
    const result = await execa(
      process.execPath,
      ["--import", pathToFileURL(join(dir, "register.mjs")).href, "--input-type=module", "-e", script],
      { reject: false },
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      'ConfigError: GCSDestination needs the optional package "@google-cloud/storage", which is not installed: run `npm install @google-cloud/storage`',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
