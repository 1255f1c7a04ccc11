// Issue 19 item 4, through the built CLI: a config whose destination option is mistyped
// (`basepath` for `basePath`) exits 2 with one line naming the key and the nearest known one,
// and writes nothing, where it used to write into the current folder; an undecorated
// destination class of the config, compiled by jiti (.ts) or native (.mjs), keeps the options
// given over its field defaults, and so do classes decorated with @il.destination (jiti compiles
// the decorators); a non-destination in `destinations` or under @destination fails the config's
// load.
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt, listFiles, oneLineError, ROOT } from "../e2e/helpers.js";

let project: string;

beforeAll(async () => {
  await ensureBuilt();
  project = await realpath(await mkdtemp(join(tmpdir(), "interloper-options-")));
  await mkdir(join(project, "node_modules"));
  await symlink(ROOT, join(project, "node_modules", "interloper"), "dir");
}, 180_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

/** A fresh folder of the project holding one config file. */
async function configIn(name: string, file: string, text: string): Promise<string> {
  const dir = join(project, name);
  await mkdir(dir);
  await symlink(join(project, "node_modules"), join(dir, "node_modules"), "dir");
  await writeFile(join(dir, file), text);
  return dir;
}

// An undecorated destination as a user writes one: a field with a default, options by reflection.
const JSON_LINES = `
class JsonLines extends il.Destination {
  basePath = "./default";
  writePartition(context, partition, data) {
    fs.mkdirSync(this.basePath, { recursive: true });
    fs.writeFileSync(path.join(this.basePath, context.asset.table + ".jsonl"), data.map((r) => JSON.stringify(r)).join("\\n"));
  }
  readPartition() { return []; }
  partitionRowCounts() { return {}; }
}
`;
const IMPORTS = `import * as il from "interloper";\nimport fs from "node:fs";\nimport path from "node:path";\n`;
const config = (destination: string) =>
  `export default il.defineConfig({ assets: [il.asset({ key: "a", destinations: ${destination}, run: () => [{ n: 1 }] })] });\n`;

describe("option typos and lost options, through the CLI", () => {
  it("a mistyped built-in option exits 2 with one line and writes nothing", async () => {
    const dir = await configIn("typo", "interloper.config.ts", `${IMPORTS}${config('new il.CSVDestination({ basepath: "./out" })')}`);
    const result = await cli(["materialize", "a"], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(oneLineError(result)).toContain(
      'CSVDestination: unknown option "basepath"; did you mean "basePath"? (known: basePath, durable)',
    );
    expect((await listFiles(dir)).filter((f) => !f.startsWith("node_modules"))).toEqual(["interloper.config.ts"]);
  });

  for (const file of ["interloper.config.ts", "interloper.config.mjs"]) {
    it(`an undecorated class in ${file} keeps the options given over its field defaults`, async () => {
      const dir = await configIn(`kept-${file}`, file, `${IMPORTS}${JSON_LINES}${config('new JsonLines({ basePath: "./given" })')}`);
      const result = await cli(["materialize", "a"], { cwd: dir });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(await readFile(join(dir, "given", "a.jsonl"), "utf8")).toBe('{"n":1}');
      expect((await listFiles(dir)).filter((f) => f.startsWith("default"))).toEqual([]);
    });

    it(`an option an undecorated class in ${file} never takes exits 2 with one line`, async () => {
      const dir = await configIn(`unknown-${file}`, file, `${IMPORTS}${JSON_LINES}${config('new JsonLines({ basepath: "./given" })')}`);
      const result = await cli(["materialize", "a"], { cwd: dir });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(oneLineError(result)).toContain('JsonLines: unknown option "basepath"; did you mean "basePath"? (known: basePath)');
    });
  }

  it("classes decorated with @il.destination in interloper.config.ts load through the CLI, options over their fields", async () => {
    // jiti compiles the decorators of a .ts config; a subclass of il.Destination and a plain class.
    const hooks = JSON_LINES.slice(JSON_LINES.indexOf("  writePartition"), JSON_LINES.lastIndexOf("}"));
    const classes = `@il.destination({ name: "JSON lines", pretty: true })\nclass Lines extends il.Destination {\n  basePath = "./default";\n  pretty = false;\n${hooks}}\n@il.destination()\nclass Plain {\n  basePath = "./default";\n${hooks}}\n`;
    const assets = (lines: string) =>
      `export default il.defineConfig({ assets: [il.asset({ key: "a", destinations: ${lines}, run: () => [{ n: 1 }] }), il.asset({ key: "b", destinations: new Plain({ basePath: "./plain" }), run: () => [{ n: 2 }] })] });\n`;
    const dir = await configIn(
      "decorated-ok",
      "interloper.config.ts",
      `${IMPORTS}${classes}${assets('new Lines({ basePath: "./given" })')}`,
    );
    const result = await cli(["materialize", "a", "b"], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await readFile(join(dir, "given", "a.jsonl"), "utf8")).toBe('{"n":1}');
    expect(await readFile(join(dir, "plain", "b.jsonl"), "utf8")).toBe('{"n":2}');

    const typo = await configIn(
      "decorated-typo",
      "interloper.config.ts",
      `${IMPORTS}${classes}${assets('new Lines({ basepath: "./given" })')}`,
    );
    const refused = await cli(["list"], { cwd: typo });
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(oneLineError(refused)).toContain('Lines: unknown option "basepath"; did you mean "basePath"? (known: basePath, pretty)');
  });

  it("a non-destination in a source's destinations, and @destination on a non-destination, fail the load", async () => {
    const bad = await configIn(
      "not-a-destination",
      "interloper.config.ts",
      `${IMPORTS}const Shop = il.source({ key: "shop", assets: [il.asset({ key: "a", run: () => [] })] });\nexport default il.defineConfig({ sources: [Shop({ destinations: { warehouse: "./data" } })] });\n`,
    );
    const result = await cli(["list"], { cwd: bad });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(oneLineError(result)).toContain('source "shop": destination "warehouse" is not a Destination (got string "./data")');

    const decorated = await configIn(
      "decorated",
      "interloper.config.ts",
      `${IMPORTS}class NotOne {}\nil.destination()(NotOne);\n${config('new il.CSVDestination({ basePath: "./out" })')}`,
    );
    const refused = await cli(["list"], { cwd: decorated });
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(oneLineError(refused)).toContain("but class NotOne has no writePartition()");
  });
});
