// The conventions of a command-line tool: --version, init, check, completion, --quiet and
// --color/--no-color, through the built CLI.
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN, ensureBuilt, installPackages, listFiles, oneLineError, ROOT, SHOP, useSandboxes, type Sandbox } from "./helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

/** A sandbox that is an empty user project with interloper and zod installed. */
async function emptyProject(): Promise<Sandbox> {
  const box = await sandbox();
  await installPackages(box.dir);
  return box;
}

const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

describe.concurrent("--version", () => {
  it("prints the package's version, exit 0", async () => {
    const box = await sandbox();
    const { version } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) {
      const result = await box.run([flag], { config: null });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
  });
});

describe.concurrent("init", () => {
  it("writes a config that checks and runs: materialize -p yesterday writes into ./data; .gitignore gets /data/", async () => {
    const box = await emptyProject();
    const init = await box.run(["init"], { config: null });
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.outLines[0]).toBe(
      `Created ${join(box.dir, "interloper.config.ts")}: source "shop", daily asset "shop.orders" (from ${new Date().getUTCFullYear() - 1}-01-01), CSV files in ./data`,
    );
    expect(await readFile(join(box.dir, ".gitignore"), "utf8")).toBe("/data/\n");
    const config = await readFile(join(box.dir, "interloper.config.ts"), "utf8");
    expect(config).toContain('from "zod"');
    expect(config).toContain("z.object(");
    expect(config).toContain("new il.CSVDestination(");
    expect(config).toContain("new il.TimePartitionConfig(");
    const check = await box.run(["check"], { config: null });
    expect(check.exitCode, check.stderr).toBe(0);
    expect(check.outLines).toEqual([`OK: ${join(box.dir, "interloper.config.ts")}: 1 asset, 1 source, 1 destination (CSV files)`]);
    const day = yesterday();
    const run = await box.run(["materialize", "-p", day], { config: null });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(await listFiles(box.data)).toContain(`shop/orders/date=${day}/data.csv`);
    const shown = await box.run(["show", "orders", "-p", day, "--format", "json"], { config: null });
    expect(JSON.parse(shown.stdout)).toEqual([1, 2, 3].map((n) => ({ date: day, order_id: n, amount: n * 12.5 })));
  });

  it("run again: refuses in one line, exit 2, and changes nothing", async () => {
    const box = await emptyProject();
    expect((await box.run(["init"], { config: null })).exitCode).toBe(0);
    await writeFile(join(box.dir, "interloper.config.ts"), "// mine\n");
    const again = await box.run(["init"], { config: null });
    expect(again.exitCode).toBe(2);
    expect(oneLineError(again)).toBe(
      `interloper: ${join(box.dir, "interloper.config.ts")} already exists: init writes a new project and never overwrites one (edit that config, or remove it first)`,
    );
    expect(again.stdout).toBe("");
    expect(await readFile(join(box.dir, "interloper.config.ts"), "utf8")).toBe("// mine\n");
    expect(await readFile(join(box.dir, ".gitignore"), "utf8")).toBe("/data/\n");
  });

  it("refuses when the folder has a config of another kind (interloper.config.json)", async () => {
    const box = await emptyProject();
    await box.write("interloper.config.json", "{}\n");
    const result = await box.run(["init"], { config: null });
    expect(result.exitCode).toBe(2);
    expect(oneLineError(result)).toContain(join(box.dir, "interloper.config.json"));
    expect(await listFiles(box.dir).then((files) => files.filter((f) => !f.startsWith("node_modules")))).toEqual([
      "interloper.config.json",
    ]);
  });

  it("appends to an existing .gitignore once: not when a line already ignores data/", async () => {
    const box = await emptyProject();
    await box.write(".gitignore", "node_modules");
    expect((await box.run(["init"], { config: null })).exitCode).toBe(0);
    expect(await readFile(join(box.dir, ".gitignore"), "utf8")).toBe("node_modules\n/data/\n");
    // A second project in the same folder (the first config removed): the line is there already.
    const other = await emptyProject();
    await other.write(".gitignore", "data/\n");
    const result = await other.run(["init"], { config: null });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toContain(".gitignore");
    expect(await readFile(join(other.dir, ".gitignore"), "utf8")).toBe("data/\n");
  });

  it("--quiet leaves out the next steps; -c names the file to write", async () => {
    const box = await emptyProject();
    const result = await box.run(["init", "--quiet", "-c", "pipeline.config.ts"], { config: null });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines).toHaveLength(2);
    expect(result.stdout).not.toContain("Next");
    const check = await box.run(["check", "-c", "pipeline.config.ts"], { config: null });
    expect(check.exitCode, check.stderr).toBe(0);
  });
});

describe.concurrent("check", () => {
  it("lists every problem, one a line, and exits 2; runs nothing", async () => {
    const box = await emptyProject();
    const file = await box.write(
      "interloper.config.ts",
      `import * as il from "interloper";
const files = new il.CSVDestination({ basePath: "./data" });
const daily = () => new il.TimePartitionConfig({ column: "date", start: "2026-01-01" });
const stock = il.asset({ key: "stock", partitioning: new il.ListPartitionConfig({ column: "region", values: ["eu", "us"] }), run: () => [] });
const byDay = il.asset({ key: "by_day", partitioning: daily(), requires: { stock }, run: () => [] });
const orders = il.asset({ key: "orders", partitioning: daily(), run: () => [] });
const total = il.asset({ key: "total", requires: { orders }, run: () => [] });
const loose = il.asset({ key: "loose", run: () => [{ n: 1 }] });
export default il.defineConfig({ sources: [il.source({ key: "s", assets: [stock, byDay, orders, total] })({ destinations: files })], assets: [loose] });
`,
    );
    const result = await box.run(["check"], { config: null });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.errLines).toHaveLength(4);
    expect(result.errLines[0]).toMatch(
      /^s\.by_day: asset "s\.by_day" \(by day\) requires "s\.stock" .*: time and list partitions do not map onto each other/,
    );
    expect(result.errLines[1]).toMatch(
      /^s\.total: asset "s\.total" \(unpartitioned\) requires "s\.orders" .*: an unpartitioned asset cannot choose which periods to read/,
    );
    expect(result.errLines[2]).toBe("loose: no destination to write to: set destinations on the asset or its source");
    expect(result.errLines[3]).toBe(`${file}: 3 problems found`);
    expect(await listFiles(box.data)).toEqual([]);
  });

  it("a config that does not load: its one-line error, exit 2", async () => {
    const box = await emptyProject();
    await box.write("interloper.config.ts", "export default { sources: [ ;\n");
    const result = await box.run(["check"], { config: null });
    expect(result.exitCode).toBe(2);
    expect(oneLineError(result)).toMatch(/^interloper: config .* failed to compile/);
  });

  it("the shop fixture is OK: its counts in one line", async () => {
    const box = await sandbox();
    const result = await box.run(["check"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.outLines).toEqual([`OK: ${SHOP}: 6 assets, 3 sources, 1 destination (CSV files)`]);
  });
});

describe.concurrent("--quiet", () => {
  it("materialize: no progress lines, only the verdict; a failure keeps its whole summary", async () => {
    const box = await sandbox();
    const ok = await box.run(["materialize", "orders", "-w", "2026-01-01..2026-01-03", "--quiet"]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toBe("");
    expect(ok.errLines).toHaveLength(1);
    expect(ok.errLines[0]).toMatch(/^Done: 3 of 3 partitions completed, \d+ rows in /);
    const failed = await box.run(["materialize", "orders", "-w", "2026-01-04..2026-01-05", "-q"], {
      env: { INTERLOPER_FAIL: "2026-01-05" },
    });
    expect(failed.exitCode).toBe(1);
    expect(failed.errLines[0]).toMatch(/^Failed: 1 of 2 partitions completed, 1 failed/);
    expect(failed.stderr).toContain("orders feed unavailable for 2026-01-05");
    expect(failed.stderr).toContain("Re-run what did not complete with:");
    expect(failed.stderr).not.toMatch(/^(ok|FAIL) /m);
  });
});

describe.concurrent("completion", () => {
  const prepared = new WeakSet<Sandbox>();
  /** Runs bash with the completion script sourced and `interloper` on PATH; `line` is what was typed before Tab. */
  async function complete(box: Sandbox, line: string): Promise<string[]> {
    const bin = join(box.dir, "bin");
    // The script is made once per sandbox: a CLI start less for each line completed.
    if (!prepared.has(box)) {
      prepared.add(box);
      const script = (await box.run(["completion", "bash"], { config: null })).stdout;
      await mkdir(bin, { recursive: true });
      await symlink(BIN, join(bin, "interloper"));
      await writeFile(join(box.dir, "completion.bash"), script);
    }
    // COMP_WORDS as bash splits the line: a trailing space starts a new, empty word.
    const words = line.split(" ");
    const program = `source completion.bash
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")})
COMP_CWORD=${words.length - 1}
_interloper
printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = await execa("bash", ["--norc", "--noprofile", "-c", program], {
      cwd: box.dir,
      env: { PATH: `${bin}:${process.env["PATH"]}`, CI: "1", NO_COLOR: "1", INTERLOPER_TEST_DATA: box.data },
      extendEnv: false,
      reject: false,
    });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    return String(result.stdout).split("\n").filter(Boolean).sort();
  }

  it("bash: completes commands, options, and asset keys read from the config (also through -c)", async () => {
    const box = await sandbox();
    await box.write("interloper.config.ts", `export { default } from ${JSON.stringify(SHOP)};\n`);
    expect(await complete(box, "interloper ma")).toEqual(["materialize"]);
    expect(await complete(box, "interloper c")).toEqual(["check", "completion", "coverage"]);
    expect(await complete(box, "interloper materialize --dry")).toEqual(["--dry-run"]);
    expect(await complete(box, "interloper show orders --dest")).toEqual(["--destination"]);
    expect(await complete(box, "interloper materialize ord")).toEqual(["orders"]);
    expect(await complete(box, "interloper verify ord")).toEqual(["orders"]);
    expect(await complete(box, "interloper materialize -p 2026-01-01 shop.")).toEqual([
      "shop.customers",
      "shop.daily_revenue",
      "shop.events",
      "shop.orders",
    ]);
    expect(await complete(box, "interloper coverage --exclude reg")).toEqual(["regions", "regions.sales"]);
    expect(await complete(box, "interloper completion ")).toEqual(["bash", "fish", "zsh"]);
    // -c on the line names the config: a folder without one still completes.
    const other = await sandbox();
    expect(await complete(other, `interloper list -c ${SHOP} arch`)).toEqual(["archive", "archive.customers"]);
    // No config: nothing, and no error on the screen.
    expect(await complete(other, "interloper list ord")).toEqual([]);
  });

  it("zsh and fish: a script each; an unknown shell is a one-line error, exit 2", async () => {
    const box = await sandbox();
    const zsh = await box.run(["completion", "zsh"], { config: null });
    expect(zsh.exitCode).toBe(0);
    expect(zsh.outLines[0]).toBe("#compdef interloper");
    expect(zsh.stdout).toContain("complete -F _interloper interloper");
    const fish = await box.run(["completion", "fish"], { config: null });
    expect(fish.exitCode).toBe(0);
    expect(fish.stdout).toContain("complete -c interloper -n __fish_use_subcommand -a materialize");
    expect(fish.stdout).toContain("-l destination -r");
    expect(fish.stdout).toContain("(__interloper_assets)");
    const bad = await box.run(["completion", "powershell"], { config: null });
    expect(bad.exitCode).toBe(2);
    expect(oneLineError(bad)).toBe('interloper: completion: unknown shell "powershell": expected bash, zsh, fish');
  });
});

describe.concurrent("--color and --no-color", () => {
  /** Runs materialize in a pseudo-terminal (util-linux `script`), so that the progress view draws. */
  async function inTerminal(box: Sandbox, flags: string, env: Record<string, string>): Promise<string> {
    const command = `${process.execPath} ${BIN} materialize orders -w 2026-01-01..2026-01-02 -c ${SHOP} ${flags}`;
    const result = await execa("script", ["-qec", command, "/dev/null"], {
      cwd: box.dir,
      env: { PATH: process.env["PATH"], TERM: "xterm-256color", INTERLOPER_TEST_DATA: box.data, ...env },
      extendEnv: false,
      reject: false,
      stdin: "ignore",
    });
    expect(result.exitCode, String(result.stdout)).toBe(0);
    return String(result.stdout);
  }
  // An SGR sequence that sets a foreground colour (green bar, red failures): ESC [ 3x m / 9x m.
  const COLOUR = /\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7])m/;

  it("--no-color in a terminal: no colour, even with FORCE_COLOR=1", async () => {
    const box = await sandbox();
    expect(await inTerminal(box, "--no-color", { FORCE_COLOR: "1" })).not.toMatch(COLOUR);
  });

  it("--color: colour, even with NO_COLOR=1; NO_COLOR=1 alone: none; FORCE_COLOR=1 over NO_COLOR=1: colour", async () => {
    const box = await sandbox();
    expect(await inTerminal(box, "--color", { NO_COLOR: "1" })).toMatch(COLOUR);
    expect(await inTerminal(box, "", { NO_COLOR: "1" })).not.toMatch(COLOUR);
    expect(await inTerminal(box, "", { NO_COLOR: "1", FORCE_COLOR: "1" })).toMatch(COLOUR);
    expect(await inTerminal(box, "", {})).toMatch(COLOUR);
  });
});
