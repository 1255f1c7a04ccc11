// `interloper check` loads every destination's optional packages (issue 32.6): pg-copy-streams,
// which PostgreSQL only needs at the first write, is reported by check, with what to install,
// rather than by materialize; so are a format's (the Parquet libraries, issue 41.7), and
// materialize refuses to start without them (exit 2, nothing written) rather than fail every
// partition. Run in a Node process whose resolver hides the packages named in HIDDEN_PACKAGES, as
// on a machine without them; nothing connects to a server.
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BIN, ensureBuilt, ROOT } from "./helpers.js";

const HOOKS = `export async function resolve(specifier, context, next) {
  if ((process.env.HIDDEN_PACKAGES ?? "").split(",").includes(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "'");
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
`;

// An object store in its default format, Parquet.
const PARQUET_CONFIG = `import * as il from "interloper";
const lake = new il.LocalObjectStoreDestination({ basePath: "./lake" });
const orders = il.asset({ key: "orders", run: () => [{ id: 1 }] });
export default il.defineConfig({ sources: [il.source({ key: "shop", assets: [orders] })({ destinations: { lake } })] });
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
  await mkdir(join(dir, "parquet"));
  await writeFile(join(dir, "parquet", "interloper.config.mjs"), PARQUET_CONFIG);
  await symlink(join(dir, "node_modules"), join(dir, "parquet", "node_modules"), "dir");
  await mkdir(join(dir, "node_modules"));
  await symlink(ROOT, join(dir, "node_modules", "interloper"), "dir");
}, 180_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The command in `cwd`, with `hidden` packages missing. */
const run = (cwd: string, args: readonly string[], hidden: readonly string[]) =>
  execa(process.execPath, [...(hidden.length > 0 ? ["--import", pathToFileURL(join(dir, "register.mjs")).href] : []), BIN, ...args], {
    cwd,
    env: { CI: "1", NO_COLOR: "1", HIDDEN_PACKAGES: hidden.join(",") },
    reject: false,
  });

it("check reports a missing pg-copy-streams with the install command, exit 2; with it, check passes", async () => {
  const [hidden, present] = await Promise.all([run(dir, ["check"], ["pg-copy-streams"]), run(dir, ["check"], [])]);
  expect(hidden.exitCode, hidden.stderr).toBe(2);
  expect(hidden.stdout).toBe("");
  expect(hidden.stderr.split("\n")[0]).toBe(
    'destination "warehouse" (PostgreSQL): PostgresDestination needs the optional package "pg-copy-streams", which is not installed: run `npm install pg pg-copy-streams`',
  );
  expect(present.exitCode, present.stderr).toBe(0);
  expect(present.stdout).toMatch(/^OK: /);
  // A run stops before it connects to the server (which does not exist here): exit 2, not 1.
  const materialize = await run(dir, ["materialize"], ["pg-copy-streams"]);
  expect(materialize.exitCode, materialize.stderr).toBe(2);
  expect(materialize.stderr.split("\n")[0]).toBe(`interloper: ${hidden.stderr.split("\n")[0]}`);
  // So does a queue worker, before it connects to its queue (there is none here either).
  const worker = await run(dir, ["worker", "--queue", "postgres://nobody@127.0.0.1:1/none"], ["pg-copy-streams"]);
  expect(worker.exitCode, worker.stderr).toBe(2);
  expect(worker.stderr.split("\n")[0]).toBe(`interloper: ${hidden.stderr.split("\n")[0]}`);
}, 60_000);

it.each(["hyparquet", "hyparquet-writer"])(
  "without %s, check names the Parquet format's packages and materialize exits 2 before writing anything",
  async (missing) => {
    const project = join(dir, "parquet");
    const check = await run(project, ["check"], [missing]);
    expect(check.exitCode, check.stderr).toBe(2);
    expect(check.stderr.split("\n")[0]).toBe(
      `destination "lake" (Local object store): the Parquet format needs the optional package "${missing}", which is not installed: run \`npm install hyparquet hyparquet-writer\``,
    );
    const materialize = await run(project, ["materialize"], [missing]);
    expect(materialize.exitCode, materialize.stderr).toBe(2);
    expect(materialize.stderr.split("\n")[0]).toBe(`interloper: ${check.stderr.split("\n")[0]}`);
    expect(await readdir(project)).not.toContain("lake");
  },
  60_000,
);

it("with the Parquet packages, check passes and materialize writes", async () => {
  const project = join(dir, "parquet");
  const check = await run(project, ["check"], []);
  expect(check.exitCode, check.stderr).toBe(0);
  const materialize = await run(project, ["materialize"], []);
  expect(materialize.exitCode, materialize.stderr).toBe(0);
  expect(await readdir(project)).toContain("lake");
}, 60_000);
