// bin/interloper turns on Node's module compile cache (Node 22.1 and later): a start after the
// first reads V8's compiled code from the cache folder instead of compiling interloper, jiti and
// a config's imports again. It is an optimisation only: a folder that cannot be made leaves the
// command as it was, with nothing on stderr. On Node 20 (no such cache) the CLI runs as before.
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import module from "node:module";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, useSandboxes } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

/** Node 22.1 and later have module.enableCompileCache; Node 20 does not. */
const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";

/** The environment of a run whose temporary folder is `tmp`, the cache in Node's default place below it. */
const cacheEnv = (tmp: string) => ({ TMPDIR: tmp, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined });

describe("the module compile cache", () => {
  it.skipIf(!hasCompileCache)("is written to the temporary folder's node-compile-cache by a command", async () => {
    const box = await sandbox();
    const tmp = await box.write("tmp/.keep", "").then(() => join(box.dir, "tmp"));
    const result = await box.run(["list"], { env: cacheEnv(tmp) });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const cache = join(tmp, "node-compile-cache");
    expect(existsSync(cache)).toBe(true);
    // One folder for this Node version, holding an entry for each module compiled.
    const [version] = await readdir(cache);
    expect((await readdir(join(cache, version!))).length).toBeGreaterThan(0);
  });

  it("leaves a command's output as it is when the cache folder cannot be made, and says nothing", async () => {
    const box = await sandbox();
    const normal = await box.run(["list"]);
    expect(normal.exitCode, normal.stderr).toBe(0);
    // A file where the temporary folder should be: no folder can be made below it, even as root.
    const notAFolder = await box.write("not-a-folder", "a file\n");
    const result = await box.run(["list"], { env: cacheEnv(notAFolder) });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(normal.stdout);
  });
});
