// Terminal escape sequences in a project's text never reach the terminal raw. The fixture
// fixtures/projects/escapes puts them in list values, a destination's key, a description, a
// column name, cells, log messages and an error: a screen clear (ESC [2J), a window title
// (OSC 0 ... BEL), the 8-bit CSI (U+009B) and bidirectional overrides. Every command is run as a
// user would, with plain output into a pipe, and the ink views are rendered both under a real
// pseudo-terminal (the CLI itself) and with ink-testing-library. What the terminal gets shows
// each such character as an escape (`\x1b[2J`); `--json` lines stay JSON that parses back to
// the exact text; `show --format csv` is the data and stays exact.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { execa } from "execa";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { computeCoverage } from "../../src/api/coverage/index.js";
import * as il from "../../src/index.js";
import { RunTracker } from "../../src/cli/reporters/tracker.js";
import { CoverageReport } from "../../src/cli/views/coverage-view.js";
import { printableCoverage } from "../../src/cli/views/printable-coverage.js";
import { ProgressView, type ProgressFeed } from "../../src/cli/views/progress-view.js";
import type { InterloperEvent } from "../../src/runner/events.js";
import { HOSTILE, VALUE_HOSTILE } from "../../fixtures/projects/escapes/hostile.js";
import { BIN, ensureBuilt, FIXTURES, useSandboxes, type CliResult } from "../e2e/helpers.js";

beforeAll(ensureBuilt, 180_000);
const sandbox = useSandboxes();

const CONFIG = join(FIXTURES, "escapes", "interloper.config.ts");
/** The same text as the terminal should show it. */
const SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07\\u009b31m\\u202eevil\\u202c\\u2066x\\u2069";
/** Its start, for lines that cut it to fit a width. */
const SHOWN_START = "\\x1b[2J\\x1b]0;pwned";
/** A list value's part of it (list values refuse C0 controls), and how it is shown. */
const VALUE_SHOWN = "\\u009b31m\\u202eevil\\u202c\\u2066x\\u2069";
const VALUE_SHOWN_START = "\\u009b31m\\u202eevil";
const OK = `ok${VALUE_HOSTILE}`;
const FAILS = `fails${VALUE_HOSTILE}`;

/** The raw pieces of HOSTILE, each of which a terminal acts on. */
const RAW: ReadonlyArray<[string, string]> = [
  ["ESC [2J (clear the screen)", "\u001b[2J"],
  ["OSC 0 (set the window title)", "\u001b]0;"],
  ["BEL", "\u0007"],
  ["C1 CSI (U+009B)", "\u009b"],
  ["RIGHT-TO-LEFT OVERRIDE", "\u202e"],
  ["POP DIRECTIONAL FORMATTING", "\u202c"],
  ["LEFT-TO-RIGHT ISOLATE", "\u2066"],
  ["POP DIRECTIONAL ISOLATE", "\u2069"],
];

/** The raw pieces `text` holds, named (none is the goal). */
function rawIn(text: string): string[] {
  return RAW.filter(([, raw]) => text.includes(raw)).map(([name]) => name);
}

/** Plain output has no escape sequence at all, of ours or of the data. */
function expectClean(result: CliResult, what: string): void {
  expect(rawIn(result.stdout), `${what}: stdout`).toEqual([]);
  expect(rawIn(result.stderr), `${what}: stderr`).toEqual([]);
  expect(
    result.stdout.includes("\u001b") || result.stderr.includes("\u001b"),
    `${what}: an ESC in plain output:\n${result.stderr}${result.stdout}`,
  ).toBe(false);
}

const run = async (args: readonly string[]) => (await sandbox()).run(args, { config: CONFIG });

describe("plain output in a pipe", () => {
  it("materialize: the log lines, failures, the summary and the re-run command show every control as an escape", async () => {
    const box = await sandbox();
    const result = await box.run(["materialize", "-w", `${OK}..${FAILS}`, "--no-fail-fast"], { config: CONFIG });
    expect(result.exitCode, result.stderr).toBe(1);
    expectClean(result, "materialize");
    expect(result.stderr).toContain(`warning: esc.tagged: warned ${SHOWN}`);
    expect(result.stderr).toContain(`error: esc.tagged: logged ${SHOWN}`);
    expect(result.stderr).toMatch(new RegExp(`^FAIL .*fails${escapeRegExp(VALUE_SHOWN)}.*failed ${escapeRegExp(SHOWN)}`, "m"));
    expect(result.stderr).toContain(`Failed partitions: fails${VALUE_SHOWN}`);
    // The re-run command names the partition in ANSI-C quotes, which a shell reads back exactly.
    const command = result.errLines[result.errLines.findIndex((line) => line.startsWith("Re-run")) + 1]!.trim();
    const word = /--partition (\$'.*')$/.exec(command)?.[1];
    expect(word, command).toBe(`$'fails${VALUE_SHOWN}'`);
    const bash = spawnSync("bash", ["-c", `printf '%s' ${word}`], { encoding: "utf8", env: { ...process.env, LC_ALL: "C.UTF-8" } });
    if (bash.error) console.log("bash is not installed: the re-run command's quoting is not read back by a shell");
    else expect(bash.stdout).toBe(FAILS);
  });

  it("materialize --json: every line is JSON with no raw control, and parses back to the exact text", async () => {
    const result = await run(["materialize", "-p", FAILS, "--json"]);
    expect(result.exitCode, result.stderr).toBe(1);
    expectClean(result, "materialize --json");
    const events = result.outLines.map((line) => JSON.parse(line) as InterloperEvent);
    expect(events.filter((e) => e.type === "log").map((e) => (e as { message: string }).message)).toEqual([
      `warned ${HOSTILE}`,
      `logged ${HOSTILE}`,
    ]);
    const failed = events.find((e) => e.type === "asset:failed") as Extract<InterloperEvent, { type: "asset:failed" }>;
    expect(failed.error.message).toContain(`failed ${HOSTILE}`);
    expect(failed.partition).toBe(FAILS);
  });

  it("materialize in a pool of processes: the children's events arrive intact, the output is clean", async () => {
    const result = await run(["materialize", "-w", `${OK}..${FAILS}`, "--no-fail-fast", "--processes", "2"]);
    expect(result.exitCode, result.stderr).toBe(1);
    expectClean(result, "materialize --processes 2");
    expect(result.stderr).toContain(`failed ${SHOWN}`);
  });

  it("materialize --dry-run: destinations and partitions shown as escapes", async () => {
    const result = await run(["materialize", "-w", `${OK}..${FAILS}`, "--dry-run"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expectClean(result, "materialize --dry-run");
    expect(result.stdout).toContain(`store${SHOWN}`);
    expect(result.stdout).toContain(`  ok${VALUE_SHOWN}: esc.tagged`);
  });

  it("show: the table shows names and cells as escapes, --format json parses back exactly, --format csv is the data, exact", async () => {
    const box = await sandbox();
    expect((await box.run(["materialize", "-p", OK], { config: CONFIG })).exitCode).toBe(0);
    const table = await box.run(["show", "tagged", "-p", OK, "--limit", "0"], { config: CONFIG });
    expect(table.exitCode, table.stderr).toBe(0);
    expectClean(table, "show");
    expect(table.stdout).toContain(`note${SHOWN_START}`);
    expect(table.stdout).toContain(`cell ${SHOWN_START}`);

    const json = await box.run(["show", "tagged", "-p", OK, "--format", "json"], { config: CONFIG });
    expectClean(json, "show --format json");
    expect(JSON.parse(json.stdout)).toEqual([{ tag: OK, [`note${HOSTILE}`]: `cell ${HOSTILE}` }]);

    const csv = await box.run(["show", "tagged", "-p", OK, "--format", "csv"], { config: CONFIG });
    expect(csv.stdout).toBe(`tag,note${HOSTILE}\n${OK},cell ${HOSTILE}\n`);
  });

  it("coverage: one asset, every asset and --json", async () => {
    const box = await sandbox();
    expect((await box.run(["materialize", "-p", OK], { config: CONFIG })).exitCode).toBe(0);
    const one = await box.run(["coverage", "tagged"], { config: CONFIG });
    expect(one.exitCode, one.stderr).toBe(0);
    expectClean(one, "coverage tagged");
    expect(one.stdout).toContain(`ok${VALUE_SHOWN}`);
    expect(one.stdout).toContain(`missing: fails${VALUE_SHOWN}`);
    const all = await box.run(["coverage"], { config: CONFIG });
    expectClean(all, "coverage");
    expect(all.stdout).toContain(`missing fails${VALUE_SHOWN_START}`);
    const json = await box.run(["coverage", "tagged", "--json"], { config: CONFIG });
    expectClean(json, "coverage --json");
    expect((JSON.parse(json.stdout) as { missingRanges: string[] }).missingRanges).toEqual([
      `fails${VALUE_HOSTILE}..never${VALUE_HOSTILE}`,
    ]);
  });

  it("list and plan, as text and as JSON", async () => {
    for (const args of [["list"], ["plan", "-w", `${OK}..${FAILS}`]]) {
      const text = await run(args);
      expect(text.exitCode, text.stderr).toBe(0);
      expectClean(text, args[0]!);
      expect(text.stdout).toContain(`ok${VALUE_SHOWN}`);
      const json = await run([...args, "--json"]);
      expectClean(json, `${args[0]} --json`);
      expect(json.stdout).toContain(
        JSON.stringify(OK).replace(
          /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
        ),
      );
      expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(OK));
    }
  });

  it("errors: a bad value given on the command line, with and without --verbose", async () => {
    for (const verbose of [[], ["--verbose"]]) {
      const result = await run(["show", "tagged", "-p", `nope${HOSTILE}`, ...verbose]);
      expect(result.exitCode).toBe(2);
      expectClean(result, `an error${verbose.length ? " with --verbose" : ""}`);
      expect(result.errLines[0]).toContain("is not a declared value");
    }
    const flag = await run(["materialize", "--order", `new${HOSTILE}`]);
    expect(flag.exitCode).toBe(2);
    expectClean(flag, "a bad option value");
  });
});

// ---- the ink views ------------------------------------------------------------------------------

const PTY_SCRIPT = `
import fcntl, os, pty, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 200, 160, 0, 0))
    os.execv(sys.argv[1], sys.argv[1:])
out = sys.stdout.buffer
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out.write(data)
    out.flush()
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;
const python = spawnSync("python3", ["-c", "import pty, termios"], { stdio: "ignore" }).status === 0;

/** The CLI under a pseudo-terminal (stdout and stderr a terminal, no CI): what it draws, with its own escapes. */
async function underTerminal(args: readonly string[], data: string): Promise<{ output: string; exitCode: number }> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    ...process.env,
    CI: undefined,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    DEBUG: undefined,
    TERM: "xterm-256color",
    INTERLOPER_TEST_DATA: data,
  })) {
    if (value !== undefined) env[name] = value;
  }
  const result = await execa("python3", ["-c", PTY_SCRIPT, process.execPath, BIN, ...args, "-c", CONFIG], {
    env,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: 60_000,
  });
  return { output: String(result.stdout), exitCode: result.exitCode ?? -1 };
}

describe("the ink views", () => {
  it("under a pseudo-terminal, materialize's progress view and coverage's picture draw no control of the data", async () => {
    if (!python) {
      console.log(
        "python3 with the pty module is not installed: the CLI is not run under a pseudo-terminal here (the views are still rendered below)",
      );
      return;
    }
    const box = await sandbox();
    const progress = await underTerminal(["materialize", "-w", `${OK}..${FAILS}`, "--no-fail-fast"], box.data);
    expect(progress.exitCode, progress.output).toBe(1);
    expect(rawIn(progress.output), progress.output).toEqual([]);
    expect(progress.output).toContain(`fails${VALUE_SHOWN}`);
    // The ink view ran (its ✗ line), not the plain log (FAIL).
    expect(progress.output).toContain("✗");
    expect(progress.output).not.toContain("FAIL [");
    const picture = await underTerminal(["coverage", "tagged"], box.data);
    expect(picture.exitCode, picture.output).toBe(0);
    expect(rawIn(picture.output), picture.output).toEqual([]);
    expect(picture.output).toContain(`never${VALUE_SHOWN}`);
  }, 90_000);

  it("ProgressView (ink-testing-library): title, finished and running partitions, failures", async () => {
    const tracker = new RunTracker("backfill");
    const listeners = new Set<() => void>();
    const feed: ProgressFeed = { tracker, subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)) };
    const base = { time: "2026-02-01T10:00:00.000Z", backfillId: "bf", runId: "r" };
    const events: InterloperEvent[] = [
      { ...base, type: "backfill:started", window: `${OK}..${FAILS}`, order: "newest", partitions: [OK, FAILS, `never${VALUE_HOSTILE}`] },
      { ...base, type: "run:started", partition: OK, assets: ["esc.tagged"] },
      { ...base, type: "run:started", partition: FAILS, assets: ["esc.tagged"] },
      { ...base, type: "run:started", partition: `never${VALUE_HOSTILE}`, assets: ["esc.tagged"] },
      { ...base, type: "asset:completed", partition: OK, asset: "esc.tagged", rows: 1, durationMs: 5 },
      { ...base, type: "run:completed", partition: OK, durationMs: 6, completed: ["esc.tagged"], failed: [], canceled: [] },
      {
        ...base,
        type: "asset:failed",
        partition: FAILS,
        asset: "esc.tagged",
        error: { name: "Error", message: `failed ${HOSTILE}` },
        durationMs: 5,
      },
      { ...base, type: "run:failed", partition: FAILS, durationMs: 6, completed: [], failed: ["esc.tagged"], canceled: [] },
    ];
    for (const event of events) tracker.apply(event);
    const app = render(createElement(ProgressView, { feed, title: `Backfilling esc.tagged for ${OK}..${FAILS}`, color: false }));
    try {
      // Finished lines are written to the terminal apart from ink's live frame: read both.
      const screen = () => app.frames.filter((f) => f.endsWith("\n")).join("") + (app.frames.filter((f) => !f.endsWith("\n")).at(-1) ?? "");
      await vi.waitFor(() => expect(screen()).toContain(`running never${VALUE_SHOWN}`));
      const frame = screen();
      expect(rawIn(frame)).toEqual([]);
      expect(frame).not.toContain("\u001b");
      // Ink wraps the title at the space before the window.
      expect(frame).toContain(`ok${VALUE_SHOWN}..fails${VALUE_SHOWN}`);
      expect(frame).toContain(`✓ ok${VALUE_SHOWN}`);
      expect(frame).toContain(`✗ fails${VALUE_SHOWN}  esc.tagged: failed`);
    } finally {
      app.unmount();
    }
  });

  it("CoverageView (ink-testing-library), given the coverage as the coverage command gives it", () => {
    const definition = il.asset({
      key: "tagged",
      partitioning: new il.ListPartitionConfig({ column: `tag${HOSTILE}`, values: [OK, FAILS] }),
      run: () => [],
    });
    const asset = il.source({ key: "esc", assets: [definition] })({ destinations: new il.MemoryDestination() }).assets["tagged"]!;
    const coverage = computeCoverage(asset, { [OK]: 3, [`stray${VALUE_HOSTILE}`]: 1 });
    const app = render(createElement(CoverageReport, { coverage: printableCoverage(coverage), width: 160, color: false }));
    try {
      const frame = app.lastFrame()!;
      expect(rawIn(frame)).toEqual([]);
      expect(frame).not.toContain("\u001b");
      expect(frame).toContain(`ok${VALUE_SHOWN}`);
      expect(frame).toContain(`missing: fails${VALUE_SHOWN}`);
      expect(frame).toContain(`stray${VALUE_SHOWN}`);
    } finally {
      app.unmount();
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
