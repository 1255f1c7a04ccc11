// Config loading end to end: found upward or named with -c, .ts through jiti (with local .ts
// imports), .json; each problem is exit code 2 and one line naming the file, with a stack
// trace only under --verbose or DEBUG=interloper.
//
// The broken configs are written into temp folders by the tests rather than kept under
// fixtures/: tsconfig.json type-checks fixtures/, and these must not compile. They import
// nothing, so they need not live inside the package.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, FIXTURES, JSON_CONFIG, oneLineError, SHOP, useSandboxes } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Exit 2, one line starting "interloper:", no stack trace, nothing on stdout. */
function configError(result: { exitCode: number; stderr: string; stdout: string; errLines: string[] }): string {
  expect(result.exitCode, result.stderr).toBe(2);
  const line = oneLineError(result as Parameters<typeof oneLineError>[0]);
  expect(line).toMatch(/^interloper: /);
  expect(result.stderr).not.toContain("    at ");
  expect(result.stdout).toBe("");
  return line;
}

describe.concurrent("config loading", () => {
  it("no config found: names the folder searched (run in an empty temp dir)", async () => {
    const box = await sandbox();
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain(box.dir);
    expect(line).toMatch(/no interloper config/i);
  });

  it("no config found for materialize: nothing written", async () => {
    const box = await sandbox();
    configError(await box.run(["materialize", "-p", "2026-01-01"], { config: null }));
    expect(await box.files()).toEqual([]);
  });

  it("-c naming a file that does not exist", async () => {
    const box = await sandbox();
    const line = configError(await box.run(["list"], { config: "missing.config.ts" }));
    expect(line).toContain(join(box.dir, "missing.config.ts"));
  });

  it("a .ts config with a syntax error: failed to compile, file:line", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.ts", `const a = 1;\n\nexport default { sources: [ ;\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain(file);
    expect(line).toMatch(new RegExp(`${escape(file)}:3\\b`));
    expect(line).toMatch(/compile/);
  });

  it("a .mjs config with a syntax error: failed to compile, naming the config file as where", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.mjs", `const a = 1;\nexport default { sources: [ ;\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toMatch(new RegExp(`^interloper: config ${escape(file)}(:\\d+)? failed to compile`));
    expect(line).not.toContain("node_modules");
  });

  it("a .json config with a syntax error names the config file and says what is wrong", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.json", `{ "sources": [1, }\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toMatch(new RegExp(`^interloper: config ${escape(file)}(:\\d+)? `));
    expect(line).not.toContain("node_modules");
    expect(line).toMatch(/JSON|Unexpected|token/i);
    expect(line).not.toMatch(/:\s*$/); // a reason, not a dangling "JSON Error in ...:"
  });

  it("a config that throws while loading: file:line and the message", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.ts", `const ok = 1;\nthrow new Error("boom from config");\nexport default {};\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain(`${file}:2`);
    expect(line).toContain("boom from config");
    expect(line).toMatch(/threw/);
  });

  it("a .ts config importing a local module that does not exist names the config file", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.ts", `import { nope } from "./missing.js";\nexport default { sources: nope };\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain("missing");
    expect(line).toContain(file);
    expect(line).not.toContain("node_modules");
  });

  it("a config exporting the wrong shape names the file and the field", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.ts", `export default { sources: 5 };\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain(file);
    expect(line).toContain('"sources"');
  });

  it("a config with a source that is not one names the field", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.mjs", `export default { sources: [42] };\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain(file);
    expect(line).toContain("sources.0");
  });

  it("a config with an unknown field names it", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.ts", `export default { sources: [], concurency: 3 };\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain(file);
    expect(line).toContain("concurency");
  });

  it("a config exporting a number", async () => {
    const box = await sandbox();
    const file = await box.write("interloper.config.ts", `export default 5;\n`);
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain(file);
  });

  it("an interloper key in package.json is validated too", async () => {
    const box = await sandbox();
    const file = await box.write("package.json", JSON.stringify({ name: "x", interloper: { concurrency: 0 } }));
    const line = configError(await box.run(["list"], { config: null }));
    expect(line).toContain(file);
    expect(line).toContain('"concurrency"');
  });

  it("--verbose prints the stack trace of a config error", async () => {
    const box = await sandbox();
    await box.write("interloper.config.ts", `throw new Error("boom from config");\n`);
    const result = await box.run(["list", "--verbose"], { config: null });
    expect(result.exitCode).toBe(2);
    expect(result.errLines[0]).toContain("boom from config");
    expect(result.stderr).toContain("    at ");
  });

  it("DEBUG=interloper prints the stack trace of a bad-input error", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-p", "2026-02-30"], { env: { DEBUG: "interloper" } });
    expect(result.exitCode).toBe(2);
    expect(result.errLines[0]).toContain("2026-02-30");
    expect(result.stderr).toContain("    at ");
    expect(await box.files()).toEqual([]);
  });

  it("a .ts config importing a local .ts module loads (exit 0)", async () => {
    const box = await sandbox();
    // fixtures/projects/shop/interloper.config.ts imports ./assets/regions.js, which defines regions.sales.
    const result = await box.run(["list"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^regions\.sales$/m);
    expect(result.stderr).toBe("");
  });

  it("a .json config can only be empty, and a config with no asset is bad input naming the file (issue 17)", async () => {
    const box = await sandbox();
    for (const args of [["list"], ["list", "--json"], ["coverage"]]) {
      const result = await box.run(args, { config: JSON_CONFIG });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(oneLineError(result)).toBe(
        `interloper: ${JSON_CONFIG}: the config defines no assets: expected export default defineConfig({ sources: [...] }) or { assets: [...] } with at least one asset`,
      );
      expect(result.stdout).toBe("");
    }
  });

  it("the config is found by searching upward from a subdirectory", async () => {
    const box = await sandbox();
    const result = await box.run(["list"], { config: null, cwd: join(FIXTURES, "shop", "nested", "deeper") });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^shop\.orders$/m);
  });

  it("a config found upward is the one materialize uses", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "orders", "-p", "2026-01-01"], { config: null, cwd: join(FIXTURES, "shop") });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await box.dataFiles()).toEqual(["shop/orders/date=2026-01-01/data.csv"]);
  });

  it("-c may come before the command", async () => {
    const box = await sandbox();
    const result = await box.run(["-c", SHOP, "list"], { config: null });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^shop\.orders$/m);
  });
});
