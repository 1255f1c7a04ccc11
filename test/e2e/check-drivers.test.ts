// `interloper check` loads every destination's optional packages (issue 32.6): pg-copy-streams,
// which PostgreSQL only needs at the first write, is reported by check, with what to install,
// rather than by materialize. Run in a Node process whose resolver hides the package, as on a
// machine without it; nothing connects to a server.
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BIN, ensureBuilt, ROOT } from "./helpers.js";

const HOOKS = `export async function resolve(specifier, context, next) {
  if (specifier === "pg-copy-streams") {
    const error = new Error("Cannot find package '" + specifier + "'");
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
`;

const CONFIG = `import * as il from "interloper";
const warehouse = new il.PostgresDestination({ connection: { url: "postgres://nobody@127.0.0.1:1/none" } });
const orders = il.asset({ key: "orders", run: () => [{ id: 1 }] });
export default il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders] })({ destinations: { warehouse } })] });
`;

let dir = "";
beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "interloper-check-drivers-"));
  await writeFile(join(dir, "hooks.mjs"), HOOKS);
  await writeFile(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
  );
  await writeFile(join(dir, "interloper.config.mjs"), CONFIG);
  await mkdir(join(dir, "node_modules"));
  await symlink(ROOT, join(dir, "node_modules", "interloper"), "dir");
}, 180_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("check reports a missing pg-copy-streams with the install command, exit 2; with it, check passes", async () => {
  const run = (hide: boolean) =>
    execa(process.execPath, [...(hide ? ["--import", pathToFileURL(join(dir, "register.mjs")).href] : []), BIN, "check"], {
      cwd: dir,
      env: { CI: "1", NO_COLOR: "1" },
      reject: false,
    });
  const [hidden, present] = await Promise.all([run(true), run(false)]);
  expect(hidden.exitCode, hidden.stderr).toBe(2);
  expect(hidden.stdout).toBe("");
  expect(hidden.stderr.split("\n")[0]).toBe(
    'destination "warehouse" (PostgreSQL): PostgresDestination needs the optional package "pg-copy-streams", which is not installed: run `npm install pg pg-copy-streams`',
  );
  expect(present.exitCode, present.stderr).toBe(0);
  expect(present.stdout).toMatch(/^OK: /);
}, 60_000);
